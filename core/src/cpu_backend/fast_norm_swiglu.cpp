// RMS_NORM, SWIGLU and GEGLU on the fast CPU backend: SIMD rows (GEGLU's tanh from Highway; the
// reference computes GELU in double), rows split over the pool when a prompt batch makes them
// worth it. The operands come checked (the ops' registered checks).
#include <cmath>

#include "cpu_backend/fast_ops.h"
#include "cpu_backend/simd_kernels.h"
#include "ops/cpu_common.h"

namespace clport::fastcpu {
namespace {

using cpu::HostTensor;
using cpu::detail::flat_row_f32;
using cpu::detail::rows;


template <typename Fn>
void for_rows(ThreadPool& pool, int64_t n_rows, int64_t row_length, Fn&& fn) {
  auto body = [&](int, int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) fn(r);
  };
  if (n_rows * row_length < kMinValuesForPool) {
    body(0, 0, n_rows);
  } else {
    pool.parallel_for(n_rows, 1, body);
  }
}

}  // namespace

Status rms_norm(FastContext& ctx, const Srcs& src, const HostTensor& dst, const cpu::OpParams& p) {
  const HostTensor& x = src[0];
  const float* weight = src.size() == 2 ? static_cast<const float*>(src[1].data) : nullptr;
  const float eps = p.eps;
  const int64_t n = x.ne[0];
  for_rows(ctx.pool, rows(x), n, [&](int64_t r) {
    const float* in = flat_row_f32(x, r);
    const double mean = static_cast<double>(sum_of_squares(in, n)) / static_cast<double>(n);
    scale_row(in, static_cast<float>(1.0 / std::sqrt(mean + eps)), weight, flat_row_f32(dst, r), n);
  });
  return Status::ok_status();
}

namespace {

// Shared body of the gated activations: `row` per row.
template <typename Row>
Status gated(ThreadPool& pool, const Srcs& src, const HostTensor& dst, Row row) {
  const int64_t n = dst.ne[0];
  for_rows(pool, rows(dst), n, [&](int64_t r) {
    row(flat_row_f32(src[0], r), flat_row_f32(src[1], r), flat_row_f32(dst, r), n);
  });
  return Status::ok_status();
}

}  // namespace

Status swiglu(FastContext& ctx, const Srcs& src, const HostTensor& dst, const cpu::OpParams&) {
  return gated(ctx.pool, src, dst, swiglu_row);
}

Status geglu(FastContext& ctx, const Srcs& src, const HostTensor& dst, const cpu::OpParams&) {
  return gated(ctx.pool, src, dst, geglu_row);
}

}  // namespace clport::fastcpu
