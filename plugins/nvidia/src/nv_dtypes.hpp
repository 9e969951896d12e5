// The weight dtypes the NVIDIA GEMV and GEMM serve (the packed layout's), by kernel-name suffix.
#pragma once

#include <cstdint>

#include "clport_plugin/plugin_abi.h"

namespace nvidia {

// "q4_0", "q4_1" or "q8_0"; NULL for a dtype the kernels do not cover.
inline const char* dtype_suffix(int32_t dtype) {
  switch (dtype) {
    case CLPORT_DTYPE_Q4_0: return "q4_0";
    case CLPORT_DTYPE_Q4_1: return "q4_1";
    case CLPORT_DTYPE_Q8_0: return "q8_0";
    default: return nullptr;
  }
}

}  // namespace nvidia
