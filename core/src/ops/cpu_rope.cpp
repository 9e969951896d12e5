// ROPE on src0[head_dim, n_head, n_tokens]: token t sits at position pos0 + t; pair i (0 <= i <
// n_rot/2) is rotated by theta_i = pos * freq_scale * freq_base^(-2i / n_rot), divided by the
// frequency factor src1[i] when one is given (Llama 3.x rope_freqs, Phi-3 LongRoPE). Mode 0 pairs
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

RopeArgs rope_args(const Srcs& src, const OpParams& p) {
  RopeArgs a;
  a.mode = p.rope.mode;
  a.pos0 = p.n_past;
  a.n_rot = p.rope.n_rot;
  a.base = p.rope.freq_base;
  a.freq_scale = p.rope.freq_scale;
  a.factors = src.size() == 2 ? row_f32(src[1], 0) : nullptr;
  return a;
}

Status check_rope_operands(const Srcs& src, const HostTensor& dst, const OpParams& p) {
  constexpr const char* kOp = "rope";
  CLPORT_RETURN_IF_ERROR(check_src_count(kOp, src, 1, 2));
  const HostTensor& x = src[0];
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "src0", x, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "dst", dst, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_same_shape(kOp, "src0", x, "dst", dst));
  const RopeArgs a = rope_args(src, p);
  if (a.mode != kModeNormal && a.mode != kModeNeox) {
    return unsupported(kOp, "mode " + std::to_string(a.mode) + " is not 0 (normal) or 2 (NeoX)");
  }
  if (a.n_rot <= 0 || a.n_rot % 2 != 0 || a.n_rot > x.ne[0]) {
    return invalid(kOp, "n_rot = " + std::to_string(a.n_rot) +
                           " must be even and in (0, head_dim = " + std::to_string(x.ne[0]) + "]");
  }
  if (!(a.base > 0.0) || !std::isfinite(a.base)) return invalid(kOp, "freq_base must be > 0");
  if (!(a.freq_scale > 0.0) || !std::isfinite(a.freq_scale)) {
    return invalid(kOp, "freq_scale must be > 0 (1 = no scaling)");
  }
  if (src.size() == 2) {
    const HostTensor& ff = src[1];
    CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "src1 (frequency factors)", ff, {DType::F32}));
    if (ff.ne[0] != a.n_rot / 2 || rows(ff) != 1) {
      return invalid(kOp, "frequency factors " + describe(ff) + " must be [n_rot / 2 = " +
                             std::to_string(a.n_rot / 2) + "]");
    }
    for (int64_t i = 0; i < a.n_rot / 2; ++i) {
      if (!(a.factors[i] > 0.0f) || !std::isfinite(a.factors[i])) {
        return invalid(kOp, "frequency factor " + std::to_string(i) + " must be positive and finite");
      }
    }
  }
  return Status::ok_status();
}

void rope_cos_sin_table(const RopeArgs& a, int64_t n_tokens, float* cos_out, float* sin_out) {
  const int64_t half = a.n_rot / 2;
  // In double: this is the reference every device's angles are judged against.
  for (int64_t t = 0; t < n_tokens; ++t) {
    const double pos = static_cast<double>(a.pos0 + t) * a.freq_scale;
    for (int64_t i = 0; i < half; ++i) {
      double theta = pos * std::pow(a.base, -2.0 * static_cast<double>(i) / static_cast<double>(a.n_rot));
      if (a.factors != nullptr) theta /= static_cast<double>(a.factors[i]);
      cos_out[t * half + i] = static_cast<float>(std::cos(theta));
      sin_out[t * half + i] = static_cast<float>(std::sin(theta));
    }
  }
}

void rope_rotate_row(const RopeArgs& a, int64_t head_dim, const float* in, float* out, const float* c,
                     const float* s) {
  const int64_t half = a.n_rot / 2;
  const int64_t stride = a.mode == kModeNeox ? half : 1;  // distance between the two pair members
  for (int64_t i = 0; i < half; ++i) {
    const int64_t e = a.mode == kModeNeox ? i : 2 * i;
    const float x0 = in[e];
    const float x1 = in[e + stride];
    out[e] = x0 * c[i] - x1 * s[i];
    out[e + stride] = x0 * s[i] + x1 * c[i];
  }
  if (out != in) {
    for (int64_t i = a.n_rot; i < head_dim; ++i) out[i] = in[i];
  }
}

Status rope(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads) {
  const RopeArgs a = rope_args(src, p);
  const HostTensor& x = src[0];
  const int64_t half = a.n_rot / 2, head_dim = x.ne[0], n_tokens = x.ne[2];
  // Angles depend only on the token, so cos/sin are computed once per token.
  std::vector<float> cos_t(static_cast<size_t>(n_tokens * half)), sin_t(cos_t.size());
  rope_cos_sin_table(a, n_tokens, cos_t.data(), sin_t.data());
  run_parallel(plan_threads(rows(x), 6.0 * static_cast<double>(head_dim), n_threads), rows(x),
               [&](int, int64_t begin, int64_t end) {
                 for (int64_t r = begin; r < end; ++r) {
                   const int64_t t = (r / x.ne[1]) % n_tokens;
                   rope_rotate_row(a, head_dim, flat_row_f32(x, r), flat_row_f32(dst, r), cos_t.data() + t * half,
                                   sin_t.data() + t * half);
                 }
               });
  return Status::ok_status();
}

}  // namespace clport::cpu::detail
