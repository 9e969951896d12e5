/* libclport_fakecl_partial: looks like an OpenCL library (exports clGetPlatformIDs and the info
 * queries) but lacks required entry points, as some stripped vendor drivers do. Missing on
 * purpose: clCreateContext, clBuildProgram, clEnqueueNDRangeKernel and everything after the
 * info queries. The loader must name them. Nothing here is ever meant to be called for real. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT cl_int clGetPlatformIDs(cl_uint n, cl_platform_id* p, cl_uint* count) {
  (void)n;
  (void)p;
  if (count) *count = 0;
  return CL_PLATFORM_NOT_FOUND_KHR;
}

EXPORT cl_int clGetPlatformInfo(cl_platform_id p, cl_platform_info i, size_t s, void* v,
                                size_t* r) {
  (void)p, (void)i, (void)s, (void)v, (void)r;
  return CL_INVALID_PLATFORM;
}

EXPORT cl_int clGetDeviceIDs(cl_platform_id p, cl_device_type t, cl_uint n, cl_device_id* d,
                             cl_uint* count) {
  (void)p, (void)t, (void)n, (void)d;
  if (count) *count = 0;
  return CL_INVALID_PLATFORM;
}

EXPORT cl_int clGetDeviceInfo(cl_device_id d, cl_device_info i, size_t s, void* v, size_t* r) {
  (void)d, (void)i, (void)s, (void)v, (void)r;
  return CL_INVALID_DEVICE;
}

EXPORT cl_int clFlush(cl_command_queue q) {
  (void)q;
  return CL_INVALID_COMMAND_QUEUE;
}

EXPORT cl_int clFinish(cl_command_queue q) {
  (void)q;
  return CL_INVALID_COMMAND_QUEUE;
}
