// Whether this NVIDIA driver builds OpenCL C with inline PTX and computes the right value with it
// (kernels/nv_ptx_probe.cl). Asked once per plugin instance; the build goes through the host's
// program cache, so later starts load the probe's binary instead of compiling it.
#pragma once

#include <string>

#include "clport_plugin/plugin_sdk.hpp"

namespace nvidia {

struct PtxProbe {
  bool usable = false;
  std::string why;  // what failed when not usable
  int compute_major = 0, compute_minor = 0;  // from cl_nv_device_attribute_query (0: unknown)
};

struct AsyncProbe {
  bool usable = false;
  std::string why;  // what failed when not usable
};

// Asks the driver for the device's compute capability first (cl_nv_device_attribute_query):
// only NVIDIA's driver answers, and only then is the probe kernel compiled, so that no other
// compiler is handed PTX (oclgrind's crashed on it behind a spoofed identity). dp4a needs 6.1.
PtxProbe probe_inline_ptx(const clport_host& host, cl_device_id device);

// Whether asynchronous copies into local memory and matrix loads from it (cp.async, ldmatrix:
// compute capability 8.0) build and move the right words here (kernels/nv_async_probe.cl), on a
// device whose inline PTX probe passed. Their kernels are built with NV_ASYNC=1 only then.
AsyncProbe probe_async_copies(const clport_host& host, const PtxProbe& ptx);

}  // namespace nvidia
