// check_device_usable (probe/device_info.h): the cheapest proof that real work could run.
#include "probe/device_info.h"
#include "loader/opencl_loader.h"
#include "probe/device_query.h"

namespace clport {
namespace {

std::string failure(const char* call, cl_int err, const DeviceInfo& info) {
  return std::string(call) + " failed with " + cl_error_name(err) + " (" + std::to_string(err) +
         ") on device '" + info.name + "'";
}

// OpenCL 2.0+ drivers may lack the deprecated clCreateCommandQueue in practice (it still must
// exist in 1.2 libraries); prefer the newer entry point when the library has it.
cl_command_queue create_queue(const clport_cl_api& cl, cl_context context, cl_device_id device,
                              cl_int* err) {
  if (cl.clCreateCommandQueueWithProperties != nullptr) {
    const cl_queue_properties props[] = {0};
    cl_command_queue q = cl.clCreateCommandQueueWithProperties(context, device, props, err);
    if (q != nullptr && *err == CL_SUCCESS) return q;
    // Some 1.2 drivers export the symbol but reject the call: fall back before giving up.
    if (*err != CL_INVALID_OPERATION && *err != CL_INVALID_VALUE) return q;
  }
  return cl.clCreateCommandQueue(context, device, 0, err);
}

}  // namespace

Status check_device_usable(const clport_cl_api& cl, const DeviceInfo& info) {
  if (info.device == nullptr) return Status(Stage::InvalidArgument, "no device given");
  if (probe::device_scalar<cl_bool>(cl, info.device, CL_DEVICE_AVAILABLE, CL_TRUE) != CL_TRUE) {
    return Status(Stage::DeviceUnusable,
                  "device '" + info.name + "' reports CL_DEVICE_AVAILABLE = false (in use by "
                  "another process, powered down, or lost); retry or pick another device");
  }
  if (probe::device_scalar<cl_bool>(cl, info.device, CL_DEVICE_COMPILER_AVAILABLE, CL_TRUE) !=
      CL_TRUE) {
    return Status(Stage::DeviceUnusable,
                  "device '" + info.name + "' has no OpenCL C compiler (CL_DEVICE_COMPILER_"
                  "AVAILABLE = false); clport builds its kernels from source and cannot use it");
  }
  cl_int err = CL_SUCCESS;
  const cl_context_properties props[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(info.platform), 0};
  cl_context context = cl.clCreateContext(info.platform ? props : nullptr, 1, &info.device,
                                          nullptr, nullptr, &err);
  if (context == nullptr || err != CL_SUCCESS) {
    if (context != nullptr) cl.clReleaseContext(context);
    return Status(Stage::Context, failure("clCreateContext", err, info) +
                                      "; the driver may be out of resources or broken (try "
                                      "again, or update the GPU driver)");
  }
  cl_command_queue queue = create_queue(cl, context, info.device, &err);
  if (queue == nullptr || err != CL_SUCCESS) {
    if (queue != nullptr) cl.clReleaseCommandQueue(queue);
    cl.clReleaseContext(context);
    return Status(Stage::Queue, failure("command queue creation", err, info) +
                                    "; the device accepted a context but no queue (update the "
                                    "GPU driver, or close other programs using the GPU)");
  }
  cl.clReleaseCommandQueue(queue);
  cl.clReleaseContext(context);
  return Status();
}

}  // namespace clport
