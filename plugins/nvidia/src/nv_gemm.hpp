// Launches the NVIDIA GEMM on 8-bit activations (plugins/nvidia/kernels/nv_gemm.cl) for prompt-sized
// MUL_MAT and the fused RMS_NORM_MUL_MAT / MUL_MAT_ADD / RMS_NORM_MUL_MAT_SWIGLU, on weights in the
// packed layout of plugins/common: one launch quantizes the activation rows (through the RMSNorm
// for the norm kinds) into a scratch buffer, a second multiplies them on the tensor cores (with
// inline PTX) or in plain OpenCL C.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "clport_plugin/plugin_sdk.hpp"
#include "clport_common/packed_weight.hpp"
#include "clport_common/scratch_buffer.hpp"
#include "nv_program.hpp"

namespace nvidia {

// The GEMM's settings (nv_gemm_rows, nv_gemm_split_groups).
struct GemmConfig {
  uint32_t rows = 0;  // activation rows a work-group computes, 64 or 128 (0: chosen per launch shape)
  // Work-groups per compute unit that a few rows' product (M <= 64) is split over K to reach;
  // 0: by the rows (nv_gemm.cpp, k_splits).
  uint32_t split_groups_per_cu = 0;
};

class NvGemm {
 public:
  // compute_units: the device's, which decide when a few rows' product splits K.
  NvGemm(const clport_host& host, bool ptx, GemmConfig config, uint32_t compute_units);
  NvGemm(const NvGemm&) = delete;
  NvGemm& operator=(const NvGemm&) = delete;

  static bool covers(int32_t weight_dtype);
  // Enqueues op (already checked against the plain-layout rules, any M); up is the SwiGLU's second
  // weight. Returns false, having enqueued nothing, when the device has no memory for the quantized
  // activations: the caller then runs the op another way.
  bool enqueue(const clport_op& op, const clport::plugin_common::PackedWeight& w,
               const clport::plugin_common::PackedWeight* up);

 private:
  uint32_t rows_per_group(int64_t M) const;
  // The scratch for M quantized rows of K values (codes, then block scales), grown as needed;
  // false when the device has no memory for it.
  bool reserve(int64_t M, int64_t K);
  // K ranges for a product of `groups` work-groups over nb blocks (1: not split): enough groups for
  // two per compute unit, each range at least kMinSplitBlocks blocks, only for a few rows (M <=
  // 64: a prompt's product fills the GPU already).
  int k_splits(int64_t M, size_t groups, int64_t nb) const;
  // The split kernels' partial sums, grown as needed; nullptr when the device has no memory.
  cl_mem partials(size_t bytes);
  // Their arrival counts, one per tile of the output, zero between launches; nullptr when the
  // device has no memory.
  cl_mem arrivals(size_t tiles);

  const clport_host& host_;
  clport::sdk::Host h_;
  bool ptx_;
  GemmConfig config_;
  uint32_t compute_units_;
  NvProgram program_{h_, [this] { return std::make_pair(behind_ptx_helpers("nv_gemm.cl"), ptx_options(ptx_)); }};
  std::mutex mutex_;  // reserve()'s
  clport::plugin_common::ScratchBuffer codes_scratch_{host_}, scales_scratch_{host_}, part_scratch_{host_},
      arrivals_scratch_{host_};
  size_t arrivals_zeroed_ = 0;  // bytes of the newest arrivals buffer set to zero
  cl_mem codes_ = nullptr, scales_ = nullptr;  // the buffers of the last reserve()
};

}  // namespace nvidia
