// The LLaMA forward pass as a plan of ops, built once per batch shape: embeddings, then per layer
// RMSNorm -> Q/K/V -> RoPE -> KV-cache store -> causal GQA attention -> output projection ->
// residual, RMSNorm -> SwiGLU FFN -> residual; then the final norm and the vocabulary projection.
// Where the plugin that runs a mat-mul also claims the fused pattern around it (support queries
// at plan time), the plan takes the fused op; otherwise the plain ops, so every backend runs the
// same graph and the CPU reference sees only plain ops.
#include <cmath>

#include "model/llama_plan.h"
#include "model/llama_weights.h"

namespace clport {
namespace {

cpu::OpParams none() { return {}; }

// Head-shaped view [head_dim, heads, n] of a projection slice: row stride head_dim, token stride
// token_bytes, starting byte_offset into base.
TensorRef heads_view(const TensorRef& base, int64_t head_dim, int64_t heads, int64_t n,
                     uint64_t token_bytes, uint64_t byte_offset) {
  return view(base, DType::F32, {head_dim, heads, n, 1},
              {4, head_dim * 4, static_cast<int64_t>(token_bytes), static_cast<int64_t>(token_bytes) * n},
              byte_offset);
}

bool contiguous_rows(const TensorRef& t) { return t.nb[2] == t.nb[1] * t.ne[1]; }

}  // namespace

bool LlamaModel::claims(clport_op_kind fused, const std::vector<const TensorRef*>& src,
                        const TensorRef& dst, const cpu::OpParams& params, const TensorRef* weight,
                        const TensorRef* plain_input, const TensorRef* plain_dst) const {
  if (!plans_->fusion) return false;
  const OpDescription f(fused, src, dst, params);
  const std::string who = backend_.plugin_for(f.op);
  if (who == "cpu") return false;
  if (weight == nullptr) return true;
  // The plugin that would run the plain mat-mul must be the one claiming the pattern, so a
  // vendor plugin's tuned mat-mul is never traded for another plugin's fused kernel.
  const OpDescription plain(CLPORT_OP_MUL_MAT, {weight, plain_input}, *plain_dst, none());
  return backend_.plugin_for(plain.op) == who;
}

LlamaModel::Plans::Plans() = default;

ForwardPlan LlamaModel::build_plan(uint32_t n, int64_t logit_rows, bool hooked) const {
  const Weights& w = *w_;
  const Scratch& s = *s_;
  const int64_t E = hp_.n_embd, HD = hp_.head_dim, H = hp_.n_head, HKV = hp_.n_head_kv;
  const int64_t NQ = H * HD, NKV = HKV * HD, NQKV = NQ + 2 * NKV, B = n_batch_;
  ForwardPlan plan;
  auto add = [&](clport_op_kind kind, std::vector<TensorRef> src, const TensorRef& dst,
                 cpu::OpParams params = {}, int n_past_param = -1) -> PlanNode& {
    PlanNode node;
    node.kind = kind;
    node.src = std::move(src);
    node.dst = dst;
    node.params = params;
    node.n_past_param = n_past_param;
    if (kind >= CLPORT_OP_RMS_NORM_MUL_MAT) ++plan.fused_nodes;
    plan.nodes.push_back(std::move(node));
    return plan.nodes.back();
  };
  auto cols = [&](const TensorRef& t, int64_t rows) { return view(t, {rows, n, 1, 1}, 0); };

  const TensorRef ids = view(s.ids, {n, 1, 1, 1}, 0);
  const TensorRef x = cols(s.x, E), xn = cols(s.xn, E), attn = cols(s.attn, E), proj = cols(s.proj, E);
  const TensorRef gate = cols(s.gate, hp_.n_ff), up = cols(s.up, hp_.n_ff), act = cols(s.act, hp_.n_ff);
  const TensorRef q_rope = view(s.q_rope, {HD, H, n, 1}, 0);
  const TensorRef k_rope = view(s.k_rope, {HD, HKV, n, 1}, 0);
  const TensorRef attn_heads = view(s.attn, {HD, H, n, 1}, 0);

  TensorRef embd_rows = w.tok_embd;
  embd_rows.layout = nullptr;  // GET_ROWS reads the file layout, never a MUL_MAT repack
  add(CLPORT_OP_GET_ROWS, {embd_rows, ids}, x);

  cpu::OpParams norm;
  norm.f[0] = hp_.rms_eps;
  cpu::OpParams rope;
  rope.i[0] = hp_.rope_mode;
  rope.i[2] = static_cast<int32_t>(hp_.n_rot);
  rope.f[0] = hp_.rope_freq_base;
  rope.f[1] = hp_.rope_freq_scale;
  const float att_scale = 1.0f / std::sqrt(static_cast<float>(HD));
  cpu::OpParams rope_attention = rope;
  rope_attention.f[2] = att_scale;
  cpu::OpParams attention;
  attention.f[0] = att_scale;

  auto add_kv_store = [&](const Weights::Layer& L, const TensorRef& k_heads, const TensorRef& v_heads,
                          const TensorRef& k_rope, const cpu::OpParams& rope) {
    if (claims(CLPORT_OP_KV_STORE_ROPE, {&k_heads, &v_heads}, L.kv_cache, rope, nullptr, nullptr, nullptr)) {
      add(CLPORT_OP_KV_STORE_ROPE, {k_heads, v_heads}, L.kv_cache, rope, 1);
      return;
    }
    if (contiguous_rows(k_heads)) {
      add(CLPORT_OP_ROPE, {k_heads}, k_rope, rope, 1);
    } else {
      add(CLPORT_OP_COPY, {k_heads}, k_rope);
      add(CLPORT_OP_ROPE, {k_rope}, k_rope, rope, 1);
    }
    const TensorRef k_slot = view(L.kv_cache, L.kv_cache.dtype, {HD, HKV, n, 1}, L.k_cache.nb, 0);
    const TensorRef v_slot = view(L.kv_cache, L.kv_cache.dtype, {HD, HKV, n, 1}, L.v_cache.nb,
                                  static_cast<uint64_t>(L.kv_cache.nb[3]));
    add(CLPORT_OP_COPY, {k_rope}, k_slot).dst_bytes_per_pos = static_cast<uint64_t>(L.kv_cache.nb[2]);
    add(CLPORT_OP_COPY, {v_heads}, v_slot).dst_bytes_per_pos = static_cast<uint64_t>(L.kv_cache.nb[2]);
  };
  auto add_attention = [&](const Weights::Layer& L, const TensorRef& q_heads, const TensorRef& q_rope,
                           const TensorRef& out, const cpu::OpParams& rope_attention,
                           const cpu::OpParams& attention) {
    if (claims(CLPORT_OP_ROPE_ATTENTION, {&q_heads, &L.k_cache, &L.v_cache}, out, rope_attention, nullptr,
               nullptr, nullptr)) {
      add(CLPORT_OP_ROPE_ATTENTION, {q_heads, L.k_cache, L.v_cache}, out, rope_attention, 1);
      return;
    }
    if (contiguous_rows(q_heads)) {
      add(CLPORT_OP_ROPE, {q_heads}, q_rope, rope_attention, 1);
    } else {
      add(CLPORT_OP_COPY, {q_heads}, q_rope);
      add(CLPORT_OP_ROPE, {q_rope}, q_rope, rope_attention, 1);
    }
    add(CLPORT_OP_ATTENTION, {q_rope, L.k_cache, L.v_cache}, out, attention, 0);
  };

  for (uint32_t il = 0; il < hp_.n_layer; ++il) {
    const auto& L = w.layers[il];
    // Q, K, V and their head-shaped views.
    TensorRef q_heads, k_heads, v_heads;
    if (L.wqkv.valid()) {
      const TensorRef qkv = cols(s.qkv, NQKV);
      if (claims(CLPORT_OP_RMS_NORM_MUL_MAT, {&L.wqkv, &x, &L.attn_norm}, qkv, norm, &L.wqkv, &xn, &qkv)) {
        add(CLPORT_OP_RMS_NORM_MUL_MAT, {L.wqkv, x, L.attn_norm}, qkv, norm);
      } else {
        add(CLPORT_OP_RMS_NORM, {x, L.attn_norm}, xn, norm);
        add(CLPORT_OP_MUL_MAT, {L.wqkv, xn}, qkv);
      }
      const uint64_t token = static_cast<uint64_t>(NQKV) * 4;
      q_heads = heads_view(s.qkv, HD, H, n, token, 0);
      k_heads = heads_view(s.qkv, HD, HKV, n, token, NQ * 4);
      v_heads = heads_view(s.qkv, HD, HKV, n, token, (NQ + NKV) * 4);
    } else {
      const uint64_t k_at = static_cast<uint64_t>(NQ * B) * 4, v_at = k_at + static_cast<uint64_t>(NKV * B) * 4;
      const TensorRef q = view(s.qkv, {NQ, n, 1, 1}, 0), k = view(s.qkv, {NKV, n, 1, 1}, k_at),
                      v = view(s.qkv, {NKV, n, 1, 1}, v_at);
      const bool fused = claims(CLPORT_OP_RMS_NORM_MUL_MAT, {&L.wq, &x, &L.attn_norm}, q, norm, &L.wq, &xn, &q) &&
                         claims(CLPORT_OP_RMS_NORM_MUL_MAT, {&L.wk, &x, &L.attn_norm}, k, norm, &L.wk, &xn, &k) &&
                         claims(CLPORT_OP_RMS_NORM_MUL_MAT, {&L.wv, &x, &L.attn_norm}, v, norm, &L.wv, &xn, &v);
      if (fused) {
        add(CLPORT_OP_RMS_NORM_MUL_MAT, {L.wq, x, L.attn_norm}, q, norm);
        add(CLPORT_OP_RMS_NORM_MUL_MAT, {L.wk, x, L.attn_norm}, k, norm);
        add(CLPORT_OP_RMS_NORM_MUL_MAT, {L.wv, x, L.attn_norm}, v, norm);
      } else {
        add(CLPORT_OP_RMS_NORM, {x, L.attn_norm}, xn, norm);
        add(CLPORT_OP_MUL_MAT, {L.wq, xn}, q);
        add(CLPORT_OP_MUL_MAT, {L.wk, xn}, k);
        add(CLPORT_OP_MUL_MAT, {L.wv, xn}, v);
      }
      q_heads = view(s.qkv, {HD, H, n, 1}, 0);
      k_heads = view(s.qkv, {HD, HKV, n, 1}, k_at);
      v_heads = view(s.qkv, {HD, HKV, n, 1}, v_at);
    }

    // RoPE, the KV-cache store and attention: one op where claimed (a decode step), else RoPE
    // on K with the store at positions n_past .., then attention with Q's RoPE in front.
    if (claims(CLPORT_OP_ROPE_KV_STORE_ATTENTION, {&q_heads, &k_heads, &v_heads, &L.kv_cache}, attn_heads,
               rope_attention, nullptr, nullptr, nullptr)) {
      add(CLPORT_OP_ROPE_KV_STORE_ATTENTION, {q_heads, k_heads, v_heads, L.kv_cache}, attn_heads, rope_attention, 1);
    } else {
      add_kv_store(L, k_heads, v_heads, k_rope, rope);
      add_attention(L, q_heads, q_rope, attn_heads, rope_attention, attention);
    }

    // Output projection and residual.
    if (claims(CLPORT_OP_MUL_MAT_ADD, {&L.wo, &attn, &x}, x, none(), &L.wo, &attn, &proj)) {
      add(CLPORT_OP_MUL_MAT_ADD, {L.wo, attn, x}, x);
    } else {
      add(CLPORT_OP_MUL_MAT, {L.wo, attn}, proj);
      add(CLPORT_OP_ADD, {x, proj}, x);
    }

    // FFN: norm, gate and up with SwiGLU, down projection and residual.
    if (claims(CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU, {&L.w_gate, &x, &L.ffn_norm, &L.w_up}, act, norm, &L.w_gate,
               &xn, &gate)) {
      add(CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU, {L.w_gate, x, L.ffn_norm, L.w_up}, act, norm);
    } else {
      add(CLPORT_OP_RMS_NORM, {x, L.ffn_norm}, xn, norm);
      add(CLPORT_OP_MUL_MAT, {L.w_gate, xn}, gate);
      add(CLPORT_OP_MUL_MAT, {L.w_up, xn}, up);
      add(CLPORT_OP_SWIGLU, {gate, up}, act);
    }
    PlanNode* last = nullptr;
    if (claims(CLPORT_OP_MUL_MAT_ADD, {&L.w_down, &act, &x}, x, none(), &L.w_down, &act, &proj)) {
      last = &add(CLPORT_OP_MUL_MAT_ADD, {L.w_down, act, x}, x);
    } else {
      add(CLPORT_OP_MUL_MAT, {L.w_down, act}, proj);
      last = &add(CLPORT_OP_ADD, {x, proj}, x);
    }
    last->hook_layer = static_cast<int>(il);
    last->hook_tensor = x;
  }

  // Final norm and the vocabulary projection of the rows whose logits are wanted.
  const uint64_t first = static_cast<uint64_t>(n - logit_rows) * E * sizeof(float);
  const TensorRef x_out = view(s.x, {E, logit_rows, 1, 1}, first);
  const TensorRef xn_out = view(s.xn, {E, logit_rows, 1, 1}, first);
  const TensorRef logits = view(s.logits, {static_cast<int64_t>(hp_.n_vocab), logit_rows, 1, 1}, 0);
  if (logit_rows > 0 && !hooked &&
      claims(CLPORT_OP_RMS_NORM_MUL_MAT, {&w.output, &x_out, &w.output_norm}, logits, norm, &w.output, &xn_out,
             &logits)) {
    add(CLPORT_OP_RMS_NORM_MUL_MAT, {w.output, x_out, w.output_norm}, logits, norm);
    return plan;
  }
  if (logit_rows == 0 && !hooked) return plan;
  PlanNode& final_norm = add(CLPORT_OP_RMS_NORM, {x, w.output_norm}, xn, norm);
  final_norm.hook_layer = static_cast<int>(hp_.n_layer);
  final_norm.hook_tensor = xn;
  if (logit_rows > 0) add(CLPORT_OP_MUL_MAT, {w.output, xn_out}, logits);
  return plan;
}

}  // namespace clport
