// Launches the NVIDIA decode attention of a step over several sequences (ROPE_ATTENTION_CELLS,
// kernels/nv_attention_cells.cl, or kernels/nv_attention_cells_mma.cl on the tensor cores): one
// work-group per (range of keys, KV head, token) for every query head of the KV head's group, the
// ranges merged by the last of them to finish. The shared kernel it replaces gives every query
// head its own work-group and is latency-bound on a big GPU.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "clport_plugin/plugin_sdk.hpp"
#include "arrival_counts.hpp"
#include "clport_common/scratch_buffer.hpp"

namespace nvidia {

class NvAttentionCells {
 public:
  // ptx: inline PTX with the f16 helpers of nv_ptx.cl (compute capability 8.0) builds here.
  // groups_per_unit: work-groups per compute unit that a step's key ranges aim for.
  // mma: an F16 cache of head size 64 or 128 on the tensor cores (nv_attention_cells_mma.cl; without
  // ptx its emulated form, which is only for checking the kernel under a spoofed identity).
  NvAttentionCells(const clport_host& host, uint32_t compute_units, uint32_t groups_per_unit, bool ptx, bool mma);
  NvAttentionCells(const NvAttentionCells&) = delete;
  NvAttentionCells& operator=(const NvAttentionCells&) = delete;

  // Whether this kernel serves op, which the shared checks have accepted: ROPE_ATTENTION_CELLS on
  // one F16 or F32 cache whose rows are 16-byte aligned (and a 4-byte aligned cells table), a
  // head size that is a multiple of 8 up to 256, at most kMaxGroup query heads per KV head.
  static bool takes(const clport_op& op);
  void enqueue(const clport_op& op);
  // Plan time (an op takes() accepts): its partial results' buffer and arrival counts at 1 .. its
  // tokens.
  std::vector<clport_scratch_need> scratch_needs(const clport_op& op);

  static constexpr int64_t kMaxGroup = 8;
  static constexpr int64_t kMaxHeadDim = 256;

 private:
  // Key ranges per token: work-groups for a few per compute unit, each range at least a chunk of
  // the cache's cells.
  int splits(int64_t n_tokens, int64_t n_kv_head, int64_t n_ctx) const;
  cl_mem partials(size_t bytes);
  const clport::sdk::Kernel& kernel(int64_t head_dim, int64_t group, const std::string& name);

  const clport_host& host_;
  clport::sdk::Host h_;
  uint32_t compute_units_;
  uint32_t groups_per_unit_;
  bool ptx_;
  bool mma_;
  // Whether an F16 cache of this head size takes the tensor-core kernel (asked for, and head size
  // 64 or 128); its program then carries that kernel's source.
  bool takes_mma(int64_t head_dim) const { return mma_ && (head_dim == 64 || head_dim == 128); }
  std::mutex mutex_;
  std::map<std::pair<int64_t, int64_t>, clport::sdk::Program> programs_;  // per (head size, group)
  std::map<std::string, clport::sdk::Kernel> kernels_;
  clport::plugin_common::ScratchBuffer part_scratch_{host_, "decode attention partial results"};
  ArrivalCounts arrivals_{host_, "decode attention arrival counts"};  // one per (token, KV head)
};

}  // namespace nvidia
