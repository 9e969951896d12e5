// Launches the NVIDIA GEMM on 8-bit activations (plugins/nvidia/kernels/nv_gemm.cl) for prompt-sized
// MUL_MAT and the fused RMS_NORM_MUL_MAT / MUL_MAT_ADD / RMS_NORM_MUL_MAT_SWIGLU, on weights in the
// packed layout of plugins/common, or Q4_K weights read in place from the file's layout: one launch
// quantizes the activation rows (through the RMSNorm for the norm kinds) into a scratch buffer, a
// second multiplies them on the tensor cores (with inline PTX) or in plain OpenCL C.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "clport_plugin/plugin_sdk.hpp"
#include "clport_common/packed_weight.hpp"
#include "clport_common/scratch_buffer.hpp"
#include "arrival_counts.hpp"
#include "nv_program.hpp"
#include "weight_view.hpp"

namespace nvidia {

// The GEMM's settings (nv_gemm_rows, nv_gemm_split_groups, nv_gemm_split_blocks).
struct GemmConfig {
  uint32_t rows = 0;  // activation rows a work-group computes, 64 or 128 (0: chosen per launch shape)
  // Work-groups per compute unit that a few rows' product (M <= 64) is split over K to reach;
  // 0: by the rows (nv_gemm.cpp, k_splits).
  uint32_t split_groups_per_cu = 0;
  // Blocks of 32 values along K whose loads a split kernel of up to 32 rows has in flight
  // (NV_GEMM_SPLIT_BLOCKS): 2 (one step ahead, as the prompt GEMM), 4 or 8 (2 or 4 steps ahead);
  // more rows stay one step ahead (nv_gemm.cl's nv_gemm_split_loop). H100, 16 sequences of the 8B
  // shape: 1729-1738 tok/s with 2, 1777-1781 with 4, 1681-1692 with 8 (fewer groups fit a unit).
  uint32_t split_blocks = 4;
  // The split products of 16 to 64 rows on nv_gemm_split_async.cl (operands staged by
  // asynchronous copies, split_stages steps in a ring) where K / 32 is even and the weights are in
  // the packed layout; the register-staged kernels otherwise. Taken where the driver's copies are
  // asynchronous (async_copies, probed) and in plain OpenCL C (no PTX: a spoofed identity checks
  // the kernel there); a GPU without cp.async keeps the register-staged kernels.
  bool split_async = true;
  uint32_t split_stages = 4;
  // Blocks of 32 values a step of that ring, of the plain and of the SwiGLU kernels (NV_GA_KB,
  // NV_GA_KB_SWIGLU): 2, 4 or 8. A step reads 16 bytes of each weight row's quants a block, so
  // longer steps read longer runs of a row; the ring holds fewer steps of them, and the SwiGLU's
  // stages, two weights' worth, are the largest. A product whose K / 32 is not a multiple of its
  // setting takes steps of 2 (a program of its own, built when first needed).
  // SwiGLU at 4: H100, 8B Q4_0 shape, 64 sequences, its launches 116 against 126 us at 2; the
  // plain kernels at 4 were slower (58 against 49 us; docs/nvidia.md).
  uint32_t async_blocks = 2;
  uint32_t async_swiglu_blocks = 4;
  bool async_copies = false;
  // Why the settings are invalid, or empty.
  std::string validate() const;
  // The GEMM program's build options: -cl-std, NV_PTX, NV_ASYNC, NV_GEMM_SPLIT_BLOCKS,
  // NV_GEMM_STAGES, NV_GA_KB and NV_GA_KB_SWIGLU.
  std::string build_options(bool ptx) const;
};

class NvGemm {
 public:
  // compute_units: the device's, which decide when a few rows' product splits K.
  NvGemm(const clport_host& host, bool ptx, GemmConfig config, uint32_t compute_units);
  NvGemm(const NvGemm&) = delete;
  NvGemm& operator=(const NvGemm&) = delete;

  // Weight dtypes it multiplies: those of the packed layout, and Q4_K in place.
  static bool covers(int32_t weight_dtype);
  // Whether a weight of this dtype is read in place (Q4_K) rather than from the packed layout.
  static bool reads_in_place(int32_t weight_dtype) { return weight_dtype == CLPORT_DTYPE_Q4_K; }
  // Whether it reads `weight` in place: Q4_K with whole super-blocks, rows back to back, from a
  // 16-byte aligned offset.
  static bool can_read_in_place(const clport_tensor& weight);
  // Enqueues op (already checked against the plain-layout rules, any M); up is the SwiGLU's second
  // weight. Returns false, having enqueued nothing, when the device has no memory for the quantized
  // activations: the caller then runs the op another way.
  bool enqueue(const clport_op& op, const WeightView& w, const WeightView* up);
  // Plan time: the scratch of a K x N product of `dtype` weights (two for SwiGLU) at first .. last
  // rows: quantized codes and scales, and where a few rows split K, the ranges' sums and arrival
  // counts.
  std::vector<clport_scratch_need> scratch_needs(int64_t first_rows, int64_t last_rows, int64_t K, int64_t N,
                                                 bool swiglu, int32_t dtype);

 private:
  // How a product of M rows by N weight rows over K runs: work-groups along N and M, the rows a
  // group takes, and its K ranges (1: not split) of per_split blocks each.
  struct Shape {
    uint32_t rows = 0;        // rows a group of the unsplit kernels takes
    uint32_t split_rows = 0;  // rows a group of the split kernels takes
    size_t groups_n = 0, groups_m = 0;  // the split kernels' groups along N and M
    int splits = 1;
    int64_t per_split = 0;
    bool async = false;  // the split kernels staged by asynchronous copies (split_async)
    int64_t ring_step = 0;  // blocks a step of their ring: the setting, or 2 where K / 32 needs it
  };
  // In-place weights (Q4_K) have no split kernels: their K is never split.
  Shape shape(int64_t M, int64_t N, int64_t K, bool swiglu, int32_t dtype) const;
  static size_t partials_bytes(const Shape& s, int64_t M, int64_t N, bool swiglu) {
    return static_cast<size_t>(s.splits) * (swiglu ? 2 : 1) * M * N * sizeof(float);
  }
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

  const clport_host& host_;
  clport::sdk::Host h_;
  bool ptx_;
  GemmConfig config_;
  uint32_t compute_units_;
  // Whether a split product of weights of `dtype` over K takes the asynchronous staging.
  bool split_async(int32_t dtype, int64_t K) const;
  // Blocks a step of that ring over K: the setting where it divides K / 32, else 2.
  int64_t ring_step(int64_t K, bool swiglu) const;

  NvProgram program_{h_,
                     [this] { return std::make_pair(behind_ptx_helpers("nv_gemm.cl"), config_.build_options(ptx_)); }};
  // The asynchronously staged split kernels, a program of their own behind nv_gemm.cl's helpers: a
  // driver compiles every kernel of a program it builds (PoCL takes about a minute for these), and
  // the plain GEMM and the quantizers need none of them.
  NvProgram async_program_{h_, [this] { return async_source(config_); }};
  // The same kernels on steps of 2 blocks, for the products whose K / 32 the settings do not divide.
  NvProgram async_short_program_{h_, [this] {
                                   GemmConfig short_steps = config_;
                                   short_steps.async_blocks = short_steps.async_swiglu_blocks = 2;
                                   return async_source(short_steps);
                                 }};
  std::pair<std::string, std::string> async_source(const GemmConfig& config) const {
    return std::make_pair(behind_ptx_helpers("nv_gemm.cl") + "\n" +
                              clport::sdk::plugin_kernel_source(clport_plugin_kernels, "nvidia", "nv_gemm_split_async.cl"),
                          config.build_options(ptx_) + " -DNV_GEMM_HELPERS_ONLY=1");
  }
  std::mutex mutex_;  // reserve()'s
  clport::plugin_common::ScratchBuffer codes_scratch_{host_, "GEMM activation codes"},
      scales_scratch_{host_, "GEMM activation scales"}, part_scratch_{host_, "split GEMM sums"};
  ArrivalCounts arrivals_{host_, "split GEMM arrival counts"};
  cl_mem codes_ = nullptr, scales_ = nullptr;  // the buffers of the last reserve()
};

}  // namespace nvidia
