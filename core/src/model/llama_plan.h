// Internal: one forward step of the LLaMA graph as a list of ops, built once per batch shape,
// prepared on the backend once (plugin, kernels and arguments decided) and replayed every step.
// What depends on the step (the position n_past, the KV-cache slot a plain COPY writes) is the
// replay's argument; nothing is re-decided.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/op_description.h"
#include "clport/backend.h"

namespace clport {

struct PlanNode {
  clport_op_kind kind = CLPORT_OP_COPY;
  std::vector<TensorRef> src;
  TensorRef dst;
  cpu::OpParams params;                // params.n_past is the step's at replay
  uint64_t dst_position_stride = 0;    // dst moves this many bytes per position (KV-cache slots)
  int hook_layer = -1;                 // after this node the layer hook sees hook_tensor
  TensorRef hook_tensor;
};

struct ForwardPlan {
  std::vector<PlanNode> nodes;
  int fused_nodes = 0;  // nodes that are fused patterns
  std::vector<std::unique_ptr<PreparedOp>> prepared;  // one per node, once prepare_plan ran
};

// Prepares every node of plan on backend (once, before its first replay).
Status prepare_plan(Backend& backend, ForwardPlan& plan);

// Replays a prepared plan at position n_past. `hook` (may be empty) sees each layer's hidden
// state.
Status run_plan(const ForwardPlan& plan, uint32_t n_past, int n_tokens,
                const std::function<Status(int, const TensorRef&, int)>& hook);

}  // namespace clport
