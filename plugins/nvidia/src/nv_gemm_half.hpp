// Launches the NVIDIA GEMM on f16 operands (plugins/nvidia/kernels/nv_gemm_half.cl) for a prompt's
// MUL_MAT and the fused RMS_NORM_MUL_MAT / MUL_MAT_ADD / RMS_NORM_MUL_MAT_SWIGLU, on weights in the
// packed layout of plugins/common or Q4_K weights read in place: one launch rounds the activation rows (through the RMSNorm for
// the norm kinds) to f16 in a scratch buffer, a second multiplies them by the weights, decoded to
// f16 as they are staged, on the tensor cores (with inline PTX) or in plain OpenCL C.
#pragma once

#include <cstdint>
#include <string>

#include "clport_plugin/plugin_sdk.hpp"
#include "clport_common/packed_weight.hpp"
#include "clport_common/scratch_buffer.hpp"
#include "nv_program.hpp"
#include "weight_view.hpp"

namespace nvidia {

class NvGemmHalf {
 public:
  // ptx: the driver takes inline PTX on a device with tensor cores (compute capability 8.0);
  // local_mem_bytes: the device's, which must hold the kernel's two stages of tiles.
  NvGemmHalf(const clport_host& host, bool ptx, uint64_t local_mem_bytes);
  NvGemmHalf(const NvGemmHalf&) = delete;
  NvGemmHalf& operator=(const NvGemmHalf&) = delete;

  // The activation rows from which a product takes this GEMM rather than the 8-bit one: below them
  // its 128-row tiles leave most of a large GPU idle.
  static constexpr int64_t kMinRows = 65;

  // Whether the device's local memory holds the kernel's tiles (40 KiB).
  bool fits() const;

  // Enqueues op (already checked against the plain-layout rules; a weight NvGemm reads);
  // up is the SwiGLU's second weight. Returns false, having enqueued nothing, when the device has
  // no memory for the f16 activations.
  // Plan time: the f16 rows of op's activations (K values of each of its rows).
  clport_scratch_need scratch_need(int64_t rows, int64_t K) { return rows_scratch_.plan(rows_bytes(rows, K)); }
  bool enqueue(const clport_op& op, const WeightView& w, const WeightView* up);

 private:
  static size_t rows_bytes(int64_t rows, int64_t K) { return static_cast<size_t>(rows) * static_cast<size_t>(K) * 2; }
  const clport_host& host_;
  clport::sdk::Host h_;
  bool ptx_;
  uint64_t local_mem_bytes_;
  NvProgram program_{h_, [this] { return std::make_pair(behind_ptx_helpers("nv_gemm_half.cl"), ptx_options(ptx_)); }};
  clport::plugin_common::ScratchBuffer rows_scratch_{host_, "f16 activations"};
};

}  // namespace nvidia
