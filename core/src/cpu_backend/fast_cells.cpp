// KV_STORE_ROPE_CELLS and ROPE_ATTENTION_CELLS on the fast CPU backend: a decode step over
// several sequences in two calls per layer instead of a ROPE, COPY and ATTENTION per sequence,
// and one pool job whose work items are every (token, KV head) of the step, so two threads share
// 4 sequences x 3 KV heads evenly where one sequence's 3 items leave a thread idle a third of
// the time. Each token is computed exactly as the per-sequence ops compute it alone (the same
// cos / sin table, rotation, F16 rounding and attention_group), so a sequence's logits do not
// depend on which others share its step. Caches of F16 or F32 only (fast_takes_cache): the
// quantized ones stay on the per-sequence path, which decodes them once per call.
#include <algorithm>
#include <cstring>

#include "quant/quant.h"
#include "cpu_backend/fast_ops.h"
#include "cpu_backend/simd_kernels.h"
#include "ops/cpu_common.h"
#include "ops/cpu_kernels.h"
#include "ops/op_registry.h"

namespace clport::fastcpu {
namespace {

using cpu::HostTensor;
using cpu::detail::row_f32;
using cpu::detail::row_ptr;

// RoPE's arguments at position pos; the frequency factors are the cells ops' src3.
cpu::detail::RopeArgs rope_at(const Srcs& src, const cpu::OpParams& p, int64_t pos) {
  cpu::detail::RopeArgs a;
  a.mode = p.rope.mode;
  a.pos0 = pos;
  a.n_rot = p.rope.n_rot;
  a.base = p.rope.freq_base;
  a.freq_scale = p.rope.freq_scale;
  a.factors = src.size() == 4 ? row_f32(src[3], 0) : nullptr;
  return a;
}

// Every token's cell, checked, and the cos / sin rows of their positions. The table is kept:
// the store and the attention of every layer of one step share the positions.
Status cells_and_table(const char* op, Scratch& scratch, const Srcs& src, const HostTensor& cache,
                       const cpu::OpParams& p, int64_t n_tokens, std::vector<int64_t>& seqs) {
  CellsRopeTable& t = scratch.cells_rope;
  seqs.resize(static_cast<size_t>(n_tokens));
  std::vector<int64_t> positions(static_cast<size_t>(n_tokens));
  for (int64_t i = 0; i < n_tokens; ++i) {
    CLPORT_RETURN_IF_ERROR(cpu::detail::cell_of(op, src[2], cache, i, &seqs[static_cast<size_t>(i)],
                                                &positions[static_cast<size_t>(i)]));
  }
  const cpu::detail::RopeArgs a = rope_at(src, p, 0);
  const int64_t half = a.n_rot / 2;
  const bool same_factors = a.factors == nullptr
                                ? t.factors.empty()
                                : t.factors.size() == static_cast<size_t>(half) &&
                                      std::equal(t.factors.begin(), t.factors.end(), a.factors);
  if (t.positions == positions && t.n_rot == a.n_rot && t.base == a.base && t.freq_scale == a.freq_scale &&
      same_factors) {
    return Status::ok_status();
  }
  t.cos.resize(static_cast<size_t>(n_tokens * half));
  t.sin.resize(t.cos.size());
  for (int64_t i = 0; i < n_tokens; ++i) {
    const cpu::detail::RopeArgs at = rope_at(src, p, positions[static_cast<size_t>(i)]);
    cpu::detail::rope_cos_sin_table(at, 1, t.cos.data() + i * half, t.sin.data() + i * half);
  }
  t.positions = std::move(positions);
  t.n_rot = a.n_rot;
  t.base = a.base;
  t.freq_scale = a.freq_scale;
  if (a.factors != nullptr) {
    t.factors.assign(a.factors, a.factors + half);
  } else {
    t.factors.clear();
  }
  return Status::ok_status();
}

// The composed ops' checks on token 0 (every token has its shapes; cell_of checked each
// position): a bad call fails as it does on the reference.
Status check_as_composed(clport_op_kind kind, const Srcs& one, const HostTensor& dst, const cpu::OpParams& p,
                         const Srcs& rope_src) {
  const ops::OpEntry* composed = ops::find(kind);
  const ops::OpEntry* rope = ops::find(CLPORT_OP_ROPE);
  CLPORT_RETURN_IF_ERROR(rope->check(rope_src, rope_src[0], p));
  return composed->check(one, dst, p);
}

void store_row(const float* x, int64_t n, DType dtype, uint8_t* out) {
  if (dtype == DType::F32) {
    std::memcpy(out, x, static_cast<size_t>(n) * sizeof(float));
    return;
  }
  auto* h = reinterpret_cast<uint16_t*>(out);
  for (int64_t i = 0; i < n; ++i) h[i] = float_to_half(x[i]);
}

}  // namespace

bool fast_takes_cache(DType cache) { return cache == DType::F16 || cache == DType::F32; }

Status kv_store_rope_cells(FastContext& ctx, const Srcs& src, const HostTensor& dst, const cpu::OpParams& p) {
  constexpr const char* kOp = "kv_store_rope_cells";
  const HostTensor &k = src[0], &v = src[1];
  if (!fast_takes_cache(dst.dtype)) return cpu::detail::kv_store_rope_cells(src, dst, p, ctx.pool.size());
  const int64_t hd = k.ne[0], n_kv = k.ne[1], n_tokens = k.ne[2];
  std::vector<int64_t>& seqs = ctx.scratch.cells_seqs;
  CLPORT_RETURN_IF_ERROR(cells_and_table(kOp, ctx.scratch, src, dst, p, n_tokens, seqs));
  if (n_tokens == 0) return Status::ok_status();
  {
    cpu::OpParams at = p;
    at.n_past = static_cast<int32_t>(ctx.scratch.cells_rope.positions[0]);
    const HostTensor k0 = cpu::detail::token_row(k, 0);
    Srcs one{k0, cpu::detail::token_row(v, 0)};
    Srcs rope_src{k0};
    if (src.size() == 4) {
      one.push_back(src[3]);
      rope_src.push_back(src[3]);
    }
    CLPORT_RETURN_IF_ERROR(
        check_as_composed(CLPORT_OP_KV_STORE_ROPE, one, cpu::detail::sequence_cache(dst, seqs[0]), at, rope_src));
  }
  const cpu::detail::RopeArgs a = rope_at(src, p, 0);
  const int64_t half = a.n_rot / 2;
  const CellsRopeTable& table = ctx.scratch.cells_rope;
  std::vector<float>& row = ctx.scratch.cells_row;
  row.resize(static_cast<size_t>(hd));
  // A few hundred values per token: the calling thread does it all.
  for (int64_t t = 0; t < n_tokens; ++t) {
    const int64_t seq = seqs[static_cast<size_t>(t)], pos = table.positions[static_cast<size_t>(t)];
    for (int64_t h = 0; h < n_kv; ++h) {
      cpu::detail::rope_rotate_row(a, hd, row_f32(k, h, t), row.data(), table.cos.data() + t * half,
                                   table.sin.data() + t * half);
      store_row(row.data(), hd, dst.dtype, row_ptr(dst, h, pos, 2 * seq));
      store_row(row_f32(v, h, t), hd, dst.dtype, row_ptr(dst, h, pos, 2 * seq + 1));
    }
  }
  return Status::ok_status();
}

Status rope_attention_cells(FastContext& ctx, const Srcs& src, const HostTensor& dst, const cpu::OpParams& p) {
  constexpr const char* kOp = "rope_attention_cells";
  const HostTensor &q = src[0], &cache = src[1];
  if (!fast_takes_cache(cache.dtype)) return cpu::detail::rope_attention_cells(src, dst, p, ctx.pool.size());
  const int64_t hd = q.ne[0], n_head = q.ne[1], n_tokens = q.ne[2], n_kv = cache.ne[1];
  std::vector<int64_t>& seqs = ctx.scratch.cells_seqs;
  CLPORT_RETURN_IF_ERROR(cells_and_table(kOp, ctx.scratch, src, cache, p, n_tokens, seqs));
  if (n_tokens == 0) return Status::ok_status();
  const CellsRopeTable& table = ctx.scratch.cells_rope;
  {
    cpu::OpParams at = p;
    at.n_past = static_cast<int32_t>(table.positions[0]);
    const cpu::KvHalves kv = cpu::kv_halves(cpu::detail::sequence_cache(cache, seqs[0]));
    const HostTensor q0 = cpu::detail::token_row(q, 0);
    Srcs rope_src{q0};
    if (src.size() == 4) rope_src.push_back(src[3]);
    CLPORT_RETURN_IF_ERROR(
        check_as_composed(CLPORT_OP_ATTENTION, {q0, kv.k, kv.v}, cpu::detail::token_row(dst, 0), at, rope_src));
  }
  const cpu::detail::RopeArgs a = rope_at(src, p, 0);
  const int64_t half = a.n_rot / 2;
  const int64_t group = n_head / n_kv;
  int64_t max_keys = 0;
  for (int64_t pos : table.positions) max_keys = std::max(max_keys, pos + 1);
  ThreadPool& pool = ctx.pool;
  Scratch& scratch = ctx.scratch;
  scratch.per_thread.resize(static_cast<size_t>(pool.size()));
  for (auto& s : scratch.per_thread) {
    // The group's rotated query heads, then its scores.
    const auto need = static_cast<size_t>(group * hd + group * max_keys);
    if (s.size() < need) s.resize(need);
  }
  auto body = [&](int thread, int64_t begin, int64_t end) {
    float* buf = scratch.per_thread[static_cast<size_t>(thread)].data();
    for (int64_t item = begin; item < end; ++item) {
      const int64_t t = item / n_kv, kv = item % n_kv;
      const int64_t seq = seqs[static_cast<size_t>(t)], pos = table.positions[static_cast<size_t>(t)];
      for (int64_t g = 0; g < group; ++g) {
        cpu::detail::rope_rotate_row(a, hd, row_f32(q, kv * group + g, t), buf + g * hd,
                                     table.cos.data() + t * half, table.sin.data() + t * half);
      }
      const int64_t n_keys = pos + 1;  // causal: positions 0 .. pos of its own sequence
      const int64_t first = cpu::detail::first_visible_key(n_keys, p.attention.window);
      AttentionGroup ag;
      ag.q = buf;
      ag.q_head_stride = hd;
      ag.out = row_f32(dst, kv * group, t);
      ag.out_head_stride = dst.nb[1] / static_cast<int64_t>(sizeof(float));
      ag.k = row_ptr(cache, kv, first, 2 * seq);
      ag.v = row_ptr(cache, kv, first, 2 * seq + 1);
      ag.k_pos_stride = ag.v_pos_stride = cache.nb[2];
      ag.k_f16 = ag.v_f16 = cache.dtype == DType::F16;
      ag.n_heads = group;
      ag.n_keys = n_keys - first;
      ag.head_dim = hd;
      ag.scale = p.attention.scale;
      ag.scores = buf + group * hd;
      attention_group(ag);
    }
  };
  const int64_t items = n_tokens * n_kv;
  const double macs = 2.0 * static_cast<double>(n_head * hd) * static_cast<double>(max_keys) *
                      static_cast<double>(n_tokens);
  if (macs < kMinMacsForPool) {
    body(0, 0, items);
  } else {
    pool.parallel_for(items, 1, body);
  }
  return Status::ok_status();
}

}  // namespace clport::fastcpu
