// The shared blocks of the graph builders (see plan_builder.h). Where a plugin claims a fused
// pattern the block takes it, otherwise the plain ops: every backend runs the same graph and
// the CPU reference sees only plain ops.
#include "model/plan_builder.h"

#include <cmath>

namespace clport {
namespace {

// Head-shaped view [head_dim, heads, n] of a projection slice: row stride head_dim, token stride
// token_bytes, starting byte_offset into base.
TensorRef heads_view(const TensorRef& base, int64_t head_dim, int64_t heads, int64_t n,
                     uint64_t token_bytes, uint64_t byte_offset) {
  return view(base, DType::F32, {head_dim, heads, n, 1},
              {4, head_dim * 4, static_cast<int64_t>(token_bytes), static_cast<int64_t>(token_bytes) * n},
              byte_offset);
}

bool contiguous_rows(const TensorRef& t) { return t.nb[2] == t.nb[1] * t.ne[1]; }

// The claims() form of an op's sources.
std::vector<const TensorRef*> pointers_to(const std::vector<TensorRef>& src) {
  std::vector<const TensorRef*> out;
  for (const TensorRef& t : src) out.push_back(&t);
  return out;
}

}  // namespace

bool LlamaModel::claims(clport_op_kind fused, const std::vector<const TensorRef*>& src,
                        const TensorRef& dst, const cpu::OpParams& params, const TensorRef* weight,
                        const TensorRef* plain_input, const TensorRef* plain_dst) const {
  if (!plans_->fusion) return false;
  const OpDescription f(fused, src, dst, params);
  const std::string who = backend_.plugin_for(f.op);
  // No plugin: the fast CPU backend's own kernels of patterns without a weight.
  if (who == "cpu") return weight == nullptr && backend_.runs_own_kernel(f.op);
  if (weight == nullptr) return true;
  // The plugin that would run the plain mat-mul must be the one claiming the pattern, so a
  // vendor plugin's tuned mat-mul is never traded for another plugin's fused kernel.
  const OpDescription plain(CLPORT_OP_MUL_MAT, {weight, plain_input}, *plain_dst, {});
  return backend_.plugin_for(plain.op) == who;
}

LlamaModel::Plans::Plans() = default;

PlanBuilder::PlanBuilder(const LlamaModel& model, const LlamaModel::StepShape& shape)
    : model_(model), hp_(model.hp_), w_(*model.w_), s_(*model.s_), n_(shape.tokens()) {
  int64_t row = 0;
  for (const auto& [seq, tokens] : shape.entries) {
    entries_.push_back({seq, row, tokens});
    row += tokens;
  }
  const int64_t E = hp_.n_embd, NQ = hp_.q_rows(), HD = hp_.head_dim;
  x = cols(s_.x, E);
  xn = cols(s_.xn, E);
  attn = cols(s_.attn, NQ);
  proj = cols(s_.proj, E);
  gate = cols(s_.gate, hp_.n_ff);
  up = cols(s_.up, hp_.n_ff);
  act = cols(s_.act, hp_.n_ff);
  q_rope = view(s_.q_rope, {HD, hp_.n_head, n_, 1}, 0);
  k_rope = view(s_.k_rope, {HD, hp_.n_head_kv, n_, 1}, 0);
  attn_heads = view(s_.attn, {HD, hp_.n_head, n_, 1}, 0);
  if (s_.q_tmp.valid()) q_tmp = view(s_.q_tmp, {HD, hp_.n_head, n_, 1}, 0);
  if (s_.k_tmp.valid()) k_tmp = view(s_.k_tmp, {HD, hp_.n_head_kv, n_, 1}, 0);
  norm_.eps = hp_.rms_eps;
}

PlanNode& PlanBuilder::add(clport_op_kind kind, std::vector<TensorRef> src, const TensorRef& dst,
                           cpu::OpParams params) {
  PlanNode node;
  node.kind = kind;
  node.src = std::move(src);
  node.dst = dst;
  node.params = params;
  node.entry = entry_;
  node.group = entry_ >= 0 && entries_.size() > 1 ? -1 : group_;
  if ((kind >= CLPORT_OP_RMS_NORM_MUL_MAT && kind <= CLPORT_OP_ROPE_KV_STORE_ATTENTION) ||
      kind == CLPORT_OP_KV_STORE_ROPE_CELLS || kind == CLPORT_OP_ROPE_ATTENTION_CELLS)
    ++plan_.fused_nodes;
  plan_.nodes.push_back(std::move(node));
  return plan_.nodes.back();
}

PlanBuilder::AttentionParams PlanBuilder::attention_params(uint32_t layer) const {
  const LayerAttention& l = hp_.layer_attn[layer];
  AttentionParams p;
  p.rotate = l.rope;
  p.rope.rope.mode = hp_.rope_mode;
  p.rope.rope.n_rot = static_cast<int32_t>(hp_.n_rot);
  p.rope.rope.freq_base = l.rope_freq_base;
  p.rope.rope.freq_scale = l.rope_freq_scale;
  p.attention.attention.scale = hp_.attn_scale;
  p.attention.attention.window = static_cast<int32_t>(l.window);
  p.rope_attention = p.rope;
  p.rope_attention.attention = p.attention.attention;
  return p;
}

void PlanBuilder::embed() {
  TensorRef embd_rows = w_.tok_embd;
  // GET_ROWS reads the file layout while the weight has it; a tied embedding whose plain copy
  // went at load (its repacking plugin looks rows up in its own layout) is read from the layout.
  if (embd_rows.buffer != nullptr || embd_rows.host != nullptr) embd_rows.layout = nullptr;
  add(CLPORT_OP_GET_ROWS, {embd_rows, view(s_.ids, {n_, 1, 1, 1}, 0)}, x);
  if (hp_.embd_scale != 1.0f) {
    cpu::OpParams scale;
    scale.scale = hp_.embd_scale;
    add(CLPORT_OP_SCALE, {x}, x, scale);
  }
}

PlanBuilder::Heads PlanBuilder::project_qkv(const Layer& L) {
  const int64_t HD = hp_.head_dim, H = hp_.n_head, HKV = hp_.n_head_kv;
  const int64_t NQ = hp_.q_rows(), NKV = hp_.kv_rows(), NQKV = NQ + 2 * NKV, B = s_.qkv.ne[1];
  if (L.wqkv.valid()) {
    const TensorRef qkv = cols(s_.qkv, NQKV);
    if (claims(CLPORT_OP_RMS_NORM_MUL_MAT, {&L.wqkv, &x, &L.attn_norm}, qkv, norm_, &L.wqkv, &xn, &qkv)) {
      add(CLPORT_OP_RMS_NORM_MUL_MAT, {L.wqkv, x, L.attn_norm}, qkv, norm_);
    } else {
      add(CLPORT_OP_RMS_NORM, {x, L.attn_norm}, xn, norm_);
      add(CLPORT_OP_MUL_MAT, {L.wqkv, xn}, qkv);
    }
    if (L.bqkv.valid()) add(CLPORT_OP_ADD, {qkv, L.bqkv}, qkv);
    const uint64_t token = static_cast<uint64_t>(NQKV) * 4;
    return {heads_view(s_.qkv, HD, H, n_, token, 0), heads_view(s_.qkv, HD, HKV, n_, token, NQ * 4),
            heads_view(s_.qkv, HD, HKV, n_, token, (NQ + NKV) * 4)};
  }
  const uint64_t k_at = static_cast<uint64_t>(NQ * B) * 4, v_at = k_at + static_cast<uint64_t>(NKV * B) * 4;
  const TensorRef q = view(s_.qkv, {NQ, n_, 1, 1}, 0), k = view(s_.qkv, {NKV, n_, 1, 1}, k_at),
                  v = view(s_.qkv, {NKV, n_, 1, 1}, v_at);
  const bool fused = claims(CLPORT_OP_RMS_NORM_MUL_MAT, {&L.wq, &x, &L.attn_norm}, q, norm_, &L.wq, &xn, &q) &&
                     claims(CLPORT_OP_RMS_NORM_MUL_MAT, {&L.wk, &x, &L.attn_norm}, k, norm_, &L.wk, &xn, &k) &&
                     claims(CLPORT_OP_RMS_NORM_MUL_MAT, {&L.wv, &x, &L.attn_norm}, v, norm_, &L.wv, &xn, &v);
  if (fused) {
    add(CLPORT_OP_RMS_NORM_MUL_MAT, {L.wq, x, L.attn_norm}, q, norm_);
    add(CLPORT_OP_RMS_NORM_MUL_MAT, {L.wk, x, L.attn_norm}, k, norm_);
    add(CLPORT_OP_RMS_NORM_MUL_MAT, {L.wv, x, L.attn_norm}, v, norm_);
  } else {
    add(CLPORT_OP_RMS_NORM, {x, L.attn_norm}, xn, norm_);
    add(CLPORT_OP_MUL_MAT, {L.wq, xn}, q);
    add(CLPORT_OP_MUL_MAT, {L.wk, xn}, k);
    add(CLPORT_OP_MUL_MAT, {L.wv, xn}, v);
  }
  if (L.bq.valid()) {
    add(CLPORT_OP_ADD, {q, L.bq}, q);
    add(CLPORT_OP_ADD, {k, L.bk}, k);
    add(CLPORT_OP_ADD, {v, L.bv}, v);
  }
  return {view(s_.qkv, {HD, H, n_, 1}, 0), view(s_.qkv, {HD, HKV, n_, 1}, k_at), view(s_.qkv, {HD, HKV, n_, 1}, v_at)};
}

TensorRef PlanBuilder::norm_heads(const TensorRef& heads, const TensorRef& weight, const TensorRef& dst,
                                  const TensorRef& tmp) {
  if (contiguous_rows(heads) && heads.nb[1] == heads.ne[0] * 4) {
    add(CLPORT_OP_RMS_NORM, {heads, weight}, dst, norm_);
  } else {
    // A slice of the joined Q/K/V projection: the norm kernels read contiguous rows only.
    add(CLPORT_OP_COPY, {heads}, tmp);
    add(CLPORT_OP_RMS_NORM, {tmp, weight}, dst, norm_);
  }
  return dst;
}

std::vector<TensorRef> PlanBuilder::with_factors(std::vector<TensorRef> src) const {
  if (w_.rope_factors.valid()) src.push_back(w_.rope_factors);
  return src;
}

PlanBuilder::EntryViews PlanBuilder::entry_views(const Layer& L, const Heads& h, const Entry& e) const {
  EntryViews v;
  v.cache = &L.cache[e.seq];
  v.n = e.n;
  if (entries_.size() == 1) {
    v.h = h;
    v.q_rope = q_rope;
    v.k_rope = k_rope;
    v.attn_heads = attn_heads;
    return v;
  }
  // The entry's tokens of a head-shaped view [head_dim, heads, n]: dim 2 from e.row.
  auto rows = [&e](const TensorRef& t) {
    return view(t, t.dtype, {t.ne[0], t.ne[1], e.n, 1}, {t.nb[0], t.nb[1], t.nb[2], t.nb[2] * e.n},
                static_cast<uint64_t>(e.row * t.nb[2]));
  };
  v.h = {rows(h.q), rows(h.k), rows(h.v)};
  v.q_rope = rows(q_rope);
  v.k_rope = rows(k_rope);
  v.attn_heads = rows(attn_heads);
  return v;
}

void PlanBuilder::kv_store(const EntryViews& v, const TensorRef& k_heads, const cpu::OpParams& rope) {
  const Layer::SequenceCache& c = *v.cache;
  const std::vector<TensorRef> store_src = with_factors({k_heads, v.h.v});
  // The fused store takes the joint cache, which exists only when K and V have one type.
  if (c.kv_cache.valid() &&
      claims(CLPORT_OP_KV_STORE_ROPE, pointers_to(store_src), c.kv_cache, rope, nullptr, nullptr, nullptr)) {
    add(CLPORT_OP_KV_STORE_ROPE, store_src, c.kv_cache, rope);
    return;
  }
  if (contiguous_rows(k_heads)) {
    add(CLPORT_OP_ROPE, with_factors({k_heads}), v.k_rope, rope);
  } else {
    add(CLPORT_OP_COPY, {k_heads}, v.k_rope);
    add(CLPORT_OP_ROPE, with_factors({v.k_rope}), v.k_rope, rope);
  }
  kv_copy(v, v.k_rope);
}

void PlanBuilder::kv_copy(const EntryViews& v, const TensorRef& k_rows) {
  // The slots of positions n_past .. n_past + n - 1 (the COPY's dst moves by one position's
  // bytes per n_past); a quantized cache row is whole blocks, which the COPY quantizes.
  const Layer::SequenceCache& c = *v.cache;
  const int64_t HD = hp_.head_dim, HKV = hp_.n_head_kv;
  const TensorRef k_slot = view(c.k_cache, c.k_cache.dtype, {HD, HKV, v.n, 1}, c.k_cache.nb, 0);
  const TensorRef v_slot = view(c.v_cache, c.v_cache.dtype, {HD, HKV, v.n, 1}, c.v_cache.nb, 0);
  add(CLPORT_OP_COPY, {k_rows}, k_slot).dst_position_stride = static_cast<uint64_t>(c.k_cache.nb[2]);
  add(CLPORT_OP_COPY, {v.h.v}, v_slot).dst_position_stride = static_cast<uint64_t>(c.v_cache.nb[2]);
}

void PlanBuilder::attend(const EntryViews& v, const TensorRef& q_heads, const AttentionParams& p) {
  const Layer::SequenceCache& c = *v.cache;
  const std::vector<TensorRef> fused_src = with_factors({q_heads, c.k_cache, c.v_cache});
  if (claims(CLPORT_OP_ROPE_ATTENTION, pointers_to(fused_src), v.attn_heads, p.rope_attention, nullptr, nullptr,
             nullptr)) {
    add(CLPORT_OP_ROPE_ATTENTION, fused_src, v.attn_heads, p.rope_attention);
    return;
  }
  if (contiguous_rows(q_heads)) {
    add(CLPORT_OP_ROPE, with_factors({q_heads}), v.q_rope, p.rope);
  } else {
    add(CLPORT_OP_COPY, {q_heads}, v.q_rope);
    add(CLPORT_OP_ROPE, with_factors({v.q_rope}), v.q_rope, p.rope);
  }
  add(CLPORT_OP_ATTENTION, {v.q_rope, c.k_cache, c.v_cache}, v.attn_heads, p.attention);
}

void PlanBuilder::rope_store_attend_entry(const EntryViews& v, const AttentionParams& p) {
  // One op where claimed (a decode step), else RoPE on K with the store at positions n_past ..,
  // then attention with Q's RoPE in front. The one op has no source left for frequency factors.
  const Layer::SequenceCache& c = *v.cache;
  if (!w_.rope_factors.valid() && c.kv_cache.valid() &&
      claims(CLPORT_OP_ROPE_KV_STORE_ATTENTION, {&v.h.q, &v.h.k, &v.h.v, &c.kv_cache}, v.attn_heads,
             p.rope_attention, nullptr, nullptr, nullptr)) {
    add(CLPORT_OP_ROPE_KV_STORE_ATTENTION, {v.h.q, v.h.k, v.h.v, c.kv_cache}, v.attn_heads, p.rope_attention);
    return;
  }
  kv_store(v, v.h.k, p.rope);
  attend(v, v.h.q, p);
}

void PlanBuilder::store_attend_entry(const EntryViews& v, const AttentionParams& p) {
  // K and V into the cache as they are (a COPY reads strided rows), then plain attention: no
  // fused op takes a layer without RoPE. The attention reads Q's heads contiguous.
  kv_copy(v, v.h.k);
  TensorRef q = v.h.q;
  if (!contiguous_rows(q)) {
    add(CLPORT_OP_COPY, {q}, v.q_rope);
    q = v.q_rope;
  }
  const Layer::SequenceCache& c = *v.cache;
  add(CLPORT_OP_ATTENTION, {q, c.k_cache, c.v_cache}, v.attn_heads, p.attention);
}

bool PlanBuilder::rope_store_attend_cells(const Layer& L, const Heads& h, const AttentionParams& p) {
  if (!L.kv_alloc.valid() || !s_.cells.valid()) return false;
  const TensorRef cells = view(s_.cells, {2, n_, 1, 1}, 0);
  const std::vector<TensorRef> store_src = with_factors({h.k, h.v, cells});
  const std::vector<TensorRef> attend_src = with_factors({h.q, L.kv_alloc, cells});
  if (!claims(CLPORT_OP_KV_STORE_ROPE_CELLS, pointers_to(store_src), L.kv_alloc, p.rope, nullptr, nullptr, nullptr) ||
      !claims(CLPORT_OP_ROPE_ATTENTION_CELLS, pointers_to(attend_src), attn_heads, p.rope_attention, nullptr, nullptr,
              nullptr)) {
    return false;
  }
  add(CLPORT_OP_KV_STORE_ROPE_CELLS, store_src, L.kv_alloc, p.rope);
  add(CLPORT_OP_ROPE_ATTENTION_CELLS, attend_src, attn_heads, p.rope_attention);
  plan_.uses_cells = true;
  return true;
}

void PlanBuilder::rope_store_attend(const Layer& L, const Heads& h, const AttentionParams& p) {
  if (p.rotate && entries_.size() > 1 && rope_store_attend_cells(L, h, p)) return;
  for (size_t e = 0; e < entries_.size(); ++e) {
    entry_ = static_cast<int>(e);
    const EntryViews v = entry_views(L, h, entries_[e]);
    if (p.rotate) {
      rope_store_attend_entry(v, p);
    } else {
      store_attend_entry(v, p);
    }
  }
  entry_ = -1;
}

PlanNode& PlanBuilder::mul_mat_residual(const TensorRef& weight, const TensorRef& input) {
  if (claims(CLPORT_OP_MUL_MAT_ADD, {&weight, &input, &x}, x, {}, &weight, &input, &proj)) {
    return add(CLPORT_OP_MUL_MAT_ADD, {weight, input, x}, x);
  }
  add(CLPORT_OP_MUL_MAT, {weight, input}, proj);
  return add(CLPORT_OP_ADD, {x, proj}, x);
}

PlanNode& PlanBuilder::mul_mat_norm_residual(const TensorRef& weight, const TensorRef& input,
                                             const TensorRef& norm_weight) {
  add(CLPORT_OP_MUL_MAT, {weight, input}, proj);
  add(CLPORT_OP_RMS_NORM, {proj, norm_weight}, xn, norm_);
  return add(CLPORT_OP_ADD, {x, xn}, x);
}

void PlanBuilder::gated_ffn(const Layer& L, FfnActivation f) {
  if (f == FfnActivation::Silu &&
      claims(CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU, {&L.w_gate, &x, &L.ffn_norm, &L.w_up}, act, norm_, &L.w_gate, &xn,
             &gate)) {
    add(CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU, {L.w_gate, x, L.ffn_norm, L.w_up}, act, norm_);
    return;
  }
  // Without a fused gated kernel, gate and up can still take the norm into their mat-muls
  // (the norm is then computed twice, which costs less than a kernel of its own on a decode step).
  const bool norm_fused =
      f == FfnActivation::GeluTanh &&
      claims(CLPORT_OP_RMS_NORM_MUL_MAT, {&L.w_gate, &x, &L.ffn_norm}, gate, norm_, &L.w_gate, &xn, &gate) &&
      claims(CLPORT_OP_RMS_NORM_MUL_MAT, {&L.w_up, &x, &L.ffn_norm}, up, norm_, &L.w_up, &xn, &up);
  if (norm_fused) {
    add(CLPORT_OP_RMS_NORM_MUL_MAT, {L.w_gate, x, L.ffn_norm}, gate, norm_);
    add(CLPORT_OP_RMS_NORM_MUL_MAT, {L.w_up, x, L.ffn_norm}, up, norm_);
  } else {
    add(CLPORT_OP_RMS_NORM, {x, L.ffn_norm}, xn, norm_);
    add(CLPORT_OP_MUL_MAT, {L.w_gate, xn}, gate);
    add(CLPORT_OP_MUL_MAT, {L.w_up, xn}, up);
  }
  add(f == FfnActivation::Silu ? CLPORT_OP_SWIGLU : CLPORT_OP_GEGLU, {gate, up}, act);
}

void PlanBuilder::hook_after(PlanNode& node, uint32_t layer) const {
  node.hook_layer = static_cast<int>(layer);
  node.hook_tensor = x;
}

void PlanBuilder::output(int64_t logit_rows, bool hooked) {
  const int64_t E = hp_.n_embd;
  const uint64_t first = static_cast<uint64_t>(n_ - logit_rows) * E * sizeof(float);
  const TensorRef x_out = view(s_.x, {E, logit_rows, 1, 1}, first);
  const TensorRef xn_out = view(s_.xn, {E, logit_rows, 1, 1}, first);
  const TensorRef logits = view(s_.logits, {static_cast<int64_t>(hp_.n_vocab), logit_rows, 1, 1}, 0);
  if (logit_rows > 0) plan_.logits = logits;
  if (logit_rows > 0 && !hooked &&
      claims(CLPORT_OP_RMS_NORM_MUL_MAT, {&w_.output, &x_out, &w_.output_norm}, logits, norm_, &w_.output, &xn_out,
             &logits)) {
    add(CLPORT_OP_RMS_NORM_MUL_MAT, {w_.output, x_out, w_.output_norm}, logits, norm_);
    return;
  }
  if (logit_rows == 0 && !hooked) return;
  PlanNode& final_norm = add(CLPORT_OP_RMS_NORM, {x, w_.output_norm}, xn, norm_);
  final_norm.hook_layer = static_cast<int>(hp_.n_layer);
  final_norm.hook_tensor = xn;
  if (logit_rows > 0) add(CLPORT_OP_MUL_MAT, {w_.output, xn_out}, logits);
}

}  // namespace clport
