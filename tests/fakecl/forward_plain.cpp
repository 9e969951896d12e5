// libclport_fakecl_forward: the entry points that only forward (after fault injection). The ones
// that spoof identity or keep bookkeeping live in forward_info.cpp and forward_objects.cpp.
#include "fake_faults.h"
#include "forward_macros.h"

FAKECL_FORWARD_OBJ(cl_context, clCreateContext,
                   (const cl_context_properties* properties, cl_uint num_devices,
                    const cl_device_id* devices,
                    void(CL_CALLBACK* pfn_notify)(const char*, const void*, size_t, void*),
                    void* user_data, cl_int* errcode_ret),
                   (properties, num_devices, devices, pfn_notify, user_data, errcode_ret))
FAKECL_FORWARD_INT(clRetainContext, (cl_context c), (c))
FAKECL_FORWARD_INT(clReleaseContext, (cl_context c), (c))
FAKECL_FORWARD_INT(clGetContextInfo,
                   (cl_context c, cl_context_info p, size_t s, void* v, size_t* r), (c, p, s, v, r))
FAKECL_FORWARD_OBJ(cl_command_queue, clCreateCommandQueue,
                   (cl_context c, cl_device_id d, cl_command_queue_properties p, cl_int* errcode_ret),
                   (c, d, p, errcode_ret))
FAKECL_FORWARD_INT(clRetainCommandQueue, (cl_command_queue q), (q))
FAKECL_FORWARD_INT(clReleaseCommandQueue, (cl_command_queue q), (q))
FAKECL_FORWARD_INT(clGetMemObjectInfo, (cl_mem m, cl_mem_info p, size_t s, void* v, size_t* r),
                   (m, p, s, v, r))
FAKECL_FORWARD_OBJ(cl_program, clCreateProgramWithSource,
                   (cl_context c, cl_uint n, const char** strings, const size_t* lengths,
                    cl_int* errcode_ret),
                   (c, n, strings, lengths, errcode_ret))
FAKECL_FORWARD_OBJ(cl_program, clCreateProgramWithBinary,
                   (cl_context c, cl_uint n, const cl_device_id* d, const size_t* lengths,
                    const unsigned char** binaries, cl_int* binary_status, cl_int* errcode_ret),
                   (c, n, d, lengths, binaries, binary_status, errcode_ret))
FAKECL_FORWARD_INT(clRetainProgram, (cl_program p), (p))
FAKECL_FORWARD_INT(clGetProgramInfo, (cl_program pr, cl_program_info p, size_t s, void* v, size_t* r),
                   (pr, p, s, v, r))
FAKECL_FORWARD_OBJ(cl_kernel, clCreateKernel,
                   (cl_program p, const char* name, cl_int* errcode_ret), (p, name, errcode_ret))
FAKECL_FORWARD_INT(clRetainKernel, (cl_kernel k), (k))
FAKECL_FORWARD_INT(clGetKernelInfo, (cl_kernel k, cl_kernel_info p, size_t s, void* v, size_t* r),
                   (k, p, s, v, r))
FAKECL_FORWARD_INT(clGetKernelWorkGroupInfo,
                   (cl_kernel k, cl_device_id d, cl_kernel_work_group_info p, size_t s, void* v,
                    size_t* r),
                   (k, d, p, s, v, r))
FAKECL_FORWARD_INT(clWaitForEvents, (cl_uint n, const cl_event* e), (n, e))
FAKECL_FORWARD_INT(clGetEventInfo, (cl_event e, cl_event_info p, size_t s, void* v, size_t* r),
                   (e, p, s, v, r))
FAKECL_FORWARD_INT(clRetainEvent, (cl_event e), (e))
FAKECL_FORWARD_INT(clReleaseEvent, (cl_event e), (e))
FAKECL_FORWARD_INT(clGetEventProfilingInfo,
                   (cl_event e, cl_profiling_info p, size_t s, void* v, size_t* r), (e, p, s, v, r))
FAKECL_FORWARD_INT(clFlush, (cl_command_queue q), (q))
FAKECL_FORWARD_INT(clFinish, (cl_command_queue q), (q))
FAKECL_FORWARD_INT(clEnqueueReadBuffer,
                   (cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset, size_t size,
                    void* ptr, cl_uint n, const cl_event* wait, cl_event* event),
                   (q, m, blocking, offset, size, ptr, n, wait, event))
FAKECL_FORWARD_INT(clEnqueueWriteBuffer,
                   (cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset, size_t size,
                    const void* ptr, cl_uint n, const cl_event* wait, cl_event* event),
                   (q, m, blocking, offset, size, ptr, n, wait, event))
FAKECL_FORWARD_INT(clEnqueueCopyBuffer,
                   (cl_command_queue q, cl_mem src, cl_mem dst, size_t src_offset,
                    size_t dst_offset, size_t size, cl_uint n, const cl_event* wait,
                    cl_event* event),
                   (q, src, dst, src_offset, dst_offset, size, n, wait, event))
FAKECL_FORWARD_INT(clEnqueueFillBuffer,
                   (cl_command_queue q, cl_mem m, const void* pattern, size_t pattern_size,
                    size_t offset, size_t size, cl_uint n, const cl_event* wait, cl_event* event),
                   (q, m, pattern, pattern_size, offset, size, n, wait, event))
FAKECL_FORWARD_OBJ(void*, clEnqueueMapBuffer,
                   (cl_command_queue q, cl_mem m, cl_bool blocking, cl_map_flags flags,
                    size_t offset, size_t size, cl_uint n, const cl_event* wait, cl_event* event,
                    cl_int* errcode_ret),
                   (q, m, blocking, flags, offset, size, n, wait, event, errcode_ret))
FAKECL_FORWARD_INT(clEnqueueUnmapMemObject,
                   (cl_command_queue q, cl_mem m, void* ptr, cl_uint n, const cl_event* wait,
                    cl_event* event),
                   (q, m, ptr, n, wait, event))
FAKECL_FORWARD_INT(clEnqueueMarkerWithWaitList,
                   (cl_command_queue q, cl_uint n, const cl_event* wait, cl_event* event),
                   (q, n, wait, event))
FAKECL_FORWARD_INT(clEnqueueBarrierWithWaitList,
                   (cl_command_queue q, cl_uint n, const cl_event* wait, cl_event* event),
                   (q, n, wait, event))

// ---- optional (OpenCL 2.x / 3.0) entry points -----------------------------------------------
FAKECL_FORWARD_OBJ(cl_command_queue, clCreateCommandQueueWithProperties,
                   (cl_context c, cl_device_id d, const cl_queue_properties* p, cl_int* errcode_ret),
                   (c, d, p, errcode_ret))
FAKECL_FORWARD_OBJ(cl_mem, clCreateImage,
                   (cl_context c, cl_mem_flags flags, const cl_image_format* format,
                    const cl_image_desc* desc, void* host, cl_int* errcode_ret),
                   (c, flags, format, desc, host, errcode_ret))
FAKECL_FORWARD_INT(clGetKernelSubGroupInfo,
                   (cl_kernel k, cl_device_id d, cl_kernel_sub_group_info p, size_t in_size,
                    const void* in, size_t s, void* v, size_t* r),
                   (k, d, p, in_size, in, s, v, r))
FAKECL_FORWARD_OBJ(cl_program, clCreateProgramWithIL,
                   (cl_context c, const void* il, size_t length, cl_int* errcode_ret),
                   (c, il, length, errcode_ret))

extern "C" FAKECL_EXPORT void* CL_API_CALL clSVMAlloc(cl_context c, cl_svm_mem_flags flags,
                                                      size_t size, cl_uint alignment) {
  cl_int injected = CL_SUCCESS;
  if (fakecl::inject("clSVMAlloc", &injected)) return nullptr;
  const auto fn = fakecl::real().api.clSVMAlloc;
  return fn ? fn(c, flags, size, alignment) : nullptr;
}

extern "C" FAKECL_EXPORT void CL_API_CALL clSVMFree(cl_context c, void* pointer) {
  const auto fn = fakecl::real().api.clSVMFree;
  if (fn) fn(c, pointer);
}
