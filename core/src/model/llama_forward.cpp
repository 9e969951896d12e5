// The LLaMA forward pass, written once against Backend: embeddings, then per layer
// RMSNorm -> Q/K/V -> RoPE -> KV-cache store -> causal GQA attention -> output projection ->
// residual, RMSNorm -> SwiGLU FFN -> residual; then the final norm and the vocabulary projection.
#include <cmath>

#include "clport/llama_model.h"
#include "model/llama_weights.h"

namespace clport {
namespace {

// A [rows, n] prefix view of a scratch buffer allocated for n_batch columns.
TensorRef cols(const TensorRef& t, int64_t n) { return view(t, {t.ne[0], n, 1, 1}, 0); }

cpu::OpParams none() { return {}; }

}  // namespace

Status LlamaModel::forward(const std::vector<int32_t>& tokens, uint32_t n_past, bool all_logits,
                           std::vector<float>& logits) {
  if (tokens.empty()) return Status(Stage::InvalidArgument, "no tokens to evaluate");
  if (static_cast<uint64_t>(n_past) + tokens.size() > n_ctx_) {
    return Status(Stage::InvalidArgument,
                  "context full: " + std::to_string(n_past + tokens.size()) +
                      " tokens do not fit the KV cache of " + std::to_string(n_ctx_) +
                      " (raise --ctx)");
  }
  for (int32_t id : tokens) {
    if (id < 0 || static_cast<uint32_t>(id) >= hp_.n_vocab) {
      return Status(Stage::InvalidArgument, "token id " + std::to_string(id) + " out of range");
    }
  }
  logits.assign((all_logits ? tokens.size() : 1) * static_cast<size_t>(hp_.n_vocab), 0.0f);
  for (size_t start = 0; start < tokens.size(); start += n_batch_) {
    const uint32_t n = static_cast<uint32_t>(std::min<size_t>(n_batch_, tokens.size() - start));
    const bool last_batch = start + n == tokens.size();
    if (!all_logits && !last_batch) {
      CLPORT_RETURN_IF_ERROR(forward_batch(tokens.data() + start, n, n_past + start, false, nullptr));
      continue;
    }
    float* out = all_logits ? logits.data() + start * hp_.n_vocab : logits.data();
    CLPORT_RETURN_IF_ERROR(forward_batch(tokens.data() + start, n, n_past + start, all_logits, out));
  }
  return Status();
}

Status LlamaModel::forward_batch(const int32_t* tokens, uint32_t n, uint32_t n_past,
                                 bool all_logits, float* logits_out) {
  Backend& be = backend_;
  Weights& w = *w_;
  Scratch& s = *s_;
  const int64_t E = hp_.n_embd;
  const int64_t HD = hp_.head_dim;

  const TensorRef ids = view(s.ids, {n, 1, 1, 1}, 0);
  CLPORT_RETURN_IF_ERROR(be.upload(ids, tokens, n * sizeof(int32_t)));
  const TensorRef x = cols(s.x, n), xn = cols(s.xn, n);
  const TensorRef q = cols(s.q, n), k = cols(s.k, n), v = cols(s.v, n);
  const TensorRef attn = cols(s.attn, n), proj = cols(s.proj, n);
  const TensorRef gate = cols(s.gate, n), up = cols(s.up, n), act = cols(s.act, n);
  // Head-shaped views for RoPE and attention: [head_dim, heads, n].
  const TensorRef q_heads = view(s.q, {HD, hp_.n_head, n, 1}, 0);
  const TensorRef k_heads = view(s.k, {HD, hp_.n_head_kv, n, 1}, 0);
  const TensorRef q_rope = view(s.q_rope, {HD, hp_.n_head, n, 1}, 0);
  const TensorRef k_rope = view(s.k_rope, {HD, hp_.n_head_kv, n, 1}, 0);
  const TensorRef v_heads = view(s.v, {HD, hp_.n_head_kv, n, 1}, 0);
  const TensorRef attn_heads = view(s.attn, {HD, hp_.n_head, n, 1}, 0);

  TensorRef embd_rows = w.tok_embd;
  embd_rows.layout = nullptr;  // GET_ROWS reads the file layout, never a MUL_MAT repack
  CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_GET_ROWS, {&embd_rows, &ids}, x, none()));

  cpu::OpParams norm;
  norm.f[0] = hp_.rms_eps;
  cpu::OpParams rope;
  rope.i[0] = hp_.rope_mode;
  rope.i[1] = static_cast<int32_t>(n_past);
  rope.i[2] = static_cast<int32_t>(hp_.n_rot);
  rope.f[0] = hp_.rope_freq_base;
  rope.f[1] = hp_.rope_freq_scale;
  cpu::OpParams attention;
  attention.i[0] = static_cast<int32_t>(n_past);
  attention.f[0] = 1.0f / std::sqrt(static_cast<float>(HD));

  for (uint32_t il = 0; il < hp_.n_layer; ++il) {
    auto& L = w.layers[il];
    CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_RMS_NORM, {&x, &L.attn_norm}, xn, norm));
    CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_MUL_MAT, {&L.wq, &xn}, q, none()));
    CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_MUL_MAT, {&L.wk, &xn}, k, none()));
    CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_MUL_MAT, {&L.wv, &xn}, v, none()));
    CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_ROPE, {&q_heads}, q_rope, rope));
    CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_ROPE, {&k_heads}, k_rope, rope));

    // Store this batch's K and V at cache slots n_past .. n_past + n - 1 (contiguous, since the
    // cache is [head_dim, n_head_kv, n_ctx] with the position outermost).
    const uint64_t slot_bytes = static_cast<uint64_t>(L.k_cache.nb[2]) * n_past;
    const TensorRef k_slot = view(L.k_cache, {HD, hp_.n_head_kv, n, 1}, slot_bytes);
    const TensorRef v_slot = view(L.v_cache, {HD, hp_.n_head_kv, n, 1}, slot_bytes);
    CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_COPY, {&k_rope}, k_slot, none()));
    CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_COPY, {&v_heads}, v_slot, none()));

    CLPORT_RETURN_IF_ERROR(
        be.run(CLPORT_OP_ATTENTION, {&q_rope, &L.k_cache, &L.v_cache}, attn_heads, attention));
    CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_MUL_MAT, {&L.wo, &attn}, proj, none()));
    CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_ADD, {&x, &proj}, x, none()));

    CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_RMS_NORM, {&x, &L.ffn_norm}, xn, norm));
    CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_MUL_MAT, {&L.w_gate, &xn}, gate, none()));
    CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_MUL_MAT, {&L.w_up, &xn}, up, none()));
    CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_SWIGLU, {&gate, &up}, act, none()));
    CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_MUL_MAT, {&L.w_down, &act}, proj, none()));
    CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_ADD, {&x, &proj}, x, none()));
    if (layer_hook_) CLPORT_RETURN_IF_ERROR(layer_hook_(static_cast<int>(il), x, n));
  }

  CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_RMS_NORM, {&x, &w.output_norm}, xn, norm));
  if (layer_hook_) CLPORT_RETURN_IF_ERROR(layer_hook_(static_cast<int>(hp_.n_layer), xn, n));
  if (logits_out == nullptr) return be.sync();
  // Only the rows whose logits are wanted go through the (large) vocabulary projection.
  const int64_t rows = all_logits ? n : 1;
  const uint64_t first = static_cast<uint64_t>(n - rows) * E * sizeof(float);
  const TensorRef xn_out = view(s.xn, {E, rows, 1, 1}, first);
  const TensorRef logits = cols(s.logits, rows);
  CLPORT_RETURN_IF_ERROR(be.run(CLPORT_OP_MUL_MAT, {&w.output, &xn_out}, logits, none()));
  return be.download(logits, logits_out, static_cast<uint64_t>(rows) * hp_.n_vocab * sizeof(float));
}

}  // namespace clport
