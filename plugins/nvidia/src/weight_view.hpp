// A mat-mul weight as the NVIDIA GEMV and GEMM read it: a packed layout's quant and scale arrays
// (plugins/common, packed_weight.hpp), or a Q4_K weight's own buffer from its byte offset (GGUF
// super-blocks, rows back to back), which has no second copy.
#pragma once

#include <cstdint>

#include "clport_plugin/dtype_table.hpp"
#include "clport_plugin/plugin_sdk.hpp"
#include "clport_common/packed_weight.hpp"
#include "nv_dtypes.hpp"

namespace nvidia {

struct WeightView {
  int32_t dtype = 0;
  int64_t K = 0, N = 0;
  cl_mem q = nullptr, s = nullptr;
  uint64_t offset = 0;
  bool in_place = false;
  static WeightView packed(const clport::plugin_common::PackedWeight& w) { return {w.dtype, w.K, w.N, w.q, w.s, 0, false}; }
  static WeightView file_layout(const clport_tensor& t) {
    return {t.dtype, t.ne[0], t.ne[1], t.buffer, t.buffer, t.offset, true};
  }
  // The kernels' name suffix for this weight (NULL: none reads it).
  const char* suffix() const { return in_place ? in_place_suffix(dtype) : dtype_suffix(dtype); }
};

// Whether `weight` can be read in the file's layout: whole blocks, rows back to back, from an
// offset that is a multiple of `alignment` bytes (what the kernel's loads need).
inline bool file_rows_readable(const clport_tensor& weight, uint64_t alignment) {
  const clport::sdk::DTypeLayout* block = clport::sdk::dtype_layout(weight.dtype);
  if (block == nullptr || weight.ne[0] % block->block_size != 0) return false;
  return weight.offset % alignment == 0 && weight.nb[1] == weight.ne[0] / block->block_size * block->block_bytes;
}

}  // namespace nvidia
