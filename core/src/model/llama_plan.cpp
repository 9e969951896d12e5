#include "model/llama_plan.h"

#include <algorithm>

namespace clport {
namespace {

// The end of the group that starts at node i (i + 1 when it is not grouped). A hook inside a
// group ends it there, so that the hook sees the state after its own node.
size_t group_end(const ForwardPlan& plan, size_t i) {
  const int g = plan.nodes[i].group;
  size_t j = i + 1;
  if (g < 0) return j;
  while (j < plan.nodes.size() && plan.nodes[j].group == g && plan.nodes[j - 1].hook_layer < 0) ++j;
  return j;
}

Result<std::unique_ptr<PreparedOp>> prepare_group(Backend& backend, const ForwardPlan& plan, size_t first,
                                                  size_t end) {
  std::vector<GroupOp> ops;
  for (size_t i = first; i < end; ++i) {
    const PlanNode& node = plan.nodes[i];
    GroupOp g;
    g.kind = node.kind;
    g.src = node.sources();
    g.dst = &node.dst;
    g.params = node.params;
    g.dst_position_stride = node.dst_position_stride;
    ops.push_back(std::move(g));
  }
  return backend.prepare_group(ops);
}

}  // namespace

Status prepare_plan(Backend& backend, ForwardPlan& plan) {
  plan.launches.clear();
  plan.prepared = false;
  plan.grouped_runs = 0;
  for (size_t i = 0; i < plan.nodes.size();) {
    const size_t end = group_end(plan, i);
    if (plan.offer_groups && end - i > 1) {
      auto grouped = prepare_group(backend, plan, i, end);
      if (!grouped.ok()) {
        plan.launches.clear();
        return grouped.status();
      }
      if (grouped.value() != nullptr) {
        plan.launches.push_back({std::move(grouped.value()), i, end - i});
        ++plan.grouped_runs;
        i = end;
        continue;
      }
    }
    for (; i < end; ++i) {
      const PlanNode& node = plan.nodes[i];
      auto prepared = backend.prepare(node.kind, node.sources(), node.dst, node.params, node.dst_position_stride);
      if (!prepared.ok()) {
        plan.launches.clear();
        return prepared.status();
      }
      plan.launches.push_back({std::move(prepared.value()), i, 1});
    }
  }
  plan.prepared = true;
  return Status();
}

Status run_plan(const ForwardPlan& plan, const std::vector<uint32_t>& n_past, int n_tokens,
                const std::function<Status(int, const TensorRef&, int)>& hook) {
  if (!plan.prepared) return Status(Stage::Internal, "the plan was not prepared");
  if (n_past.empty()) return Status(Stage::Internal, "a step without entries");
  for (const PreparedRun& run : plan.launches) {
    // A grouped launch never spans entries (plan_builder.cpp), so its first node's is all of it.
    const int entry = plan.nodes[run.first].entry;
    if (entry >= static_cast<int>(n_past.size())) return Status(Stage::Internal, "a node of a step entry not given");
    CLPORT_RETURN_IF_ERROR(run.op->run(n_past[entry < 0 ? 0 : static_cast<size_t>(entry)]));
    if (!hook) continue;
    for (size_t i = run.first; i < run.first + run.count; ++i) {
      const PlanNode& node = plan.nodes[i];
      if (node.hook_layer >= 0) CLPORT_RETURN_IF_ERROR(hook(node.hook_layer, node.hook_tensor, n_tokens));
    }
  }
  return Status();
}

}  // namespace clport
