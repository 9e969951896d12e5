// Launches the NVIDIA GEMM on f16 operands (plugins/nvidia/kernels/nv_gemm_half.cl) for a prompt's
// MUL_MAT and the fused RMS_NORM_MUL_MAT / MUL_MAT_ADD / RMS_NORM_MUL_MAT_SWIGLU, on weights in the
// packed layout of plugins/common or Q4_K weights read in place: one launch rounds the activation rows (through the RMSNorm for
// the norm kinds) to f16 in a scratch buffer, a second multiplies them by the weights, decoded to
// f16 as they are staged, on the tensor cores (with inline PTX) or in plain OpenCL C.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clport_plugin/plugin_sdk.hpp"
#include "clport_common/packed_weight.hpp"
#include "clport_common/scratch_buffer.hpp"
#include "arrival_counts.hpp"
#include "nv_program.hpp"
#include "weight_view.hpp"

namespace nvidia {

// The f16 GEMM's settings (the members' values are their defaults).
struct HalfGemmConfig {
  int64_t min_rows = 65;     // nv_gemm_f16_rows: activation rows from which a product takes this GEMM
  uint32_t tile_rows = 0;    // nv_gemm_f16_tile: 32, 64 or 128 rows a work-group; 0 = by the shape
  uint32_t tile_cols = 128;  // nv_gemm_f16_cols: 64 or 128 weight rows a 128-row tile
  bool split = true;         // nv_gemm_f16_split: K cut into ranges where the tiles leave units idle
};

class NvGemmHalf {
 public:
  // ptx: the driver takes inline PTX on a device with tensor cores (compute capability 8.0);
  // local_mem_bytes: the device's, which must hold the kernel's two stages of tiles.
  NvGemmHalf(const clport_host& host, bool ptx, uint64_t local_mem_bytes, uint32_t compute_units,
             HalfGemmConfig config);
  NvGemmHalf(const NvGemmHalf&) = delete;
  NvGemmHalf& operator=(const NvGemmHalf&) = delete;

  // From nv_gemm_f16_rows on (65 by default: a prompt; a decode step of fewer sequences takes the
  // 8-bit GEMM).
  int64_t min_rows() const { return config_.min_rows; }

  // Whether the device's local memory holds the kernel's tiles (40 KiB).
  bool fits() const;

  // Plan time: the f16 rows of op's activations (K values of each of its rows) for up to `rows`
  // rows, and the partial sums and arrival counts of the products split along K.
  std::vector<clport_scratch_need> scratch_needs(int64_t rows, int64_t K, int64_t N, bool swiglu);
  // Enqueues op (already checked against the plain-layout rules; a weight NvGemm reads);
  // up is the SwiGLU's second weight. Returns false, having enqueued nothing, when the device has
  // no memory for the f16 activations or the split sums.
  bool enqueue(const clport_op& op, const WeightView& w, const WeightView* up);

 private:
  // How a product of M rows is cut: tiles of `rows` activation rows (the kernels' 32 I) by `cols`
  // staged weight rows (64 NW), groups along M and N, and K in `splits` ranges of per_split blocks.
  struct Shape {
    size_t rows = 128, cols = 128, groups_m = 1, groups_n = 1;
    int splits = 1;
    int64_t per_split = 0;
  };
  Shape shape(int64_t M, int64_t N, int64_t K, bool swiglu) const;
  static size_t rows_bytes(int64_t rows, int64_t K) { return static_cast<size_t>(rows) * static_cast<size_t>(K) * 2; }
  static size_t partials_bytes(const Shape& s, int64_t M, int64_t N, bool swiglu) {
    return static_cast<size_t>(s.splits) * (swiglu ? 2 : 1) * static_cast<size_t>(M) * static_cast<size_t>(N) * 4;
  }
  const clport_host& host_;
  clport::sdk::Host h_;
  bool ptx_;
  uint64_t local_mem_bytes_;
  uint32_t compute_units_;
  HalfGemmConfig config_;
  NvProgram program_{h_, [this] { return std::make_pair(behind_ptx_helpers("nv_gemm_half.cl"), ptx_options(ptx_)); }};
  clport::plugin_common::ScratchBuffer rows_scratch_{host_, "f16 activations"},
      part_scratch_{host_, "split f16 GEMM sums"};
  ArrivalCounts arrivals_{host_, "split f16 GEMM arrival counts"};
};

}  // namespace nvidia
