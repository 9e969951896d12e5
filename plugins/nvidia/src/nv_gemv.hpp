// Launches the NVIDIA GEMV on 8-bit activations (plugins/nvidia/kernels/nv_gemv.cl) for
// MUL_MAT with a few activation rows and for the three fused mat-mul patterns, on weights in the
// packed layout of plugins/common, or Q4_K and Q6_K weights read in place (nv_gemv_q4_k.cl,
// nv_gemv_q6_k.cl). The caller has
// checked the op against the plain-layout rules (check_op) and how its weights are read.
#pragma once

#include <cstdint>
#include <string>

#include "clport_plugin/plugin_sdk.hpp"
#include "clport_common/packed_weight.hpp"
#include "nv_program.hpp"
#include "weight_view.hpp"

namespace nvidia {

struct GemvConfig {
  uint32_t wg = 512;           // work-items per group (NV_WG): a multiple of 32
  uint32_t rows_per_warp = 2;  // weight rows per warp of 32 work-items (NV_RPW)
  uint32_t blocks_per_trip = 2;  // blocks of 32 weights per lane and loop trip (NV_BPT)
  // Work-groups per compute unit: each quantizes the activation row once and then walks chunks
  // of rows until none is left, so the quantization is paid this many times per unit instead
  // of once per chunk. 0: one group per chunk.
  uint32_t groups_per_cu = 2;
  // The same for the groups of several activation rows (nv_gemv_rows.cl), each of which
  // quantizes all its rows first (H100, 4 sequences of the 8B shape: 836 tok/s with 2, 877 with 1).
  uint32_t rows_groups_per_cu = 1;
  // Blocks per lane and loop trip of the several-row GEMV (NV_RBPT); 0: blocks_per_trip. Each
  // load serves every activation row of the group, whose dot products then keep a lane busy
  // between loads (H100, 4 sequences of the 8B shape: 862-867 tok/s with 2, 905-923 with 1).
  uint32_t rows_blocks_per_trip = 1;
  bool ptx = false;            // dp4a through inline PTX (NV_PTX); plain OpenCL C otherwise
  std::string validate(uint32_t max_work_group_size) const;
  // The build options of nv_gemv.cl's row walk: -cl-std and the NV_WG / NV_RPW / NV_BPT / NV_RBPT /
  // NV_PTX defines (the GEMV program and the one-launch layer, which includes it, both start with these).
  std::string build_options() const;
};

// nv_ptx.cl + nv_gemv.cl with reduce.cl in front: the GEMV program's source, which the layer
// program extends.
std::string gemv_source(const clport::sdk::Host& h);
// And nv_gemv_rows.cl, nv_gemv_q4_k.cl and nv_gemv_q6_k.cl behind it: the GEMV program's (one
// row and several, the packed layout, Q4_K and Q6_K in place).
std::string gemv_rows_source(const clport::sdk::Host& h);

class NvGemv {
 public:
  NvGemv(const clport_host& host, GemvConfig config, uint64_t local_mem_bytes, uint32_t compute_units);
  // Packed-layout dtypes it multiplies (Q4_0, Q4_1, Q8_0).
  static bool covers(int32_t weight_dtype);
  // Whether it reads a weight of this dtype in place (Q4_K, Q6_K): its activations then take one
  // scale per 256 values, which needs work-groups of a multiple of 64.
  bool reads_in_place(int32_t weight_dtype) const;
  // Whether it reads `weight` in place: such a dtype, whole super-blocks, rows back to back, from
  // an offset aligned for its loads (16 bytes for Q4_K, 2 for Q6_K).
  bool can_read_in_place(const clport_tensor& weight) const;
  // Whether it has the SwiGLU form for weights of this dtype read in place (Q4_K).
  static bool has_swiglu_in_place(int32_t weight_dtype) { return weight_dtype == CLPORT_DTYPE_Q4_K; }
  // Whether the activation row of K values fits the group's local memory.
  bool fits(int64_t K) const;
  // Whether `rows` activation rows of K values fit it (nv_gemv_rows.cl's groups).
  bool fits_rows(int64_t K, uint32_t rows) const;
  // Activation rows a work-group takes for an M-row product: 1 (nv_gemv.cl) for M = 1, else 2,
  // 4 or 8 (nv_gemv_rows.cl), the fewest that cover M among those whose rows fit.
  uint32_t group_rows(int64_t K, int64_t M) const;
  // up is the second weight of RMS_NORM_MUL_MAT_SWIGLU (NULL for the other kinds). A weight read
  // in place takes one group per activation row (nv_gemv_q4_k.cl has no several-row form).
  void enqueue(const clport_op& op, const WeightView& w, const WeightView* up);
  const GemvConfig& config() const { return config_; }

 private:
  const clport_host& host_;
  clport::sdk::Host h_;
  GemvConfig config_;
  uint64_t local_mem_bytes_;
  uint32_t compute_units_;
  NvProgram program_{h_, [this] { return std::make_pair(gemv_rows_source(h_), config_.build_options()); }};
};

}  // namespace nvidia
