// Picks the graph builder of the model's architecture family.
#include "model/plan_builder.h"

namespace clport {

ForwardPlan LlamaModel::build_plan(uint32_t n, int64_t logit_rows, bool hooked) const {
  PlanBuilder b(*this, n);
  if (hp_.arch == "gemma3") return build_gemma3_graph(b, hp_, *w_, logit_rows, hooked);
  return build_llama_graph(b, hp_, *w_, logit_rows, hooked);
}

}  // namespace clport
