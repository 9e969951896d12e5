// RMS_NORM, SWIGLU and GEGLU on the fast CPU backend: the reference's checks, SIMD rows (GEGLU:
// a float loop; the reference computes GELU in double), rows split over the pool when a prompt
// batch makes them worth it.
#include <cmath>

#include "cpu_backend/fast_ops.h"
#include "cpu_backend/simd_kernels.h"
#include "ops/cpu_common.h"
#include "ops/cpu_kernels.h"

namespace clport::fastcpu {
namespace {

using cpu::HostTensor;
using cpu::detail::check_same_shape;
using cpu::detail::check_src_count;
using cpu::detail::check_tensor;
using cpu::detail::describe;
using cpu::detail::flat_row_f32;
using cpu::detail::invalid;
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

Status rms_norm(ThreadPool& pool, const Srcs& src, const HostTensor& dst, const cpu::OpParams& p) {
  constexpr const char* kOp = "rms_norm";
  CLPORT_RETURN_IF_ERROR(check_src_count(kOp, src, 1, 2));
  const HostTensor& x = src[0];
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "src0", x, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "dst", dst, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_same_shape(kOp, "src0", x, "dst", dst));
  const float* weight = nullptr;
  if (src.size() == 2) {
    const HostTensor& w = src[1];
    CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "src1 (weight)", w, {DType::F32}));
    if (w.ne[0] != x.ne[0] || w.elements() != w.ne[0]) {
      return invalid(kOp, "weight must be [" + std::to_string(x.ne[0]) + "], got " + describe(w));
    }
    weight = static_cast<const float*>(w.data);
  }
  const float eps = p.eps;
  if (!(eps >= 0.0f) || !std::isfinite(eps))
    return invalid(kOp, "eps must be finite and >= 0");
  const int64_t n = x.ne[0];
  for_rows(pool, rows(x), n, [&](int64_t r) {
    const float* in = flat_row_f32(x, r);
    const double mean = static_cast<double>(sum_of_squares(in, n)) / static_cast<double>(n);
    scale_row(in, static_cast<float>(1.0 / std::sqrt(mean + eps)), weight, flat_row_f32(dst, r), n);
  });
  return Status::ok_status();
}

namespace {

// Shared body of the gated activations: the reference's checks, then `row` per row.
template <typename Row>
Status gated(ThreadPool& pool, const char* op, const Srcs& src, const HostTensor& dst, Row row) {
  CLPORT_RETURN_IF_ERROR(cpu::detail::check_gated_operands(op, src, dst));
  const int64_t n = dst.ne[0];
  for_rows(pool, rows(dst), n, [&](int64_t r) {
    row(flat_row_f32(src[0], r), flat_row_f32(src[1], r), flat_row_f32(dst, r), n);
  });
  return Status::ok_status();
}

}  // namespace

Status swiglu(ThreadPool& pool, const Srcs& src, const HostTensor& dst) {
  return gated(pool, "swiglu", src, dst, swiglu_row);
}

Status geglu(ThreadPool& pool, const Srcs& src, const HostTensor& dst) {
  return gated(pool, "geglu", src, dst, geglu_row);
}

}  // namespace clport::fastcpu
