// The llama family's forward step: embeddings, then per layer RMSNorm -> Q/K/V -> RoPE ->
// KV-cache store -> causal GQA attention -> output projection -> residual, RMSNorm -> SwiGLU FFN
// -> residual; then the final norm and the vocabulary projection.
#include "model/plan_builder.h"

namespace clport {

ForwardPlan build_llama_graph(PlanBuilder& b, const LlamaHParams& hp, const LlamaModel::Weights& w,
                              int64_t logit_rows, bool hooked) {
  b.embed();
  for (uint32_t il = 0; il < hp.n_layer; ++il) {
    const auto& L = w.layers[il];
    b.rope_store_attend(L, b.project_qkv(L), b.attention_params(il));
    b.mul_mat_residual(L.wo, b.attn);
    b.gated_ffn(L, hp.ffn_act);
    b.hook_after(b.mul_mat_residual(L.w_down, b.act), il);
  }
  b.output(logit_rows, hooked);
  return b.take();
}

}  // namespace clport
