// The model's KV cache and step buffers, from an allocator: the backend's memory once the load
// places them, or stand-ins with shapes and no memory, over which the plans are built at the
// start of the load to ask the plugins for their scratch before anything is placed.
#include <map>

#include "backend/op_description.h"
#include "model/llama_model.h"
#include "model/llama_weights.h"

namespace clport {

TensorRef LlamaModel::stand_in(DType dtype, std::array<int64_t, 4> ne) {
  // valid(), as a placed tensor is (the graph builders ask), with no buffer behind it.
  static const std::shared_ptr<void> kNoMemory = std::make_shared<int>(0);
  TensorRef t = shape_only(dtype, ne);
  t.storage = kNoMemory;
  return t;
}

Status LlamaModel::place_kv_cache(const Allocate& allocate) {
  // Equal K and V types share one tensor [head_dim, n_head_kv, n_ctx, 2 n_seq], which the fused
  // KV_STORE_ROPE / ROPE_KV_STORE_ATTENTION ops take (a sequence's [.., n_ctx, 2] part) as their
  // cache; different types are two tensors, and the graph then stores K and V with plain COPY ops.
  const LlamaHParams& hp = hp_;
  const std::array<int64_t, 4> one{hp.head_dim, hp.n_head_kv, n_ctx_, 1};
  const int64_t n_seq = n_seq_;
  for (auto& L : w_->layers) {
    L.cache.assign(n_seq_, {});
    L.kv_alloc = L.k_alloc = L.v_alloc = TensorRef();
    if (kv_type_k_ == kv_type_v_) {
      auto kv = allocate(kv_type_k_, {hp.head_dim, hp.n_head_kv, n_ctx_, 2 * n_seq});
      if (!kv.ok()) return kv.status();
      L.kv_alloc = kv.value();
      const auto half = static_cast<uint64_t>(L.kv_alloc.nb[3]);
      for (int64_t q = 0; q < n_seq; ++q) {
        auto& c = L.cache[q];
        c.kv_cache = view(L.kv_alloc, kv_type_k_, {hp.head_dim, hp.n_head_kv, n_ctx_, 2}, L.kv_alloc.nb, 2 * q * half);
        c.k_cache = view(L.kv_alloc, kv_type_k_, one, L.kv_alloc.nb, 2 * q * half);
        c.v_cache = view(L.kv_alloc, kv_type_v_, one, L.kv_alloc.nb, (2 * q + 1) * half);
      }
      continue;
    }
    const std::array<int64_t, 4> all{hp.head_dim, hp.n_head_kv, n_ctx_, n_seq};
    auto k = allocate(kv_type_k_, all);
    if (!k.ok()) return k.status();
    auto v = allocate(kv_type_v_, all);
    if (!v.ok()) return v.status();
    L.k_alloc = k.value();
    L.v_alloc = v.value();
    for (int64_t q = 0; q < n_seq; ++q) {
      L.cache[q].k_cache = view(L.k_alloc, kv_type_k_, one, L.k_alloc.nb, q * static_cast<uint64_t>(L.k_alloc.nb[3]));
      L.cache[q].v_cache = view(L.v_alloc, kv_type_v_, one, L.v_alloc.nb, q * static_cast<uint64_t>(L.v_alloc.nb[3]));
    }
  }
  return Status();
}

Status LlamaModel::make_step_buffers(const Allocate& allocate) {
  const LlamaHParams& hp = hp_;
  s_ = std::make_unique<Scratch>();
  Scratch& s = *s_;
  const int64_t B = n_batch_, E = hp.n_embd, F = hp.n_ff, V = hp.n_vocab, NQ = hp.q_rows(), KV = hp.kv_rows();
  auto ids = allocate(DType::I32, {B, 1, 1, 1});
  if (!ids.ok()) return ids.status();
  s.ids = ids.value();
  if (n_seq_ > 1) {
    auto cells = allocate(DType::I32, {2, B, 1, 1});
    if (!cells.ok()) return cells.status();
    s.cells = cells.value();
  }
  auto slot = [&](int64_t rows) { return s.slots.add(DType::F32, {rows, B, 1, 1}); };
  s.x = slot(E);
  s.xn = slot(E);
  s.qkv = slot(NQ + 2 * KV);
  s.q_rope = slot(NQ);
  s.k_rope = slot(KV);
  s.attn = slot(NQ);
  s.proj = slot(E);
  s.gate = slot(F);
  s.up = slot(F);
  s.act = slot(F);
  s.logits = slot(V);
  if (hp.family->has(Slot::AttnQNorm)) {
    s.q_tmp = slot(NQ);
    s.k_tmp = slot(KV);
  }
  return Status();
}

Result<std::vector<NamedBytes>> LlamaModel::planned_scratch() const {
  // The plans the load prepares (a prompt batch, one token) and, with several sequences, a token
  // of each: every op at its plan's rows with the cache as full as the step allows.
  std::vector<std::pair<StepShape, uint32_t>> shapes{{StepShape{{{0, n_batch_}}}, n_ctx_ - n_batch_},
                                                     {StepShape{{{0, 1}}}, n_ctx_ - 1}};
  if (n_seq_ > 1) {
    StepShape each;
    for (uint32_t q = 0; q < n_seq_; ++q) each.entries.push_back({q, 1});
    shapes.push_back({each, n_ctx_ - 1});
  }
  std::map<std::string, uint64_t> most;
  for (const auto& [shape, n_past] : shapes) {
    const ForwardPlan plan = build_plan(shape, 1, false);
    for (const PlanNode& node : plan.nodes) {
      OpDescription d(node.kind, node.sources(), node.dst, node.params);
      d.op.n_past = static_cast<int32_t>(n_past);
      auto needs = backend_.scratch_needs(d.op);
      if (!needs.ok()) return needs.status();
      for (const NamedBytes& n : needs.value()) most[n.name] = std::max(most[n.name], n.bytes);
    }
  }
  std::vector<NamedBytes> out;
  for (const auto& [name, bytes] : most) out.push_back({name, bytes});
  return out;
}

}  // namespace clport
