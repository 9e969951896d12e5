// ATTENTION on the fast CPU backend (semantics and checks as the reference's, cpu_attention.cpp):
// one work item per (token, KV head) runs the query heads that share that KV head together, so
// each cache row is read once per group, in place (F16 rows are widened in registers). A Q8_0 /
// Q4_0 cache is decoded to F32 rows once per call first (as the reference does, with the same
// dequantize_row), since a block's scale is shared by 32 elements the SIMD rows would re-read.
#include <algorithm>
#include <cmath>

#include "quant/quant.h"
#include "cpu_backend/fast_ops.h"
#include "cpu_backend/simd_kernels.h"
#include "ops/cpu_common.h"
#include "ops/cpu_kernels.h"

namespace clport::fastcpu {
namespace {

using cpu::HostTensor;
using cpu::detail::row_f32;
using cpu::detail::row_ptr;
using cpu::detail::unsupported;

// What the SIMD rows need beyond the op's registered checks.
Status check_attention_rows(const Srcs& src, const HostTensor& dst) {
  constexpr const char* kOp = "attention";
  const HostTensor& q = src[0];
  if (q.nb[1] % sizeof(float) != 0 || dst.nb[1] % sizeof(float) != 0) {
    return unsupported(kOp, "q and dst heads must start on float boundaries");
  }
  return Status::ok_status();
}

bool quantized(DType t) { return t == DType::Q8_0 || t == DType::Q4_0; }

// Positions 0 .. n_used - 1 of every KV head of a quantized cache as F32 rows [kv][pos][hd].
void decode_cache(ThreadPool& pool, const HostTensor& cache, int64_t n_used, std::vector<float>& out) {
  const int64_t hd = cache.ne[0], n_kv = cache.ne[1];
  out.resize(static_cast<size_t>(hd * n_kv * n_used));
  auto body = [&](int, int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      // dtype and head_dim were checked (check_tensor: whole blocks), so this cannot fail.
      (void)dequantize_row(cache.dtype, row_ptr(cache, r / n_used, r % n_used), out.data() + r * hd, hd);
    }
  };
  const int64_t rows = n_kv * n_used;
  if (static_cast<double>(rows * hd) < kMinMacsForPool) {
    body(0, 0, rows);
  } else {
    pool.parallel_for(rows, 16, body);
  }
}

}  // namespace

Status attention(FastContext& ctx, const Srcs& src, const HostTensor& dst, const cpu::OpParams& p) {
  CLPORT_RETURN_IF_ERROR(check_attention_rows(src, dst));
  ThreadPool& pool = ctx.pool;
  Scratch& scratch = ctx.scratch;
  const HostTensor& q = src[0];
  const HostTensor& k = src[1];
  const HostTensor& v = src[2];
  const int64_t hd = q.ne[0], n_head = q.ne[1], n_tokens = q.ne[2];
  const int64_t n_kv = k.ne[1];
  const int64_t group = n_head / n_kv;
  const int64_t n_past = p.n_past;
  const int64_t n_used = n_past + n_tokens;

  const bool k_decoded = quantized(k.dtype), v_decoded = quantized(v.dtype);
  if (k_decoded) decode_cache(pool, k, n_used, scratch.k_rows);
  if (v_decoded) decode_cache(pool, v, n_used, scratch.v_rows);
  const int64_t row_bytes = hd * static_cast<int64_t>(sizeof(float));
  scratch.per_thread.resize(static_cast<size_t>(pool.size()));
  for (auto& s : scratch.per_thread) {
    if (s.size() < static_cast<size_t>(group * n_used))
      s.resize(static_cast<size_t>(group * n_used));
  }
  const int64_t items = n_tokens * n_kv;
  auto body = [&](int thread, int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t t = item / n_kv, kv = item % n_kv;
      AttentionGroup g;
      g.q = row_f32(q, kv * group, t);
      g.q_head_stride = q.nb[1] / static_cast<int64_t>(sizeof(float));
      g.out = row_f32(dst, kv * group, t);
      g.out_head_stride = dst.nb[1] / static_cast<int64_t>(sizeof(float));
      const int64_t n_keys = n_past + t + 1;  // causal: positions 0 .. n_past + t
      const int64_t first = cpu::detail::first_visible_key(n_keys, p.attention.window);
      const auto decoded_row = [&](const std::vector<float>& rows, int64_t pos) {
        return reinterpret_cast<const uint8_t*>(rows.data() + (kv * n_used + pos) * hd);
      };
      g.k = k_decoded ? decoded_row(scratch.k_rows, first) : row_ptr(k, kv, first);
      g.v = v_decoded ? decoded_row(scratch.v_rows, first) : row_ptr(v, kv, first);
      g.k_pos_stride = k_decoded ? row_bytes : k.nb[2];
      g.v_pos_stride = v_decoded ? row_bytes : v.nb[2];
      g.k_f16 = k.dtype == DType::F16;
      g.v_f16 = v.dtype == DType::F16;
      g.n_heads = group;
      g.n_keys = n_keys - first;
      g.head_dim = hd;
      g.scale = p.attention.scale;
      g.scores = scratch.per_thread[static_cast<size_t>(thread)].data();
      attention_group(g);
    }
  };
  const double macs = 2.0 * static_cast<double>(n_head * hd) * static_cast<double>(n_used) *
                      static_cast<double>(n_tokens);
  if (macs < kMinMacsForPool) {
    body(0, 0, items);
  } else {
    pool.parallel_for(items, 1, body);
  }
  return Status::ok_status();
}

}  // namespace clport::fastcpu
