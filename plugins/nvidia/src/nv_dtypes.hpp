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

// "q4_k" or "q6_k": the kernels that read those weights in the file's own layout; NULL otherwise.
inline const char* in_place_suffix(int32_t dtype) {
  switch (dtype) {
    case CLPORT_DTYPE_Q4_K: return "q4_k";
    case CLPORT_DTYPE_Q6_K: return "q6_k";
    default: return nullptr;
  }
}

}  // namespace nvidia
