// What this vendor plugin serves (kept per plugin: each vendor's subset differs).
#pragma once

#include <cstdint>
#include <string>

#include "clport_plugin/plugin_abi.h"
#include "clport_common/device_strings.hpp"

namespace vendor {

// Driver-string helpers are shared by every vendor plugin.
using clport::plugin_common::has_extension;
using clport::plugin_common::opencl_c_level;

// MUL_MAT with an F16 / Q4_0 / Q8_0 weight and F32 activations, and RMS_NORM: the hot ops of
// decoding. Everything else goes to the generic plugin.
inline bool in_served_subset(const clport_op& op) {
  if (op.kind == CLPORT_OP_RMS_NORM) return true;
  if (op.kind != CLPORT_OP_MUL_MAT || op.n_src < 2 || op.src[0] == nullptr) return false;
  const int32_t w = op.src[0]->dtype;
  return w == CLPORT_DTYPE_F16 || w == CLPORT_DTYPE_Q4_0 || w == CLPORT_DTYPE_Q8_0;
}

}  // namespace vendor
