// The gemma3 family's forward step: embeddings times sqrt(n_embd), then per layer RMSNorm ->
// Q/K/V -> RMSNorm per Q and K head -> RoPE (the layer's base) -> KV-cache store -> attention
// (a sliding window on local layers) -> output projection -> RMSNorm -> residual, RMSNorm ->
// GELU(tanh)-gated FFN -> RMSNorm -> residual; then the final norm and the (tied) vocabulary
// projection.
#include "model/plan_builder.h"

namespace clport {

ForwardPlan build_gemma3_graph(PlanBuilder& b, const LlamaHParams& hp, const LlamaModel::Weights& w,
                               int64_t logit_rows, bool hooked) {
  b.embed();
  for (uint32_t il = 0; il < hp.n_layer; ++il) {
    const auto& L = w.layers[il];
    b.begin_layer(il);
    PlanBuilder::Heads h = b.project_qkv(L);
    h.q = b.norm_heads(h.q, L.attn_q_norm, b.q_rope, b.q_tmp);
    h.k = b.norm_heads(h.k, L.attn_k_norm, b.k_rope, b.k_tmp);
    b.rope_store_attend(L, h, b.attention_params(il));
    b.mul_mat_norm_residual(L.wo, b.attn, L.post_attn_norm);
    b.gated_ffn(L, hp.ffn_act);
    b.hook_after(b.mul_mat_norm_residual(L.w_down, b.act, L.post_ffn_norm), il);
  }
  b.end_layers();
  b.output(logit_rows, hooked);
  return b.take();
}

}  // namespace clport
