// IQ4_NL (18 B per 32 elements): half d, qs[16]. Each 4-bit code indexes a fixed non-linear
// table (denser near zero, where most weight values sit); element j < 16 is the low nibble of
// qs[j], element j + 16 the high nibble; value = d * kIq4nlTable[code].
#include <cmath>

#include "quant/quant_blocks.h"

namespace clport::quant {
namespace {

constexpr int kBytes = 18;
// Candidate scales tried on each side of the range-based one; the table is non-uniform, so the
// best scale is often not the one that maps the largest magnitude to the table's end.
constexpr int kScaleCandidates = 8;
constexpr float kScaleCandidateStep = 1.0f;

// The index of the table entry nearest to v (the table is sorted).
int nearest_code(float v) {
  int best = 0;
  float best_dist = std::fabs(v - static_cast<float>(kIq4nlTable[0]));
  for (int i = 1; i < 16; ++i) {
    const float dist = std::fabs(v - static_cast<float>(kIq4nlTable[i]));
    if (dist < best_dist) {
      best_dist = dist;
      best = i;
    }
  }
  return best;
}

// The scale for one block: for each candidate inverse scale the codes are picked, the scale is
// re-fitted by least squares for those codes, and the fit with the smallest squared error wins.
float fit_block_scale(const float* x) {
  float extreme = 0.0f;  // largest magnitude with its sign: maps to the table's -127 end
  for (int i = 0; i < kQK; ++i) {
    if (std::fabs(x[i]) > std::fabs(extreme)) extreme = x[i];
  }
  if (extreme == 0.0f) return 0.0f;
  const float end = static_cast<float>(kIq4nlTable[0]);
  float best_scale = extreme / end;
  double best_err = -1.0;
  for (int c = -kScaleCandidates; c <= kScaleCandidates; ++c) {
    const float inv = (end + kScaleCandidateStep * c) / extreme;
    double sum_vx = 0, sum_vv = 0;
    int code[kQK];
    for (int i = 0; i < kQK; ++i) {
      code[i] = nearest_code(x[i] * inv);
      const double v = kIq4nlTable[code[i]];
      sum_vx += v * x[i];
      sum_vv += v * v;
    }
    if (sum_vv <= 0) continue;
    const double a = sum_vx / sum_vv;
    double err = 0;
    for (int i = 0; i < kQK; ++i) {
      const double e = a * kIq4nlTable[code[i]] - x[i];
      err += e * e;
    }
    if (best_err < 0 || err < best_err) {
      best_err = err;
      best_scale = static_cast<float>(a);
    }
  }
  return best_scale;
}

}  // namespace

void dequant_iq4_nl(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks) {
  for (int64_t b = 0; b < nblocks; ++b, src += kBytes, dst += kQK) {
    const float d = load_half(src);
    const uint8_t* qs = src + 2;
    for (int j = 0; j < 16; ++j) {
      dst[j] = d * static_cast<float>(kIq4nlTable[qs[j] & 0xf]);
      dst[j + 16] = d * static_cast<float>(kIq4nlTable[qs[j] >> 4]);
    }
  }
}

void quant_iq4_nl(const float* src, uint8_t* dst, int64_t nblocks) {
  for (int64_t b = 0; b < nblocks; ++b, src += kQK, dst += kBytes) {
    const float d = store_half(dst, fit_block_scale(src));
    const float inv = d != 0.0f ? 1.0f / d : 0.0f;
    for (int j = 0; j < 16; ++j) {
      // With d = 0 every code decodes to 0; code 8 (+1) is as good as any.
      const int lo = d != 0.0f ? nearest_code(src[j] * inv) : 8;
      const int hi = d != 0.0f ? nearest_code(src[j + 16] * inv) : 8;
      dst[2 + j] = static_cast<uint8_t>(lo | (hi << 4));
    }
  }
}

}  // namespace clport::quant
