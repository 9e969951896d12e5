#include "ptx_probe.hpp"

#include <cstdint>

extern const clport::EmbeddedKernel clport_plugin_kernels[];

namespace nvidia {

namespace {

// cl_nv_device_attribute_query's parameter names (from the extension's specification).
constexpr cl_device_info kComputeCapabilityMajorNv = 0x4000;
constexpr cl_device_info kComputeCapabilityMinorNv = 0x4001;

}  // namespace

PtxProbe probe_inline_ptx(const clport_host& host, cl_device_id device) {
  clport::sdk::Host h(host);
  PtxProbe result;
  cl_uint major = 0, minor = 0;
  if (h.cl().clGetDeviceInfo(device, kComputeCapabilityMajorNv, sizeof(major), &major, nullptr) != CL_SUCCESS ||
      h.cl().clGetDeviceInfo(device, kComputeCapabilityMinorNv, sizeof(minor), &minor, nullptr) != CL_SUCCESS) {
    result.why = "the driver does not answer cl_nv_device_attribute_query (not NVIDIA's OpenCL driver)";
    return result;
  }
  result.compute_major = static_cast<int>(major);
  result.compute_minor = static_cast<int>(minor);
  if (major * 10 + minor < 61) {
    result.why = "compute capability " + std::to_string(major) + "." + std::to_string(minor) + " has no dp4a (6.1 or newer)";
    return result;
  }
  cl_mem out = nullptr;
  try {
    const std::string source = clport::sdk::plugin_kernel_source(clport_plugin_kernels, "nvidia", "nv_ptx_probe.cl");
    clport::sdk::Program program(&h.cl(), h.build_program(source, "-cl-std=CL1.2"));
    clport::sdk::Kernel k(h.cl(), program, "nv_ptx_probe");
    int32_t status = CLPORT_PLUGIN_OK;
    out = host.alloc_buffer(host.host_ctx, sizeof(cl_int), &status);
    if (out == nullptr) throw clport::sdk::Failure("no device memory for the probe's result");
    // Bytes (1, 2, 3, 4) . (1, -1, 2, -2) + 5.
    const cl_uint a = 0x04030201u;
    const cl_int b = static_cast<cl_int>(0xFE02FF01u), c = 5, expected = 2;
    clport::sdk::set_args(h.cl(), k, out, a, b, c);
    const size_t global[1] = {1};
    clport::sdk::enqueue(host, k, 1, global, nullptr);
    cl_int got = 0;
    clport::sdk::check_cl(h.cl().clEnqueueReadBuffer(host.queue, out, CL_TRUE, 0, sizeof(got), &got, 0, nullptr, nullptr),
                          "clEnqueueReadBuffer(probe result)");
    if (got != expected) {
      result.why = "the probe computed " + std::to_string(got) + " instead of " + std::to_string(expected);
    } else {
      result.usable = true;
    }
  } catch (const std::exception& e) {
    result.why = e.what();
  }
  if (out != nullptr) host.free_buffer(host.host_ctx, out);
  return result;
}

}  // namespace nvidia
