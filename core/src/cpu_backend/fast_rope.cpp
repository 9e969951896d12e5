// ROPE on the fast CPU backend. The table and the rotation are the reference's (cpu_rope.cpp),
// bit for bit; what changes is that the cos / sin table (a pow, a cos and a sin per pair, in
// double) is kept between calls: every layer's Q and K of one batch share the same positions, so
// it is computed once per forward pass instead of twice per layer.
#include <algorithm>

#include "cpu_backend/fast_ops.h"
#include "ops/cpu_common.h"
#include "ops/cpu_kernels.h"

namespace clport::fastcpu {
namespace {

using cpu::HostTensor;
using cpu::detail::flat_row_f32;
using cpu::detail::rows;

const RopeTable& table_for(RopeTable& t, const cpu::detail::RopeArgs& a, int64_t n_tokens) {
  const int64_t half = a.n_rot / 2;
  const bool same_factors = a.factors == nullptr
                                ? t.factors.empty()
                                : t.factors.size() == static_cast<size_t>(half) &&
                                      std::equal(t.factors.begin(), t.factors.end(), a.factors);
  if (t.pos0 == a.pos0 && t.n_tokens == n_tokens && t.n_rot == a.n_rot && t.base == a.base &&
      t.freq_scale == a.freq_scale && same_factors) {
    return t;
  }
  t.cos.resize(static_cast<size_t>(n_tokens * half));
  t.sin.resize(t.cos.size());
  cpu::detail::rope_cos_sin_table(a, n_tokens, t.cos.data(), t.sin.data());
  t.pos0 = a.pos0;
  t.n_tokens = n_tokens;
  t.n_rot = a.n_rot;
  t.base = a.base;
  t.freq_scale = a.freq_scale;
  if (a.factors != nullptr) {
    t.factors.assign(a.factors, a.factors + half);
  } else {
    t.factors.clear();
  }
  return t;
}

}  // namespace

Status rope(FastContext& ctx, const Srcs& src, const HostTensor& dst, const cpu::OpParams& p) {
  const cpu::detail::RopeArgs a = cpu::detail::rope_args(src, p);
  const HostTensor& x = src[0];
  const int64_t half = a.n_rot / 2, head_dim = x.ne[0], n_tokens = x.ne[2];
  const RopeTable& table = table_for(ctx.scratch.rope, a, n_tokens);
  auto body = [&](int, int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t t = (r / x.ne[1]) % n_tokens;
      cpu::detail::rope_rotate_row(a, head_dim, flat_row_f32(x, r), flat_row_f32(dst, r),
                                   table.cos.data() + t * half, table.sin.data() + t * half);
    }
  };
  if (rows(x) * head_dim < kMinValuesForPool) {
    body(0, 0, rows(x));
  } else {
    ctx.pool.parallel_for(rows(x), 4, body);
  }
  return Status::ok_status();
}

}  // namespace clport::fastcpu
