// run_device_smoke_test (probe/device_smoke_test.h). The program is built straight from source,
// not through the program cache: a cached binary would hide a compiler that fails every build,
// and the cache is for kernels that run again.
#include "probe/device_smoke_test.h"

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "loader/opencl_loader.h"

namespace clport {
namespace {

constexpr const char* kKernelName = "clport_check_axpy";
// The output is the first argument: fault injection that corrupts a kernel's first buffer
// (tests/fakecl, FAKECL_CORRUPT_KERNEL) then hits what is compared.
constexpr const char* kSource =
    "__kernel void clport_check_axpy(__global float* y, __global const float* x, const float a) {\n"
    "  const size_t i = get_global_id(0);\n"
    "  y[i] = a * x[i] + y[i];\n"
    "}\n";
constexpr size_t kElements = 1024;
constexpr float kScale = 3.0f;
constexpr size_t kMaxLogChars = 2000;

// Releases what was created, in reverse order, however the test ends.
class Cleanup {
 public:
  ~Cleanup() {
    for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) (*it)();
  }
  void add(std::function<void()> step) { steps_.push_back(std::move(step)); }

 private:
  std::vector<std::function<void()>> steps_;
};

std::string call_failed(const char* call, cl_int err) {
  return std::string(call) + " failed with " + cl_error_name(err) + " (" + std::to_string(err) +
         ")";
}

std::string build_log(const clport_cl_api& cl, cl_program program, cl_device_id device) {
  size_t size = 0;
  if (cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) !=
          CL_SUCCESS ||
      size == 0) {
    return "(no build log)";
  }
  std::string log(size, '\0');
  if (cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) !=
      CL_SUCCESS) {
    return "(no build log)";
  }
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (log.size() > kMaxLogChars) log = log.substr(0, kMaxLogChars) + " ...";
  return log.empty() ? "(empty build log)" : log;
}

std::string number(float v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

Status run_device_smoke_test(DeviceContext& ctx) {
  const clport_cl_api& cl = ctx.cl();
  const std::string on = " on device '" + ctx.info().name + "'";
  const std::string what = std::string("test kernel ") + kKernelName;
  cl_device_id device = ctx.info().device;
  Cleanup cleanup;
  cl_int err = CL_SUCCESS;

  const char* source = kSource;
  cl_program program = cl.clCreateProgramWithSource(ctx.context(), 1, &source, nullptr, &err);
  if (program == nullptr || err != CL_SUCCESS) {
    return Status(Stage::ProgramBuild, what + ": " + call_failed("clCreateProgramWithSource", err) + on);
  }
  cleanup.add([&cl, program] { cl.clReleaseProgram(program); });
  err = cl.clBuildProgram(program, 1, &device, "", nullptr, nullptr);
  if (err != CL_SUCCESS) {
    return Status(Stage::ProgramBuild,
                  what + ": " + call_failed("clBuildProgram", err) + on +
                      ": the OpenCL C compiler does not build a four-line kernel, so no clport "
                      "kernel will build (update the GPU driver). Build log:\n" +
                      build_log(cl, program, device));
  }
  cl_kernel kernel = cl.clCreateKernel(program, kKernelName, &err);
  if (kernel == nullptr || err != CL_SUCCESS) {
    return Status(Stage::ProgramBuild, what + ": " + call_failed("clCreateKernel", err) + on);
  }
  cleanup.add([&cl, kernel] { cl.clReleaseKernel(kernel); });

  std::vector<float> x(kElements), y(kElements), expected(kElements);
  for (size_t i = 0; i < kElements; ++i) {
    x[i] = static_cast<float>(i % 61) * 0.25f - 7.0f;
    y[i] = static_cast<float>(i % 13) * 1.5f;
    expected[i] = kScale * x[i] + y[i];
  }
  const size_t bytes = kElements * sizeof(float);
  cl_mem buffers[2] = {nullptr, nullptr};
  float* host[2] = {y.data(), x.data()};
  for (int b = 0; b < 2; ++b) {
    buffers[b] = cl.clCreateBuffer(ctx.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                                   host[b], &err);
    if (buffers[b] == nullptr || err != CL_SUCCESS) {
      return Status(Stage::Device, what + ": " + call_failed("clCreateBuffer", err) + on);
    }
    cleanup.add([&cl, mem = buffers[b]] { cl.clReleaseMemObject(mem); });
  }
  const float scale = kScale;
  for (cl_uint arg = 0; arg < 3; ++arg) {
    err = arg < 2 ? cl.clSetKernelArg(kernel, arg, sizeof(cl_mem), &buffers[arg])
                  : cl.clSetKernelArg(kernel, arg, sizeof(float), &scale);
    if (err != CL_SUCCESS) {
      return Status(Stage::Device, what + ": " + call_failed("clSetKernelArg", err) + on);
    }
  }
  const size_t global = kElements;
  err = cl.clEnqueueNDRangeKernel(ctx.queue(), kernel, 1, nullptr, &global, nullptr, 0, nullptr,
                                  nullptr);
  if (err != CL_SUCCESS) {
    return Status(Stage::Device, what + ": " + call_failed("clEnqueueNDRangeKernel", err) + on);
  }
  std::vector<float> result(kElements);
  err = cl.clEnqueueReadBuffer(ctx.queue(), buffers[0], CL_TRUE, 0, bytes, result.data(), 0,
                               nullptr, nullptr);
  if (err != CL_SUCCESS) {
    return Status(Stage::Device, what + ": " + call_failed("clEnqueueReadBuffer", err) + on);
  }
  size_t wrong = 0, first = 0;
  for (size_t i = 0; i < kElements; ++i) {
    if (result[i] != expected[i]) {  // also true for NaN
      if (wrong++ == 0) first = i;
    }
  }
  if (wrong > 0) {
    return Status(Stage::WrongResult,
                  what + " (y = a * x + y) computed " + std::to_string(wrong) + " of " +
                      std::to_string(kElements) + " values wrong" + on + "; the first, element " +
                      std::to_string(first) + ", is " + number(result[first]) + " instead of " +
                      number(expected[first]) + ": the driver miscomputes (update it, or use "
                      "another device)");
  }
  return Status();
}

}  // namespace clport
