// Internal: one forward step of the LLaMA graph as a list of ops, built once per step shape,
// prepared on the backend once (plugin, kernels and arguments decided) and replayed every step.
// What depends on the step (each entry's position n_past, the KV-cache slot a plain COPY writes)
// is the replay's argument; nothing is re-decided.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/op_description.h"
#include "backend/backend.h"

namespace clport {

struct PlanNode {
  clport_op_kind kind = CLPORT_OP_COPY;
  std::vector<TensorRef> src;
  TensorRef dst;
  cpu::OpParams params;                // params.n_past is the step's at replay
  uint64_t dst_position_stride = 0;    // dst moves this many bytes per position (KV-cache slots)
  // The step entry (a sequence's tokens) whose n_past this node runs at; -1 for the nodes over
  // every row, which have no position (they run at entry 0's).
  int entry = -1;
  int hook_layer = -1;                 // after this node the layer hook sees hook_tensor
  TensorRef hook_tensor;
  // Nodes with the same group (>= 0, consecutive: one transformer layer) are offered to the
  // backend as one sequence (Backend::prepare_group); -1 = never grouped.
  int group = -1;

  // src as the pointers Backend::prepare and OpDescription take.
  std::vector<const TensorRef*> sources() const {
    std::vector<const TensorRef*> out;
    for (const TensorRef& t : src) out.push_back(&t);
    return out;
  }
};

// A prepared launch and the nodes [first, first + count) it runs.
struct PreparedRun {
  std::unique_ptr<PreparedOp> op;
  size_t first = 0, count = 1;
};

struct ForwardPlan {
  std::vector<PlanNode> nodes;
  TensorRef logits;  // [n_vocab, logit rows] the host reads back after the step; unset without logit rows
  int fused_nodes = 0;  // nodes that are fused patterns
  bool uses_cells = false;  // reads the step's (sequence, position) per token (Scratch::cells)
  bool offer_groups = false;        // prepare_plan offers each group of nodes as one sequence
  bool prepared = false;            // prepare_plan ran
  std::vector<PreparedRun> launches;  // in node order, covering every node once prepared
  int grouped_runs = 0;             // launches that run a whole group
};

// Prepares every node of plan on backend (once, before its first replay): a group of nodes the
// backend runs as one launch (when plan.offer_groups), the others one by one.
Status prepare_plan(Backend& backend, ForwardPlan& plan);

// Replays a prepared plan, each node at the n_past of its entry (n_past[entry]). `hook` (may be
// empty) sees each layer's hidden state.
Status run_plan(const ForwardPlan& plan, const std::vector<uint32_t>& n_past, int n_tokens,
                const std::function<Status(int, const TensorRef&, int)>& hook);

}  // namespace clport
