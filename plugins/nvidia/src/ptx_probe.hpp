// Whether this NVIDIA driver builds OpenCL C with inline PTX and computes the right value with it
// (kernels/nv_ptx_probe.cl). Asked once per plugin instance; the build goes through the host's
// program cache, so later starts load the probe's binary instead of compiling it.
#pragma once

#include <string>

#include "clport/plugin_sdk.hpp"

namespace nvidia {

struct PtxProbe {
  bool usable = false;
  std::string why;  // what failed when not usable
};

PtxProbe probe_inline_ptx(const clport_host& host);

}  // namespace nvidia
