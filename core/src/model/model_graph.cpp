// Builds a step with the graph builder of the model's architecture family.
#include "model/plan_builder.h"

namespace clport {

ForwardPlan LlamaModel::build_plan(const StepShape& shape, int64_t logit_rows, bool hooked) const {
  PlanBuilder b(*this, shape);
  ForwardPlan plan = hp_.family->build_graph(b, hp_, *w_, logit_rows, hooked);
  // A layer run as one launch is fusion too: --no-fusion runs every op on its own.
  plan.offer_groups = plans_->fusion;
  return plan;
}

}  // namespace clport
