// The forward step of the llama family and of those built like it (model/arch/ names this
// builder in their entries): embeddings, then per layer RMSNorm -> Q/K/V (+ biases where the
// family's files have them) -> RMSNorm per Q and K head (where they have the norm weights) ->
// RoPE (with frequency factors where the file has them; none on the layers the family runs
// without) -> KV-cache store -> causal GQA attention -> output projection -> residual, RMSNorm ->
// gated FFN (the family's activation) -> residual; then the final norm and the vocabulary
// projection.
#include "model/plan_builder.h"

namespace clport {

ForwardPlan build_llama_graph(PlanBuilder& b, const LlamaHParams& hp, const LlamaModel::Weights& w,
                              int64_t logit_rows, bool hooked) {
  b.embed();
  for (uint32_t il = 0; il < hp.n_layer; ++il) {
    const auto& L = w.layers[il];
    b.begin_layer(il);
    PlanBuilder::Heads h = b.project_qkv(L);
    if (L.attn_q_norm.valid()) {
      h.q = b.norm_heads(h.q, L.attn_q_norm, b.q_rope, b.q_tmp);
      h.k = b.norm_heads(h.k, L.attn_k_norm, b.k_rope, b.k_tmp);
    }
    b.rope_store_attend(L, h, b.attention_params(il));
    b.mul_mat_residual(L.wo, b.attn);
    b.gated_ffn(L, hp.family->ffn_act);
    b.hook_after(b.mul_mat_residual(L.w_down, b.act), il);
  }
  b.end_layers();
  b.output(logit_rows, hooked);
  return b.take();
}

}  // namespace clport
