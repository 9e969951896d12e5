// The weight layouts OpRunner::prepare_weight makes; the plain GGUF buffer stays the tensor's
// buffer in both, and is what the paths that do not read the layout keep reading.
// - Split16, the packed layout of the shared GEMV (kernels/mul_mat_gemv_packed.cl has the exact
//   index formulas): a Q4_0 / Q4_1 / Q8_0 weight's quants and scales in two device arrays, so
//   that every block's quants are aligned 16-byte words (gemv_packed: 1, opt-in: see
//   tuning.hpp). Its GEMV reads it; the GEMM (prompt) path and get_rows read the plain buffer.
// - Rows8, the integer GEMV's layout on CPU devices (kernels/mul_mat_gemv_q8a_x8.cl): a Q4_0 /
//   Q4_1 / Q5_0 / Q5_1 / Q8_0 / Q4_K / Q6_K weight's blocks eight rows at a time, in one array
//   (q8a_x8). Every MUL_MAT-family op on 8-bit activations reads it; the float paths (no memory
//   for the activation blocks) and get_rows read the plain buffer.
#pragma once

#include <cstdint>

#include "clport_plugin/plugin_abi.h"

namespace clport::plugin_common {

enum class PackedFormat : int32_t { Split16, Rows8 };

struct PackedWeight {
  static constexpr uint32_t kMagic = 0x4B504C43;  // "CLPK"
  uint32_t magic = kMagic;
  PackedFormat format = PackedFormat::Split16;
  int32_t dtype = 0;
  int64_t K = 0, N = 0;
  cl_mem q = nullptr;  // quant words (Rows8: the whole layout)
  cl_mem s = nullptr;  // scales and Q4_1 mins (Split16 only)
};

// Weight dtypes the packed layout covers.
bool is_packable_dtype(int32_t dtype);

struct PackedSizes {
  uint64_t q_bytes = 0;
  uint64_t s_bytes = 0;
};
// Zero sizes for a dtype the layout does not cover. K must be a multiple of 32.
PackedSizes packed_sizes(int32_t dtype, int64_t K, int64_t N);

// Weight dtypes the Rows8 layout covers, the values of its unit (a block; a K-quant's
// super-block), and its size (0 for another dtype): the GGUF bytes of N rows rounded up to a
// multiple of 8 (Q4_K: 32 bytes more per 8 super-blocks, its scales unpacked).
bool is_rows8_dtype(int32_t dtype);
int64_t rows8_unit_values(int32_t dtype);
uint64_t rows8_bytes(int32_t dtype, int64_t K, int64_t N);

}  // namespace clport::plugin_common
