// ROPE on src0[head_dim, n_head, n_tokens]: token t sits at position pos0 + t; pair i (0 <= i <
// n_rot/2) is rotated by theta_i = pos * freq_scale * freq_base^(-2i / n_rot). Mode 0 pairs
// (x[2i], x[2i+1]); mode 2 (NeoX) pairs (x[i], x[i + n_rot/2]). Dimensions >= n_rot are copied.
#include <cmath>
#include <vector>

#include "ops/cpu_common.h"
#include "ops/cpu_kernels.h"
#include "ops/cpu_parallel.h"

namespace clport::cpu::detail {
namespace {

constexpr int kModeNormal = 0;
constexpr int kModeNeox = 2;

}  // namespace

Status rope(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads) {
  constexpr const char* kOp = "rope";
  CLPORT_RETURN_IF_ERROR(check_src_count(kOp, src, 1, 1));
  const HostTensor& x = src[0];
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "src0", x, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "dst", dst, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_same_shape(kOp, "src0", x, "dst", dst));
  const int mode = p.i[0];
  const int64_t pos0 = p.i[1];
  const int64_t n_rot = p.i[2];
  const double base = p.f[0];
  const double freq_scale = p.f[1];
  if (mode != kModeNormal && mode != kModeNeox) {
    return unsupported(
        kOp, "mode (iparams[0]) " + std::to_string(mode) + " is not 0 (normal) or 2 (NeoX)");
  }
  if (n_rot <= 0 || n_rot % 2 != 0 || n_rot > x.ne[0]) {
    return invalid(kOp, "n_rot (iparams[2]) = " + std::to_string(n_rot) +
                            " must be even and in (0, head_dim = " + std::to_string(x.ne[0]) + "]");
  }
  if (!(base > 0.0) || !std::isfinite(base))
    return invalid(kOp, "freq_base (fparams[0]) must be > 0");
  if (!(freq_scale > 0.0) || !std::isfinite(freq_scale)) {
    return invalid(kOp, "freq_scale (fparams[1]) must be > 0 (1 = no scaling)");
  }

  const int64_t half = n_rot / 2;
  const int64_t head_dim = x.ne[0];
  const int64_t n_tokens = x.ne[2];
  // Angles depend only on the token, so compute cos/sin once per token (in double: reference).
  std::vector<float> cos_t(static_cast<size_t>(n_tokens * half)), sin_t(cos_t.size());
  for (int64_t t = 0; t < n_tokens; ++t) {
    const double pos = static_cast<double>(pos0 + t) * freq_scale;
    for (int64_t i = 0; i < half; ++i) {
      const double theta =
          pos * std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(n_rot));
      cos_t[static_cast<size_t>(t * half + i)] = static_cast<float>(std::cos(theta));
      sin_t[static_cast<size_t>(t * half + i)] = static_cast<float>(std::sin(theta));
    }
  }
  const int64_t stride = mode == kModeNeox ? half : 1;  // distance between the two pair members
  run_parallel(plan_threads(rows(x), 6.0 * static_cast<double>(head_dim), n_threads), rows(x),
               [&](int, int64_t begin, int64_t end) {
                 for (int64_t r = begin; r < end; ++r) {
                   const int64_t t = (r / x.ne[1]) % n_tokens;
                   const float* in = flat_row_f32(x, r);
                   float* out = flat_row_f32(dst, r);
                   const float* c = cos_t.data() + t * half;
                   const float* s = sin_t.data() + t * half;
                   for (int64_t i = 0; i < half; ++i) {
                     const int64_t a = mode == kModeNeox ? i : 2 * i;
                     const float x0 = in[a];
                     const float x1 = in[a + stride];
                     out[a] = x0 * c[i] - x1 * s[i];
                     out[a + stride] = x0 * s[i] + x1 * c[i];
                   }
                   if (out != in) {
                     for (int64_t i = n_rot; i < head_dim; ++i) out[i] = in[i];
                   }
                 }
               });
  return Status::ok_status();
}

}  // namespace clport::cpu::detail
