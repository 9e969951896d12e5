/* The OpenCL entry points clport resolved at run time, as a plain C table.
 *
 * Nothing in clport links libOpenCL: the core's loader fills this table from whatever library it
 * found (an ICD loader, a vendor driver, or an ICD-only library through its cl_icd_dispatch), and
 * hands the same table to every plugin. A NULL entry means the symbol is missing; the loader
 * refuses a library unless every REQUIRED entry is present, while OPTIONAL entries only switch
 * features off (the caller checks for NULL and falls back).
 *
 * This header is part of the plugin ABI: fields are only ever appended.
 */
#ifndef CLPORT_CL_API_H
#define CLPORT_CL_API_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#endif
#include <CL/cl.h>
#include <CL/cl_icd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(name) lists: REQUIRED is the OpenCL 1.2 core the runtime uses; OPTIONAL are 2.x/3.0 entry
 * points (and 1.2 extras) that only enable features. Order is ABI: append only. */
#define CLPORT_CL_REQUIRED_FUNCTIONS(X) \
  X(clGetPlatformIDs)                   \
  X(clGetPlatformInfo)                  \
  X(clGetDeviceIDs)                     \
  X(clGetDeviceInfo)                    \
  X(clCreateContext)                    \
  X(clRetainContext)                    \
  X(clReleaseContext)                   \
  X(clGetContextInfo)                   \
  X(clCreateCommandQueue)               \
  X(clRetainCommandQueue)               \
  X(clReleaseCommandQueue)              \
  X(clCreateBuffer)                     \
  X(clRetainMemObject)                  \
  X(clReleaseMemObject)                 \
  X(clGetMemObjectInfo)                 \
  X(clCreateProgramWithSource)          \
  X(clCreateProgramWithBinary)          \
  X(clRetainProgram)                    \
  X(clReleaseProgram)                   \
  X(clBuildProgram)                     \
  X(clGetProgramInfo)                   \
  X(clGetProgramBuildInfo)              \
  X(clCreateKernel)                     \
  X(clRetainKernel)                     \
  X(clReleaseKernel)                    \
  X(clSetKernelArg)                     \
  X(clGetKernelInfo)                    \
  X(clGetKernelWorkGroupInfo)           \
  X(clWaitForEvents)                    \
  X(clGetEventInfo)                     \
  X(clRetainEvent)                      \
  X(clReleaseEvent)                     \
  X(clGetEventProfilingInfo)            \
  X(clFlush)                            \
  X(clFinish)                           \
  X(clEnqueueReadBuffer)                \
  X(clEnqueueWriteBuffer)               \
  X(clEnqueueCopyBuffer)                \
  X(clEnqueueFillBuffer)                \
  X(clEnqueueMapBuffer)                 \
  X(clEnqueueUnmapMemObject)            \
  X(clEnqueueNDRangeKernel)             \
  X(clEnqueueMarkerWithWaitList)        \
  X(clEnqueueBarrierWithWaitList)

#define CLPORT_CL_OPTIONAL_FUNCTIONS(X)     \
  X(clCreateCommandQueueWithProperties)     \
  X(clCreateSubBuffer)                      \
  X(clCreateImage)                          \
  X(clSVMAlloc)                             \
  X(clSVMFree)                              \
  X(clGetKernelSubGroupInfo)                \
  X(clCreateProgramWithIL)                  \
  X(clGetExtensionFunctionAddressForPlatform)

#define CLPORT_CL_DECLARE_FIELD(name) cl_api_##name name;

typedef struct clport_cl_api {
  /* Size of this struct as the producer compiled it; guards fields appended later. */
  size_t struct_size;
  CLPORT_CL_REQUIRED_FUNCTIONS(CLPORT_CL_DECLARE_FIELD)
  CLPORT_CL_OPTIONAL_FUNCTIONS(CLPORT_CL_DECLARE_FIELD)
} clport_cl_api;

#undef CLPORT_CL_DECLARE_FIELD

#ifdef __cplusplus
}
#endif

#endif /* CLPORT_CL_API_H */
