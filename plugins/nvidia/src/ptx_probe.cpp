#include "ptx_probe.hpp"

#include <cstdint>

extern const clport::EmbeddedKernel clport_plugin_kernels[];

namespace nvidia {

PtxProbe probe_inline_ptx(const clport_host& host) {
  clport::sdk::Host h(host);
  PtxProbe result;
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
