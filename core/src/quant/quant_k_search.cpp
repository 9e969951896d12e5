// Scale searches for the K-quant encoders. Plain round-to-nearest from the min/max range leaves a
// lot of error on the table for 4-6 bit codes, so each sub-block tries a small set of candidate
// step sizes around the range-based one, re-fits scale (and offset) by least squares for the
// codes each candidate produces, and keeps the fit with the smallest squared error.
#include <algorithm>
#include <cmath>

#include "quant/quant_blocks.h"

namespace clport::quant {
namespace {

constexpr int kMaxSub = 32;      // largest K-quant sub-block
constexpr int kCandidates = 12;  // candidate step sizes tried on each side of the baseline
constexpr float kCandidateStep = 0.1f;

int quantize_code(float v, int lo, int hi) {
  return static_cast<int>(std::min<long>(std::max<long>(std::lround(v), lo), hi));
}

}  // namespace

void fit_scale_offset(const float* x, int n, int nmax, float* scale, float* offset) {
  float lo = 0.0f;  // the offset is stored non-negative, so the range always includes zero
  float hi = x[0];
  for (int i = 0; i < n; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  if (!(hi > lo)) {  // constant sub-block (all equal and <= 0): offset alone represents it
    *scale = 0.0f;
    *offset = -lo;
    return;
  }
  float best_scale = (hi - lo) / static_cast<float>(nmax);
  float best_min = lo;
  double best_err = 0.0;
  for (int i = 0; i < n; ++i) {
    const int q = quantize_code((x[i] - lo) / best_scale, 0, nmax);
    const double e = best_scale * q + lo - x[i];
    best_err += e * e;
  }

  int q[kMaxSub];
  for (int c = -kCandidates; c <= kCandidates; ++c) {
    const float inv_step = (static_cast<float>(nmax) + kCandidateStep * c) / (hi - lo);
    double sum_q = 0, sum_qq = 0, sum_x = 0, sum_qx = 0;
    for (int i = 0; i < n; ++i) {
      q[i] = quantize_code((x[i] - lo) * inv_step, 0, nmax);
      sum_q += q[i];
      sum_qq += static_cast<double>(q[i]) * q[i];
      sum_x += x[i];
      sum_qx += static_cast<double>(q[i]) * x[i];
    }
    // Least squares for x ~= a*q + b, with b <= 0 (b is minus the stored offset).
    const double det = n * sum_qq - sum_q * sum_q;
    if (det <= 0) continue;
    double a = (n * sum_qx - sum_q * sum_x) / det;
    double b = (sum_qq * sum_x - sum_q * sum_qx) / det;
    if (b > 0) {
      b = 0;
      a = sum_qx / sum_qq;
    }
    if (a <= 0) continue;
    double err = 0;
    for (int i = 0; i < n; ++i) {
      const double e = a * q[i] + b - x[i];
      err += e * e;
    }
    if (err < best_err) {
      best_err = err;
      best_scale = static_cast<float>(a);
      best_min = static_cast<float>(b);
    }
  }
  *scale = best_scale;
  *offset = -best_min;
}

float fit_scale_symmetric(const float* x, int n, int qmin, int qmax) {
  float max = 0.0f;  // largest magnitude, with its sign: it takes the qmin end of the range
  for (int i = 0; i < n; ++i) {
    if (std::fabs(x[i]) > std::fabs(max)) max = x[i];
  }
  if (max == 0.0f) return 0.0f;
  const float base = static_cast<float>(-qmin);
  float best_scale = max / -base;
  double best_err = -1.0;
  for (int c = -kCandidates; c <= kCandidates; ++c) {
    const float inv_scale = -(base + kCandidateStep * c) / max;
    double sum_qx = 0, sum_qq = 0;
    int q[kMaxSub];
    for (int i = 0; i < n; ++i) {
      q[i] = quantize_code(x[i] * inv_scale, qmin, qmax);
      sum_qx += static_cast<double>(q[i]) * x[i];
      sum_qq += static_cast<double>(q[i]) * q[i];
    }
    if (sum_qq <= 0) continue;
    const double a = sum_qx / sum_qq;
    double err = 0;
    for (int i = 0; i < n; ++i) {
      const double e = a * q[i] - x[i];
      err += e * e;
    }
    if (best_err < 0 || err < best_err) {
      best_err = err;
      best_scale = static_cast<float>(a);
    }
  }
  return best_scale;
}

}  // namespace clport::quant
