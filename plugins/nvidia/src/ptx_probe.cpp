#include "ptx_probe.hpp"

#include <array>
#include <cstdint>

#include "nv_program.hpp"

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

AsyncProbe probe_async_copies(const clport_host& host, const PtxProbe& ptx) {
  AsyncProbe result;
  if (!ptx.usable || ptx.compute_major < 8) {
    result.why = ptx.usable ? "compute capability below 8.0" : "no inline PTX";
    return result;
  }
  clport::sdk::Host h(host);
  constexpr size_t kRows = 32, kWords = 4 * kRows;
  cl_mem in = nullptr, out = nullptr;
  try {
    clport::sdk::Program program(&h.cl(), h.build_program(behind_ptx_helpers("nv_async_probe.cl"),
                                                          ptx_options(true) + " -DNV_ASYNC=1"));
    clport::sdk::Kernel k(h.cl(), program, "nv_async_probe");
    std::array<cl_uint, kWords> words{};
    std::array<cl_uint, 2 * kWords> got{};
    for (size_t i = 0; i < kWords; ++i) words[i] = static_cast<cl_uint>(0x9E3779B9u * (i + 1));
    int32_t status = CLPORT_PLUGIN_OK;
    in = host.alloc_buffer(host.host_ctx, sizeof(words), &status);
    out = host.alloc_buffer(host.host_ctx, sizeof(got), &status);
    if (in == nullptr || out == nullptr) throw clport::sdk::Failure("no device memory for the probe");
    clport::sdk::check_cl(h.cl().clEnqueueWriteBuffer(host.queue, in, CL_TRUE, 0, sizeof(words), words.data(), 0,
                                                      nullptr, nullptr),
                          "clEnqueueWriteBuffer(async probe input)");
    clport::sdk::set_args(h.cl(), k, in, out);
    const size_t global[1] = {kRows}, local[1] = {kRows};
    clport::sdk::enqueue(host, k, 1, global, local);
    clport::sdk::check_cl(h.cl().clEnqueueReadBuffer(host.queue, out, CL_TRUE, 0, sizeof(got), got.data(), 0, nullptr,
                                                     nullptr),
                          "clEnqueueReadBuffer(async probe result)");
    // The 16-bit value c of input row r.
    const auto value = [&words](size_t r, size_t c) { return (words[4 * r + c / 2] >> (16 * (c % 2))) & 0xFFFFu; };
    result.usable = true;
    for (size_t l = 0; l < kRows && result.usable; ++l)
      for (size_t q = 0; q < 4 && result.usable; ++q) {
        const cl_uint plain = words[4 * (8 * q + l / 4) + l % 4];
        const size_t row = 8 * q + 2 * (l % 4);
        const cl_uint transposed = value(row, l / 4) | (value(row + 1, l / 4) << 16);
        if (got[4 * l + q] != plain || got[kWords + 4 * l + q] != transposed) {
          result.usable = false;
          result.why = "lane " + std::to_string(l) + ", matrix " + std::to_string(q) + ": got " +
                       std::to_string(got[4 * l + q]) + " / " + std::to_string(got[kWords + 4 * l + q]) +
                       " (plain / transposed), expected " + std::to_string(plain) + " / " + std::to_string(transposed);
        }
      }
  } catch (const std::exception& e) {
    result.why = e.what();
  }
  if (in != nullptr) host.free_buffer(host.host_ctx, in);
  if (out != nullptr) host.free_buffer(host.host_ctx, out);
  return result;
}

}  // namespace nvidia
