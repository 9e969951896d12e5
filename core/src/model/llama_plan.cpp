#include "model/llama_plan.h"

#include <algorithm>

namespace clport {

Status prepare_plan(Backend& backend, ForwardPlan& plan) {
  plan.prepared.clear();
  std::vector<const TensorRef*> src;
  for (const PlanNode& node : plan.nodes) {
    src.clear();
    for (const TensorRef& t : node.src) src.push_back(&t);
    auto prepared = backend.prepare(node.kind, src, node.dst, node.params, node.dst_position_stride);
    if (!prepared.ok()) {
      plan.prepared.clear();
      return prepared.status();
    }
    plan.prepared.push_back(std::move(prepared.value()));
  }
  return Status();
}

Status run_plan(const ForwardPlan& plan, uint32_t n_past, int n_tokens,
                const std::function<Status(int, const TensorRef&, int)>& hook) {
  if (plan.prepared.size() != plan.nodes.size()) return Status(Stage::Internal, "the plan was not prepared");
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    CLPORT_RETURN_IF_ERROR(plan.prepared[i]->run(n_past));
    const PlanNode& node = plan.nodes[i];
    if (hook && node.hook_layer >= 0) CLPORT_RETURN_IF_ERROR(hook(node.hook_layer, node.hook_tensor, n_tokens));
  }
  return Status();
}

}  // namespace clport
