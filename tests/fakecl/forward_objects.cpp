// libclport_fakecl_forward: entry points with bookkeeping (buffers for the allocation limit,
// programs for the build failure, kernel arguments for FAKECL_CORRUPT_KERNEL).
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "forward_macros.h"

namespace {

template <typename Info, typename Object>
cl_uint reference_count(Info info, Object object, cl_uint param) {
  cl_uint count = 0;
  if (info == nullptr || info(object, param, sizeof(count), &count, nullptr) != CL_SUCCESS) return 0;
  return count;
}

std::string kernel_name(cl_kernel kernel) {
  const auto fn = fakecl::real().api.clGetKernelInfo;
  size_t size = 0;
  if (fn == nullptr || fn(kernel, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &size) != CL_SUCCESS) return "";
  std::vector<char> name(size + 1, '\0');
  if (fn(kernel, CL_KERNEL_FUNCTION_NAME, size, name.data(), nullptr) != CL_SUCCESS) return "";
  return name.data();
}

// The "wrong results" hook: overwrite the start of the kernel's first buffer argument once the
// kernel has been enqueued (in-order queue, so later reads see the damage).
void corrupt_if_asked(cl_command_queue queue, cl_kernel kernel) {
  const char* target = std::getenv("FAKECL_CORRUPT_KERNEL");
  if (target == nullptr || *target == '\0' || kernel_name(kernel) != target) return;
  cl_mem buffer = fakecl::first_kernel_buffer_arg(kernel);
  size_t size = 0;
  if (buffer == nullptr || !fakecl::tracked_buffer_size(buffer, &size) || size == 0) return;
  unsigned char garbage[16];
  std::memset(garbage, 0x7f, sizeof(garbage));
  const size_t n = size < sizeof(garbage) ? size : sizeof(garbage);
  fakecl::real().api.clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, n, garbage, 0, nullptr,
                                          nullptr);
}

}  // namespace

// For tests that check a backend gave its device memory back (dlsym on this library).
extern "C" FAKECL_EXPORT size_t fakecl_live_buffer_bytes() { return fakecl::live_buffer_bytes(); }

extern "C" FAKECL_EXPORT cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags,
                                                           size_t size, void* host,
                                                           cl_int* errcode_ret) {
  cl_int injected = CL_SUCCESS;
  if (fakecl::inject("clCreateBuffer", &injected) ||
      ((fakecl::allocation_too_large(size) || !fakecl::allocation_allowed(size)) &&
       (injected = CL_MEM_OBJECT_ALLOCATION_FAILURE))) {
    if (errcode_ret != nullptr) *errcode_ret = injected;
    return nullptr;
  }
  const auto fn = fakecl::real().api.clCreateBuffer;
  if (fn == nullptr) {
    if (errcode_ret != nullptr) *errcode_ret = CL_INVALID_OPERATION;
    return nullptr;
  }
  cl_mem buffer = fn(context, flags, size, host, errcode_ret);
  if (buffer != nullptr) fakecl::track_buffer(buffer, size, true);
  return buffer;
}

extern "C" FAKECL_EXPORT cl_mem CL_API_CALL clCreateSubBuffer(cl_mem parent, cl_mem_flags flags,
                                                              cl_buffer_create_type type,
                                                              const void* info,
                                                              cl_int* errcode_ret) {
  cl_int injected = CL_SUCCESS;
  if (fakecl::inject("clCreateSubBuffer", &injected)) {
    if (errcode_ret != nullptr) *errcode_ret = injected;
    return nullptr;
  }
  const auto fn = fakecl::real().api.clCreateSubBuffer;
  if (fn == nullptr) {
    if (errcode_ret != nullptr) *errcode_ret = CL_INVALID_OPERATION;
    return nullptr;
  }
  cl_mem buffer = fn(parent, flags, type, info, errcode_ret);
  if (buffer != nullptr && type == CL_BUFFER_CREATE_TYPE_REGION && info != nullptr) {
    // Sub-buffers share the parent's memory: tracked for argument detection, not counted.
    fakecl::track_buffer(buffer, static_cast<const cl_buffer_region*>(info)->size, false);
  }
  return buffer;
}

extern "C" FAKECL_EXPORT cl_int CL_API_CALL clReleaseMemObject(cl_mem buffer) {
  cl_int injected = CL_SUCCESS;
  if (fakecl::inject("clReleaseMemObject", &injected)) return injected;
  const auto& api = fakecl::real().api;
  if (api.clReleaseMemObject == nullptr) return CL_INVALID_OPERATION;
  // The caller's references are counted here (create, clRetainMemObject): the driver's own
  // count also holds the references of commands still queued (after a failed clFinish, say),
  // which go when they complete.
  const cl_int err = api.clReleaseMemObject(buffer);
  if (err == CL_SUCCESS) fakecl::release_buffer_reference(buffer);
  return err;
}

extern "C" FAKECL_EXPORT cl_int CL_API_CALL clRetainMemObject(cl_mem buffer) {
  cl_int injected = CL_SUCCESS;
  if (fakecl::inject("clRetainMemObject", &injected)) return injected;
  const auto fn = fakecl::real().api.clRetainMemObject;
  if (fn == nullptr) return CL_INVALID_OPERATION;
  const cl_int err = fn(buffer);
  if (err == CL_SUCCESS) fakecl::retain_buffer(buffer);
  return err;
}

extern "C" FAKECL_EXPORT cl_int CL_API_CALL clBuildProgram(
    cl_program program, cl_uint num_devices, const cl_device_id* devices, const char* options,
    void(CL_CALLBACK* notify)(cl_program, void*), void* user_data) {
  cl_int injected = CL_SUCCESS;
  if (fakecl::inject("clBuildProgram", &injected)) return injected;
  if (fakecl::env_flag("FAKECL_BUILD_FAIL")) {
    fakecl::mark_build_failed(program);
    if (notify != nullptr) notify(program, user_data);
    return CL_BUILD_PROGRAM_FAILURE;
  }
  const auto fn = fakecl::real().api.clBuildProgram;
  return fn ? fn(program, num_devices, devices, options, notify, user_data) : CL_INVALID_OPERATION;
}

extern "C" FAKECL_EXPORT cl_int CL_API_CALL clGetProgramBuildInfo(cl_program program,
                                                                  cl_device_id device,
                                                                  cl_program_build_info param,
                                                                  size_t value_size, void* value,
                                                                  size_t* size_ret) {
  cl_int injected = CL_SUCCESS;
  if (fakecl::inject("clGetProgramBuildInfo", &injected)) return injected;
  if (fakecl::build_failed(program) &&
      (param == CL_PROGRAM_BUILD_LOG || param == CL_PROGRAM_BUILD_STATUS)) {
    const cl_build_status status = CL_BUILD_ERROR;
    const char* log = fakecl::fake_build_log();
    const void* data = param == CL_PROGRAM_BUILD_LOG ? static_cast<const void*>(log) : &status;
    const size_t size = param == CL_PROGRAM_BUILD_LOG ? std::strlen(log) + 1 : sizeof(status);
    if (value != nullptr) {
      if (value_size < size) return CL_INVALID_VALUE;
      std::memcpy(value, data, size);
    }
    if (size_ret != nullptr) *size_ret = size;
    return CL_SUCCESS;
  }
  const auto fn = fakecl::real().api.clGetProgramBuildInfo;
  return fn ? fn(program, device, param, value_size, value, size_ret) : CL_INVALID_OPERATION;
}

extern "C" FAKECL_EXPORT cl_int CL_API_CALL clReleaseProgram(cl_program program) {
  cl_int injected = CL_SUCCESS;
  if (fakecl::inject("clReleaseProgram", &injected)) return injected;
  const auto& api = fakecl::real().api;
  if (api.clReleaseProgram == nullptr) return CL_INVALID_OPERATION;
  const bool last = reference_count(api.clGetProgramInfo,
                                    program, CL_PROGRAM_REFERENCE_COUNT) == 1;
  const cl_int err = api.clReleaseProgram(program);
  if (err == CL_SUCCESS && last) fakecl::forget_program(program);
  return err;
}

extern "C" FAKECL_EXPORT cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint index,
                                                           size_t size, const void* value) {
  cl_int injected = CL_SUCCESS;
  if (fakecl::inject("clSetKernelArg", &injected)) return injected;
  const auto fn = fakecl::real().api.clSetKernelArg;
  if (fn == nullptr) return CL_INVALID_OPERATION;
  const cl_int err = fn(kernel, index, size, value);
  if (err == CL_SUCCESS) {
    size_t bytes = 0;
    cl_mem candidate = nullptr;
    if (size == sizeof(cl_mem) && value != nullptr) std::memcpy(&candidate, value, sizeof(cl_mem));
    // Only handles this library created count as buffers: never dereference unknown values.
    if (candidate != nullptr && fakecl::tracked_buffer_size(candidate, &bytes)) {
      fakecl::record_kernel_buffer_arg(kernel, index, candidate);
    } else {
      fakecl::forget_kernel_arg(kernel, index);
    }
  }
  return err;
}

extern "C" FAKECL_EXPORT cl_int CL_API_CALL clReleaseKernel(cl_kernel kernel) {
  cl_int injected = CL_SUCCESS;
  if (fakecl::inject("clReleaseKernel", &injected)) return injected;
  const auto& api = fakecl::real().api;
  if (api.clReleaseKernel == nullptr) return CL_INVALID_OPERATION;
  const bool last = reference_count(api.clGetKernelInfo,
                                    kernel, CL_KERNEL_REFERENCE_COUNT) == 1;
  const cl_int err = api.clReleaseKernel(kernel);
  if (err == CL_SUCCESS && last) fakecl::forget_kernel(kernel);
  return err;
}

extern "C" FAKECL_EXPORT cl_int CL_API_CALL clEnqueueNDRangeKernel(
    cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t* offset,
    const size_t* global, const size_t* local, cl_uint n, const cl_event* wait, cl_event* event) {
  cl_int injected = CL_SUCCESS;
  if (fakecl::inject("clEnqueueNDRangeKernel", &injected)) return injected;
  const auto fn = fakecl::real().api.clEnqueueNDRangeKernel;
  if (fn == nullptr) return CL_INVALID_OPERATION;
  const cl_int err = fn(queue, kernel, dims, offset, global, local, n, wait, event);
  if (err == CL_SUCCESS) corrupt_if_asked(queue, kernel);
  return err;
}
