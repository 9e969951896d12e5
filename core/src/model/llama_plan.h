// Internal: one forward step of the LLaMA graph as a list of ops, built once per batch shape and
// replayed every step. Everything that depends on the step (the position n_past, the KV-cache
// slot a plain COPY writes) is patched in at replay; nothing is re-decided.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "clport/backend.h"

namespace clport {

struct PlanNode {
  clport_op_kind kind = CLPORT_OP_COPY;
  std::vector<TensorRef> src;
  TensorRef dst;
  cpu::OpParams params;
  int n_past_param = -1;            // params.i[] index that takes n_past at replay (-1: none)
  uint64_t dst_bytes_per_pos = 0;   // dst moves this many bytes per position (KV-cache slots)
  int hook_layer = -1;              // after this node the layer hook sees hook_tensor
  TensorRef hook_tensor;
};

struct ForwardPlan {
  std::vector<PlanNode> nodes;
  int fused_nodes = 0;  // nodes that are fused patterns
};

// A plugin-ABI op over TensorRefs (the tensors live inside, so it can be passed around).
struct OpDescription {
  clport_tensor tensors[5]{};
  clport_op op{};
  OpDescription(clport_op_kind kind, const std::vector<const TensorRef*>& src, const TensorRef& dst,
                const cpu::OpParams& params);
  OpDescription(const OpDescription&) = delete;
  OpDescription& operator=(const OpDescription&) = delete;
};

// A TensorRef that only describes a shape (no storage): for support queries before upload.
TensorRef shape_only(DType dtype, std::array<int64_t, 4> ne);

// Replays a plan at position n_past. `hook` (may be empty) sees each layer's hidden state.
Status run_plan(Backend& backend, const ForwardPlan& plan, uint32_t n_past, int n_tokens,
                const std::function<Status(int, const TensorRef&, int)>& hook);

}  // namespace clport
