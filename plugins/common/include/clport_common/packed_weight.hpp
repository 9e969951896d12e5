// The packed weight layout of the shared GEMV (kernels/mul_mat_gemv_packed.cl has the exact
// index formulas): a Q4_0 / Q4_1 / Q8_0 weight's quants and scales in two device arrays, so that
// every block's quants are aligned 16-byte words. Made by OpRunner::prepare_weight when the plugin's
// tuning enables it (gemv_packed: 1, opt-in: see tuning.hpp); the plain GGUF buffer stays the tensor's buffer and
// is what the GEMM (prompt) path and get_rows keep reading.
#pragma once

#include <cstdint>

#include "clport_plugin/plugin_abi.h"

namespace clport::plugin_common {

struct PackedWeight {
  static constexpr uint32_t kMagic = 0x4B504C43;  // "CLPK"
  uint32_t magic = kMagic;
  int32_t dtype = 0;
  int64_t K = 0, N = 0;
  cl_mem q = nullptr;  // quant words
  cl_mem s = nullptr;  // scales (and Q4_1 mins)
};

// Weight dtypes the packed layout covers.
bool is_packable_dtype(int32_t dtype);

struct PackedSizes {
  uint64_t q_bytes = 0;
  uint64_t s_bytes = 0;
};
// Zero sizes for a dtype the layout does not cover. K must be a multiple of 32.
PackedSizes packed_sizes(int32_t dtype, int64_t K, int64_t N);

}  // namespace clport::plugin_common
