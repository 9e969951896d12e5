// Row-wise normalisations: RMS_NORM (with optional weight) and SOFTMAX. Reductions accumulate in
// double: this is the reference the device kernels are judged against.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/cpu_common.h"
#include "ops/cpu_kernels.h"
#include "ops/cpu_parallel.h"

namespace clport::cpu::detail {

Status check_rms_norm_operands(const Srcs& src, const HostTensor& dst, const OpParams& p) {
  constexpr const char* kOp = "rms_norm";
  CLPORT_RETURN_IF_ERROR(check_src_count(kOp, src, 1, 2));
  const HostTensor& x = src[0];
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "src0", x, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "dst", dst, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_same_shape(kOp, "src0", x, "dst", dst));
  if (src.size() == 2) {
    const HostTensor& w = src[1];
    CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "src1 (weight)", w, {DType::F32}));
    if (w.ne[0] != x.ne[0] || w.elements() != w.ne[0]) {
      return invalid(kOp, "weight must be [" + std::to_string(x.ne[0]) + "], got " + describe(w));
    }
  }
  const float eps = p.eps;
  if (!(eps >= 0.0f) || !std::isfinite(eps))
    return invalid(kOp, "eps must be finite and >= 0");
  return Status::ok_status();
}

Status rms_norm(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads) {
  const HostTensor& x = src[0];
  const float* weight = src.size() == 2 ? static_cast<const float*>(src[1].data) : nullptr;
  const float eps = p.eps;
  const int64_t n = x.ne[0];
  const int threads = plan_threads(rows(x), 3.0 * static_cast<double>(n), n_threads);
  run_parallel(threads, rows(x), [&](int, int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float* in = flat_row_f32(x, r);
      float* out = flat_row_f32(dst, r);
      double sum_sq = 0.0;
      for (int64_t i = 0; i < n; ++i) sum_sq += static_cast<double>(in[i]) * in[i];
      const auto inv = static_cast<float>(1.0 / std::sqrt(sum_sq / static_cast<double>(n) + eps));
      for (int64_t i = 0; i < n; ++i) out[i] = in[i] * inv * (weight ? weight[i] : 1.0f);
    }
  });
  return Status::ok_status();
}

Status check_softmax_operands(const Srcs& src, const HostTensor& dst, const OpParams& p) {
  constexpr const char* kOp = "softmax";
  CLPORT_RETURN_IF_ERROR(check_src_count(kOp, src, 1, 1));
  const HostTensor& x = src[0];
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "src0", x, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "dst", dst, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_same_shape(kOp, "src0", x, "dst", dst));
  if (!std::isfinite(p.scale)) return invalid(kOp, "the scale must be finite");
  return Status::ok_status();
}

Status softmax(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads) {
  const HostTensor& x = src[0];
  const float scale = p.scale;
  const int64_t n = x.ne[0];
  const int threads = plan_threads(rows(x), 20.0 * static_cast<double>(n), n_threads);
  run_parallel(threads, rows(x), [&](int, int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float* in = flat_row_f32(x, r);
      float* out = flat_row_f32(dst, r);
      // Subtracting the row maximum keeps exp() in range for large logits.
      double max = -std::numeric_limits<double>::infinity();
      for (int64_t i = 0; i < n; ++i) max = std::max(max, static_cast<double>(in[i]) * scale);
      double sum = 0.0;
      for (int64_t i = 0; i < n; ++i) sum += std::exp(static_cast<double>(in[i]) * scale - max);
      for (int64_t i = 0; i < n; ++i) {
        out[i] = static_cast<float>(std::exp(static_cast<double>(in[i]) * scale - max) / sum);
      }
    }
  });
  return Status::ok_status();
}

}  // namespace clport::cpu::detail
