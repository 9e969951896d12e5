// Float kernels of the fast CPU backend for the ops around the mat-muls: RMS_NORM's reduction
// and scaling, SWIGLU, and attention over an F16 / F32 KV cache that reads the cache rows in
// place (the reference converts the whole used cache to F32 on every call). Highway compiles
// this file once per instruction set; every op works in full-width float vectors.
#include "cpu_backend/simd_kernel_build.h"  // before Highway: see why there
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu_backend/simd_op_kernels.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>
// Needs highway.h first.
#include <hwy/contrib/math/math-inl.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpu_backend/simd_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace clport::fastcpu {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;

// Row `i` .. i + Lanes of an F16 or F32 cache row as floats.
HWY_INLINE hn::Vec<DF> LoadCache(DF df, const uint8_t* row, bool f16, int64_t i) {
  if (f16) {
    const hn::Rebind<hwy::float16_t, DF> dh;
    return hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(row) + i));
  }
  return hn::LoadU(df, reinterpret_cast<const float*>(row) + i);
}

HWY_INLINE float LoadCacheScalar(const uint8_t* row, bool f16, int64_t i) {
  if (f16) {
    uint16_t h;
    std::memcpy(&h, row + 2 * i, sizeof h);
    return half_to_float_inline(h);
  }
  float f;
  std::memcpy(&f, row + 4 * i, sizeof f);
  return f;
}

}  // namespace

float SumOfSquares(const float* x, int64_t n) {
  const DF df;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  auto acc = hn::Zero(df);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(df, x + i);
    acc = hn::MulAdd(v, v, acc);
  }
  float sum = hn::GetLane(hn::SumOfLanes(df, acc));
  for (; i < n; ++i) sum += x[i] * x[i];
  return sum;
}

void ScaleRow(const float* x, float scale, const float* w, float* out, int64_t n) {
  const DF df;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  const auto s = hn::Set(df, scale);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    auto v = hn::Mul(hn::LoadU(df, x + i), s);
    if (w != nullptr) v = hn::Mul(v, hn::LoadU(df, w + i));
    hn::StoreU(v, df, out + i);
  }
  for (; i < n; ++i) out[i] = x[i] * scale * (w != nullptr ? w[i] : 1.0f);
}

void SwigluRow(const float* gate, const float* up, float* out, int64_t n) {
  const DF df;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  const auto one = hn::Set(df, 1.0f);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto g = hn::LoadU(df, gate + i);
    const auto silu = hn::Div(g, hn::Add(one, hn::Exp(df, hn::Neg(g))));
    hn::StoreU(hn::Mul(silu, hn::LoadU(df, up + i)), df, out + i);
  }
  for (; i < n; ++i) out[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

// GELU (tanh approximation) of the gate times up: 0.5 g (1 + tanh(sqrt(2/pi) (g + 0.044715 g^3))).
void GegluRow(const float* gate, const float* up, float* out, int64_t n) {
  constexpr float kSqrt2OverPi = 0.7978845608f;
  constexpr float kCubic = 0.044715f;
  const DF df;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  const auto half = hn::Set(df, 0.5f);
  const auto one = hn::Set(df, 1.0f);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto g = hn::LoadU(df, gate + i);
    const auto inner = hn::Mul(hn::Set(df, kSqrt2OverPi), hn::MulAdd(hn::Mul(hn::Set(df, kCubic), g), hn::Mul(g, g), g));
    const auto gelu = hn::Mul(hn::Mul(half, g), hn::Add(one, hn::Tanh(df, inner)));
    hn::StoreU(hn::Mul(gelu, hn::LoadU(df, up + i)), df, out + i);
  }
  for (; i < n; ++i) {
    const float g = gate[i];
    out[i] = 0.5f * g * (1.0f + std::tanh(kSqrt2OverPi * (g + kCubic * g * g * g))) * up[i];
  }
}

// Scores s[0 .. n) -> exp(s - max s) in place; returns their sum (the softmax's denominator).
// The row maximum is subtracted so that large scores do not overflow.
HWY_INLINE double ExpScoresRow(float* s, int64_t n) {
  const DF df;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  const float max = *std::max_element(s, s + n);
  const auto vmax = hn::Set(df, max);
  auto vsum = hn::Zero(df);
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    const auto e = hn::Exp(df, hn::Sub(hn::LoadU(df, s + j), vmax));
    hn::StoreU(e, df, s + j);
    vsum = hn::Add(vsum, e);
  }
  double sum = hn::GetLane(hn::SumOfLanes(df, vsum));
  for (; j < n; ++j) {
    s[j] = std::exp(s[j] - max);
    sum += s[j];
  }
  return sum;
}

#if !HWY_HAVE_SCALABLE
// Loops over the NH heads are unrolled so that their accumulators stay in registers (at -O2 GCC
// keeps such arrays in memory otherwise).
#define CLPORT_OP_UNROLL _Pragma("GCC unroll 4")

// Attention of NH query heads (heads g0 .. g0 + NH - 1 of the group), NH <= 4: each K and V row is
// loaded (and widened) once for all of them, and every head keeps two accumulators per key, so
// the multiply-adds of one dot product do not wait on one another.
template <int NH>
HWY_INLINE void AttentionHeads(const AttentionGroup& a, int64_t g0) {
  const DF df;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  const int64_t hd = a.head_dim;
  const int64_t vec_end = hd - hd % lanes;
  const float* q[NH];
  float* scores[NH];
  CLPORT_OP_UNROLL
  for (int h = 0; h < NH; ++h) {
    q[h] = a.q + (g0 + h) * a.q_head_stride;
    scores[h] = a.scores + (g0 + h) * a.n_keys;
  }
  for (int64_t j = 0; j < a.n_keys; ++j) {
    const uint8_t* k = a.k + j * a.k_pos_stride;
    hn::Vec<DF> even[NH], odd[NH];
    CLPORT_OP_UNROLL
    for (int h = 0; h < NH; ++h) even[h] = odd[h] = hn::Zero(df);
    int64_t i = 0;
    for (; i + 2 * lanes <= vec_end; i += 2 * lanes) {
      const auto k0 = LoadCache(df, k, a.k_f16, i);
      const auto k1 = LoadCache(df, k, a.k_f16, i + lanes);
      CLPORT_OP_UNROLL
      for (int h = 0; h < NH; ++h) {
        even[h] = hn::MulAdd(hn::LoadU(df, q[h] + i), k0, even[h]);
        odd[h] = hn::MulAdd(hn::LoadU(df, q[h] + i + lanes), k1, odd[h]);
      }
    }
    if (i < vec_end) {
      const auto k0 = LoadCache(df, k, a.k_f16, i);
      CLPORT_OP_UNROLL
      for (int h = 0; h < NH; ++h) even[h] = hn::MulAdd(hn::LoadU(df, q[h] + i), k0, even[h]);
    }
    CLPORT_OP_UNROLL
    for (int h = 0; h < NH; ++h) {
      float dot = hn::GetLane(hn::SumOfLanes(df, hn::Add(even[h], odd[h])));
      for (int64_t t = vec_end; t < hd; ++t) dot += q[h][t] * LoadCacheScalar(k, a.k_f16, t);
      scores[h][j] = a.scale * dot;
    }
  }
  float inv_sum[NH];
  CLPORT_OP_UNROLL
  for (int h = 0; h < NH; ++h) {
    float* s = scores[h];
    const double sum = ExpScoresRow(s, a.n_keys);
    inv_sum[h] = static_cast<float>(1.0 / sum);
  }
  // out_h = sum_j p_hj v_j, two vectors of the head at a time: 2 NH accumulators in registers
  // over all keys instead of a load and store of the output per key.
  int64_t i = 0;
  for (; i + 2 * lanes <= vec_end; i += 2 * lanes) {
    hn::Vec<DF> lo[NH], hi[NH];
    CLPORT_OP_UNROLL
    for (int h = 0; h < NH; ++h) lo[h] = hi[h] = hn::Zero(df);
    for (int64_t j = 0; j < a.n_keys; ++j) {
      const uint8_t* v = a.v + j * a.v_pos_stride;
      const auto v0 = LoadCache(df, v, a.v_f16, i);
      const auto v1 = LoadCache(df, v, a.v_f16, i + lanes);
      CLPORT_OP_UNROLL
      for (int h = 0; h < NH; ++h) {
        const auto p = hn::Set(df, scores[h][j]);
        lo[h] = hn::MulAdd(p, v0, lo[h]);
        hi[h] = hn::MulAdd(p, v1, hi[h]);
      }
    }
    CLPORT_OP_UNROLL
    for (int h = 0; h < NH; ++h) {
      float* out = a.out + (g0 + h) * a.out_head_stride;
      hn::StoreU(hn::Mul(lo[h], hn::Set(df, inv_sum[h])), df, out + i);
      hn::StoreU(hn::Mul(hi[h], hn::Set(df, inv_sum[h])), df, out + i + lanes);
    }
  }
  for (; i < vec_end; i += lanes) {
    hn::Vec<DF> acc[NH];
    CLPORT_OP_UNROLL
    for (int h = 0; h < NH; ++h) acc[h] = hn::Zero(df);
    for (int64_t j = 0; j < a.n_keys; ++j) {
      const auto v0 = LoadCache(df, a.v + j * a.v_pos_stride, a.v_f16, i);
      CLPORT_OP_UNROLL
      for (int h = 0; h < NH; ++h) acc[h] = hn::MulAdd(hn::Set(df, scores[h][j]), v0, acc[h]);
    }
    CLPORT_OP_UNROLL
    for (int h = 0; h < NH; ++h) {
      hn::StoreU(hn::Mul(acc[h], hn::Set(df, inv_sum[h])), df, a.out + (g0 + h) * a.out_head_stride + i);
    }
  }
  for (; i < hd; ++i) {
    CLPORT_OP_UNROLL
    for (int h = 0; h < NH; ++h) {
      float sum = 0.0f;
      for (int64_t j = 0; j < a.n_keys; ++j) sum += scores[h][j] * LoadCacheScalar(a.v + j * a.v_pos_stride, a.v_f16, i);
      a.out[(g0 + h) * a.out_head_stride + i] = sum * inv_sum[h];
    }
  }
}

void AttentionGroupKernel(const AttentionGroup& a) {
  for (int64_t g0 = 0; g0 < a.n_heads; g0 += 4) {
    switch (std::min<int64_t>(4, a.n_heads - g0)) {
      case 4: AttentionHeads<4>(a, g0); break;
      case 3: AttentionHeads<3>(a, g0); break;
      case 2: AttentionHeads<2>(a, g0); break;
      default: AttentionHeads<1>(a, g0); break;
    }
  }
}
#else
// Scalable vectors (SVE) cannot live in the arrays above: those targets take one head at a time,
// each K row still read once for all heads of the group.
void AttentionGroupKernel(const AttentionGroup& a) {
  const DF df;
  const auto lanes = static_cast<int64_t>(hn::Lanes(df));
  const int64_t hd = a.head_dim;
  const int64_t vec_end = hd - hd % lanes;
  // Scores: each K row is read (and converted) once for all query heads of the group.
  for (int64_t j = 0; j < a.n_keys; ++j) {
    const uint8_t* k = a.k + j * a.k_pos_stride;
    for (int64_t g = 0; g < a.n_heads; ++g) {
      const float* q = a.q + g * a.q_head_stride;
      auto acc = hn::Zero(df);
      for (int64_t i = 0; i < vec_end; i += lanes)
        acc = hn::MulAdd(hn::LoadU(df, q + i), LoadCache(df, k, a.k_f16, i), acc);
      float dot = hn::GetLane(hn::SumOfLanes(df, acc));
      for (int64_t i = vec_end; i < hd; ++i) dot += q[i] * LoadCacheScalar(k, a.k_f16, i);
      a.scores[g * a.n_keys + j] = a.scale * dot;
    }
  }
  for (int64_t g = 0; g < a.n_heads; ++g) {
    float* s = a.scores + g * a.n_keys;
    const double sum = ExpScoresRow(s, a.n_keys);
    float* out = a.out + g * a.out_head_stride;
    std::fill(out, out + hd, 0.0f);
    for (int64_t jj = 0; jj < a.n_keys; ++jj) {
      const uint8_t* v = a.v + jj * a.v_pos_stride;
      const auto p = hn::Set(df, s[jj]);
      for (int64_t i = 0; i < vec_end; i += lanes)
        hn::StoreU(hn::MulAdd(p, LoadCache(df, v, a.v_f16, i), hn::LoadU(df, out + i)), df,
                   out + i);
      for (int64_t i = vec_end; i < hd; ++i) out[i] += s[jj] * LoadCacheScalar(v, a.v_f16, i);
    }
    ScaleRow(out, static_cast<float>(1.0 / sum), nullptr, out, hd);
  }
}
#endif  // !HWY_HAVE_SCALABLE

int64_t OpKernelsTarget() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace clport::fastcpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace clport::fastcpu {

HWY_EXPORT(SumOfSquares);
HWY_EXPORT(ScaleRow);
HWY_EXPORT(SwigluRow);
HWY_EXPORT(GegluRow);
HWY_EXPORT(AttentionGroupKernel);
HWY_EXPORT(OpKernelsTarget);

float sum_of_squares(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(SumOfSquares)(x, n); }

void scale_row(const float* x, float scale, const float* w, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ScaleRow)(x, scale, w, out, n);
}

void swiglu_row(const float* gate, const float* up, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(SwigluRow)(gate, up, out, n);
}

void geglu_row(const float* gate, const float* up, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(GegluRow)(gate, up, out, n);
}

void attention_group(const AttentionGroup& g) { HWY_DYNAMIC_DISPATCH(AttentionGroupKernel)(g); }

std::string simd_op_target_name() {
  use_safe_simd_targets();
  return hwy::TargetName(HWY_DYNAMIC_DISPATCH(OpKernelsTarget)());
}

}  // namespace clport::fastcpu
#endif  // HWY_ONCE
