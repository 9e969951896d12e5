// MUL_MAT kernels of the fast CPU backend: integer dot products of every quantized weight dtype
// with 8-bit activations (quantized by simd_quantize_kernels.cpp), float ones for F32 / F16
// weights; Highway compiles this file once per instruction set (foreach_target.h re-includes it).
//
// The integer dot works on 32 weight codes at a time, made non-negative (Q4_0's and Q5_0's offsets
// of 8 and 16, Q6_K's 32, are taken out through the activation block sums) so that one unsigned x
// signed byte multiply-add (x86 pmaddubsw) then a 16-bit one (pmaddwd, which also applies a K-quant
// sub-block scale) give 32-bit partial sums; other targets use 16-bit widening multiplies.
//
// SVE / SVE2 are left out: their vectors cannot live in the arrays used here, and no SVE machine
// has run this code; ARM gets NEON. HWY_SCALAR, the fallback for CPUs without any SIMD target
// (and what GCC < 12.3 builds instead of EMU128), runs the plain reference (scalar_reference.cpp).
#include "cpu_backend/simd_kernel_build.h"  // before Highway: see why there
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)
#endif
// AVX3_DL (Ice Lake and later, Zen 4) adds AVX512-VNNI's byte dot product; Highway builds that
// target only on request.
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu_backend/simd_matmul_kernels.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>

#include "cpu_backend/activation_blocks.h"
#include "cpu_backend/scalar_reference.h"
#include "cpu_backend/simd_kernels.h"
#include "cpu_backend/weight_prefetch.h"

// Loops over activation rows and vector parts are unrolled so that per-row accumulators stay in
// registers (at -O2 GCC keeps them in memory otherwise, and every block pays a store-forward).
#ifndef CLPORT_UNROLL
#define CLPORT_UNROLL _Pragma("GCC unroll 8")
#endif

HWY_BEFORE_NAMESPACE();
namespace clport::fastcpu {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
// 32-byte integer vectors where the target has them (one 32-value block per vector), else 16.
#undef CLPORT_FASTCPU_X86_256
#undef CLPORT_FASTCPU_X86_128
// CLPORT_FASTCPU_PORTABLE_KERNELS (a test switch) makes the x86 targets run the portable code
// that NEON and the other 16-byte targets use, so that code can be run here.
#undef CLPORT_FASTCPU_VNNI
#if HWY_TARGET == HWY_AVX3_DL && !defined(CLPORT_FASTCPU_PORTABLE_KERNELS)
#define CLPORT_FASTCPU_VNNI 1
#endif
#if defined(CLPORT_FASTCPU_PORTABLE_KERNELS)
constexpr size_t kVecBytes = 16;
#elif HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#define CLPORT_FASTCPU_X86_256 1
constexpr size_t kVecBytes = 32;
#elif HWY_TARGET == HWY_SSSE3 || HWY_TARGET == HWY_SSE4
#define CLPORT_FASTCPU_X86_128 1
constexpr size_t kVecBytes = 16;
#else
constexpr size_t kVecBytes = 16;
#endif
constexpr int kParts = static_cast<int>(32 / kVecBytes);  // vectors per 32 codes

using DU8 = hn::CappedTag<uint8_t, kVecBytes>;
using DI8 = hn::CappedTag<int8_t, kVecBytes>;
using DI32 = hn::Repartition<int32_t, DI8>;
using DF32 = hn::Repartition<float, DI8>;
using VU8 = hn::Vec<DU8>;
using VI8 = hn::Vec<DI8>;
using VI32 = hn::Vec<DI32>;
using VF32 = hn::Vec<DF32>;

// Partial sums of w[i] * a[i] * scale (w unsigned codes <= 63, |a| <= 127, |scale| <= 128) in
// 32-bit lanes. scale_lo applies to bytes 0..15 of the vector, scale_hi to bytes 16..31 (only
// 32-byte vectors have those).
HWY_INLINE VI32 DotU8I8(VU8 w, VI8 a, int16_t scale_lo, int16_t scale_hi) {
#if defined(CLPORT_FASTCPU_X86_256)
  const __m256i pairs = _mm256_maddubs_epi16(w.raw, a.raw);
  const __m256i scales = _mm256_set_m128i(_mm_set1_epi16(scale_hi), _mm_set1_epi16(scale_lo));
  return VI32{_mm256_madd_epi16(pairs, scales)};
#elif defined(CLPORT_FASTCPU_X86_128)
  (void)scale_hi;
  const __m128i pairs = _mm_maddubs_epi16(w.raw, a.raw);
  return VI32{_mm_madd_epi16(pairs, _mm_set1_epi16(scale_lo))};
#else
  (void)scale_hi;
  const DI8 di8;
  const hn::Half<DI8> dh8;
  const hn::Rebind<int16_t, decltype(dh8)> d16;
  const DI32 d32;
  const VI8 wi = hn::BitCast(di8, w);  // codes <= 63 keep their value as int8
  const auto scale = hn::Set(d16, scale_lo);
  const auto w_lo = hn::Mul(hn::PromoteTo(d16, hn::LowerHalf(dh8, wi)), scale);
  const auto w_hi = hn::Mul(hn::PromoteTo(d16, hn::UpperHalf(dh8, wi)), scale);
  auto sum1 = hn::Zero(d32);
  auto sum0 = hn::ReorderWidenMulAccumulate(d32, w_lo, hn::PromoteTo(d16, hn::LowerHalf(dh8, a)),
                                            hn::Zero(d32), sum1);
  sum0 = hn::ReorderWidenMulAccumulate(d32, w_hi, hn::PromoteTo(d16, hn::UpperHalf(dh8, a)), sum0,
                                       sum1);
  return hn::Add(sum0, sum1);
#endif
}

// Partial sums of w[i] * a[i] for signed codes (Q8_0 weights).
HWY_INLINE VI32 DotI8I8(VI8 w, VI8 a) {
#if defined(CLPORT_FASTCPU_VNNI)
  const __m256i abs_w = _mm256_sign_epi8(w.raw, w.raw);
  const __m256i a_signed = _mm256_sign_epi8(a.raw, w.raw);
  __m256i sum = _mm256_setzero_si256();
  __asm__("%{evex%} vpdpbusd %[a], %[w], %[sum]"
          : [sum] "+v"(sum)
          : [w] "v"(abs_w), [a] "v"(a_signed));
  return VI32{sum};
#elif defined(CLPORT_FASTCPU_X86_256)
  // |w| x (a with w's sign): the unsigned x signed multiply-add then sees w's magnitude.
  const __m256i pairs =
      _mm256_maddubs_epi16(_mm256_sign_epi8(w.raw, w.raw), _mm256_sign_epi8(a.raw, w.raw));
  return VI32{_mm256_madd_epi16(pairs, _mm256_set1_epi16(1))};
#elif defined(CLPORT_FASTCPU_X86_128)
  const __m128i pairs = _mm_maddubs_epi16(_mm_sign_epi8(w.raw, w.raw), _mm_sign_epi8(a.raw, w.raw));
  return VI32{_mm_madd_epi16(pairs, _mm_set1_epi16(1))};
#else
  const hn::Half<DI8> dh8;
  const hn::Rebind<int16_t, decltype(dh8)> d16;
  const DI32 d32;
  auto sum1 = hn::Zero(d32);
  auto sum0 =
      hn::ReorderWidenMulAccumulate(d32, hn::PromoteTo(d16, hn::LowerHalf(dh8, w)),
                                    hn::PromoteTo(d16, hn::LowerHalf(dh8, a)), hn::Zero(d32), sum1);
  sum0 = hn::ReorderWidenMulAccumulate(d32, hn::PromoteTo(d16, hn::UpperHalf(dh8, w)),
                                       hn::PromoteTo(d16, hn::UpperHalf(dh8, a)), sum0, sum1);
  return hn::Add(sum0, sum1);
#endif
}

#if defined(CLPORT_FASTCPU_VNNI)
// acc + per 32-bit lane sum of four unsigned x signed byte products (vpdpbusd, no 16-bit saturation
// step). Assembly: Highway's AVX3_DL target attributes name AVX-VNNI (the VEX form, which Ice Lake
// lacks), not AVX512-VNNI, whose EVEX form the run-time check for this target guarantees.
HWY_INLINE VI32 DpBusd(VI32 acc, VU8 w, VI8 a) {
  __m256i sum = acc.raw;
  __asm__("%{evex%} vpdpbusd %[a], %[w], %[sum]"
          : [sum] "+v"(sum)
          : [w] "v"(w.raw), [a] "v"(a.raw));
  return VI32{sum};
}
#endif

// sum w[i] * a[i] in 32-bit lanes, unscaled (the 32-value formats).
HWY_INLINE VI32 DotU8I8Unscaled(VU8 w, VI8 a) {
#if defined(CLPORT_FASTCPU_VNNI)
  return DpBusd(hn::Zero(DI32()), w, a);
#else
  return DotU8I8(w, a, 1, 1);
#endif
}

HWY_INLINE float SumLanes(VF32 v) { return hn::GetLane(hn::SumOfLanes(DF32(), v)); }

// A weight block's half scale: one F16C instruction where the target has it (the 256-bit x86
// targets), else the exact bit conversion.
HWY_INLINE float LoadHalf(const uint8_t* p) {
#if defined(CLPORT_FASTCPU_X86_256)
  uint16_t h;
  std::memcpy(&h, p, sizeof h);
  return _cvtsh_ss(h);
#else
  return load_half_inline(p);
#endif
}

// ---- 32-value weight blocks (Q4_0, Q4_1, Q5_0, Q5_1) ------------------------------------------

// 16 bytes of nibbles -> 32 codes: element j < 16 is the low nibble of byte j, element j + 16 its
// high nibble.
HWY_INLINE void UnpackNibbles(const uint8_t* qs, VU8 q[kParts]) {
#if defined(CLPORT_FASTCPU_X86_256)
  // The 16 bytes in both halves, the upper half shifted down a nibble: one load, one shift, one
  // blend and one mask.
  const DU8 du8;
  const hn::Repartition<uint16_t, DU8> du16;
  const VU8 bytes = hn::LoadDup128(du8, qs);
  const VU8 shifted = hn::BitCast(du8, hn::ShiftRight<4>(hn::BitCast(du16, bytes)));
  q[0] = hn::And(hn::ConcatUpperLower(du8, shifted, bytes), hn::Set(du8, uint8_t{0x0f}));
#else
  const DU8 du8;
  const auto bytes = hn::LoadU(du8, qs);
  q[0] = hn::And(bytes, hn::Set(du8, uint8_t{0x0f}));
  q[1] = hn::ShiftRight<4>(bytes);
#endif
}

// Bit j of the little-endian word qh, as 16 in byte j (the fifth bit of a Q5_0 / Q5_1 code).
constexpr uint8_t kFifthBitByte[32] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                       2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3};
constexpr uint8_t kFifthBitMask[32] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128,
                                       1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};

HWY_INLINE void AddFifthBits(const uint8_t* qh_bytes, VU8 q[kParts]) {
  const DU8 du8;
  const hn::Repartition<uint32_t, DU8> du32;
  uint32_t qh;
  std::memcpy(&qh, qh_bytes, sizeof qh);
  // Every 128-bit block holds the four qh bytes, so the in-block byte shuffle can pick byte j / 8.
  const VU8 words = hn::BitCast(du8, hn::Set(du32, qh));
  CLPORT_UNROLL
  for (int p = 0; p < kParts; ++p) {
    const VU8 picked = hn::TableLookupBytes(words, hn::LoadU(du8, kFifthBitByte + p * kVecBytes));
    const auto set = hn::TestBit(picked, hn::LoadU(du8, kFifthBitMask + p * kVecBytes));
    q[p] = hn::Or(q[p], hn::IfThenElseZero(set, hn::Set(du8, uint8_t{16})));
  }
}

// The weight scale and minimum of a block as the float pair (d, m), so one multiply by the
// activation block's (d, s) gives both d_w * d_a and m_w * s_a.
using DF2 = hn::CappedTag<float, 2>;
using VF2 = hn::Vec<DF2>;

// Blocks that store d and m as two halves at the start (Q4_1, Q5_1).
HWY_INLINE VF2 HalfPair(const uint8_t* b) {
  const DF2 df2;
  const hn::Rebind<hwy::float16_t, DF2> dh2;
  return hn::PromoteTo(df2, hn::LoadU(dh2, reinterpret_cast<const hwy::float16_t*>(b)));
}

// Symmetric blocks (Q4_0, Q5_0): codes q - offset are stored as q, so m = -offset * d.
HWY_INLINE VF2 ScaleAndOffset(const uint8_t* b, float offset) {
  const DF2 df2;
  alignas(8) const float factors[2] = {1.0f, -offset};
  return hn::Mul(hn::Set(df2, LoadHalf(b)), hn::Load(df2, factors));
}

// One weight block as unsigned codes q with value = d * q + m.
struct Q4_0 {
  static constexpr int64_t kBytes = 18;
  static HWY_INLINE VF2 Decode(const uint8_t* b, VU8 q[kParts]) {
    UnpackNibbles(b + 2, q);
    return ScaleAndOffset(b, 8.0f);
  }
};
struct Q4_1 {
  static constexpr int64_t kBytes = 20;
  static HWY_INLINE VF2 Decode(const uint8_t* b, VU8 q[kParts]) {
    UnpackNibbles(b + 4, q);
    return HalfPair(b);
  }
};
struct Q5_0 {
  static constexpr int64_t kBytes = 22;
  static HWY_INLINE VF2 Decode(const uint8_t* b, VU8 q[kParts]) {
    UnpackNibbles(b + 6, q);
    AddFifthBits(b + 2, q);
    return ScaleAndOffset(b, 16.0f);
  }
};
struct Q5_1 {
  static constexpr int64_t kBytes = 24;
  static HWY_INLINE VF2 Decode(const uint8_t* b, VU8 q[kParts]) {
    UnpackNibbles(b + 8, q);
    AddFifthBits(b + 4, q);
    return HalfPair(b);
  }
};

// An activation block's 32 codes, in kParts vectors.
HWY_INLINE void LoadActivationCodes(const Q8Block32& a, VI8 qa[kParts]) {
  const DI8 di8;
  CLPORT_UNROLL
  for (int p = 0; p < kParts; ++p) qa[p] = hn::LoadU(di8, a.qs + p * kVecBytes);
}

// sum(q * qa) of one block, in 32-bit lanes.
HWY_INLINE VI32 DotCodes(const VU8 q[kParts], const VI8 qa[kParts]) {
  VI32 sum = DotU8I8Unscaled(q[0], qa[0]);
  CLPORT_UNROLL
  for (int p = 1; p < kParts; ++p) sum = hn::Add(sum, DotU8I8Unscaled(q[p], qa[p]));
  return sum;
}

// acc += d_w * d_a * sum; lane 1 of scaled collects m_w * s_a (lane 0 collects d_w * d_a and is
// ignored). dm is the weight block's (d, m).
HWY_INLINE void AddBlock32(VF2 dm, VI32 sum, const Q8Block32& a, VF32& acc, VF2& scaled) {
  static_assert(offsetof(Q8Block32, s) == offsetof(Q8Block32, d) + sizeof(float), "d, s pair");
  const DF32 df;
  const VF2 products = hn::Mul(dm, hn::LoadU(DF2(), &a.d));  // (d_w d_a, m_w s_a)
  acc = hn::MulAdd(hn::Set(df, hn::GetLane(products)), hn::ConvertTo(df, sum), acc);
  scaled = hn::Add(scaled, products);
}

// Block b of a weight row against MR activation rows: acc[r] += d_w * d_a * sum(q * qa); lane 1
// of scaled[r] collects m_w * s_a (lane 0 collects d_w * d_a and is ignored).
template <class Format, int MR>
HWY_INLINE void Block32Step(const uint8_t* w, int64_t b, const uint8_t* const* acts, VF32* acc,
                            VF2* scaled) {
  VU8 q[kParts];
  const VF2 dm = Format::Decode(w + b * Format::kBytes, q);
  CLPORT_UNROLL
  for (int r = 0; r < MR; ++r) {
    const Q8Block32& a = reinterpret_cast<const Q8Block32*>(acts[r])[b];
    VI8 qa[kParts];
    LoadActivationCodes(a, qa);
    AddBlock32(dm, DotCodes(q, qa), a, acc[r], scaled[r]);
  }
}

// sum_i w[i] * a[i] = sum_blocks d_w * d_a * sum(q * qa) + m_w * s_a. Even and odd blocks
// accumulate separately, so consecutive blocks do not wait on one multiply-add chain.
template <class Format, int MR>
void DotBlock32Rows(const uint8_t* w, int64_t nb, const uint8_t* const* acts, float* out) {
  const DF32 df;
  const DF2 df2;
  VF32 even[MR], odd[MR];
  VF2 even_scaled[MR], odd_scaled[MR];
  CLPORT_UNROLL
  for (int r = 0; r < MR; ++r) {
    even[r] = odd[r] = hn::Zero(df);
    even_scaled[r] = odd_scaled[r] = hn::Zero(df2);
  }
  int64_t b = 0;
  for (; b + 2 <= nb; b += 2) {
    prefetch_ahead(w + b * Format::kBytes, 2 * Format::kBytes);
    Block32Step<Format, MR>(w, b, acts, even, even_scaled);
    Block32Step<Format, MR>(w, b + 1, acts, odd, odd_scaled);
  }
  if (b < nb) Block32Step<Format, MR>(w, b, acts, even, even_scaled);
  CLPORT_UNROLL
  for (int r = 0; r < MR; ++r) {
    out[r] = SumLanes(hn::Add(even[r], odd[r])) +
             hn::ExtractLane(hn::Add(even_scaled[r], odd_scaled[r]), 1);
  }
}

// Two weight rows against MR activation rows: each activation block (codes and scales) is loaded
// once for both rows, every weight block decoded once for all MR rows. Prompts spend most of their
// time here; the accumulators need 4 MR vector registers besides the decoded codes, so only
// targets with 32 of them take this path (kPairRows).
template <class Format, int MR>
void DotBlock32RowPair(const uint8_t* w0, const uint8_t* w1, int64_t nb, const uint8_t* const* acts,
                       float* out0, float* out1) {
  const DF32 df;
  const DF2 df2;
  VF32 acc0[MR], acc1[MR];
  VF2 scaled0[MR], scaled1[MR];
  CLPORT_UNROLL
  for (int r = 0; r < MR; ++r) {
    acc0[r] = acc1[r] = hn::Zero(df);
    scaled0[r] = scaled1[r] = hn::Zero(df2);
  }
  for (int64_t b = 0; b < nb; ++b) {
    VU8 q0[kParts], q1[kParts];
    const VF2 dm0 = Format::Decode(w0 + b * Format::kBytes, q0);
    const VF2 dm1 = Format::Decode(w1 + b * Format::kBytes, q1);
    CLPORT_UNROLL
    for (int r = 0; r < MR; ++r) {
      const Q8Block32& a = reinterpret_cast<const Q8Block32*>(acts[r])[b];
      VI8 qa[kParts];
      LoadActivationCodes(a, qa);
      AddBlock32(dm0, DotCodes(q0, qa), a, acc0[r], scaled0[r]);
      AddBlock32(dm1, DotCodes(q1, qa), a, acc1[r], scaled1[r]);
    }
  }
  CLPORT_UNROLL
  for (int r = 0; r < MR; ++r) {
    out0[r] = SumLanes(acc0[r]) + hn::ExtractLane(scaled0[r], 1);
    out1[r] = SumLanes(acc1[r]) + hn::ExtractLane(scaled1[r], 1);
  }
}

// Q8_0 (34 bytes: d, 32 int8 codes) block b against MR activation rows.
template <int MR>
HWY_INLINE void Q8_0Step(const uint8_t* w, int64_t b, const uint8_t* const* acts, VF32* acc) {
  constexpr int64_t kBytes = 34;
  const DF32 df;
  const DI8 di8;
  const uint8_t* block = w + b * kBytes;
  const float d = LoadHalf(block);
  const auto* codes = reinterpret_cast<const int8_t*>(block + 2);
  VI8 q[kParts];
  CLPORT_UNROLL
  for (int p = 0; p < kParts; ++p) q[p] = hn::LoadU(di8, codes + p * kVecBytes);
  CLPORT_UNROLL
  for (int r = 0; r < MR; ++r) {
    const Q8Block32& a = reinterpret_cast<const Q8Block32*>(acts[r])[b];
    VI32 sum = DotI8I8(q[0], hn::LoadU(di8, a.qs));
    CLPORT_UNROLL
    for (int p = 1; p < kParts; ++p)
      sum = hn::Add(sum, DotI8I8(q[p], hn::LoadU(di8, a.qs + p * kVecBytes)));
    acc[r] = hn::MulAdd(hn::Set(df, d * a.d), hn::ConvertTo(df, sum), acc[r]);
  }
}

template <int MR>
void DotQ8_0Rows(const uint8_t* w, int64_t nb, const uint8_t* const* acts, float* out) {
  const DF32 df;
  VF32 even[MR], odd[MR];
  CLPORT_UNROLL
  for (int r = 0; r < MR; ++r) {
    even[r] = hn::Zero(df);
    odd[r] = hn::Zero(df);
  }
  int64_t b = 0;
  for (; b + 2 <= nb; b += 2) {
    prefetch_ahead(w + b * 34, 2 * 34);
    Q8_0Step<MR>(w, b, acts, even);
    Q8_0Step<MR>(w, b + 1, acts, odd);
  }
  if (b < nb) Q8_0Step<MR>(w, b, acts, even);
  CLPORT_UNROLL
  for (int r = 0; r < MR; ++r) out[r] = SumLanes(hn::Add(even[r], odd[r]));
}

// ---- 256-value K-quant super-blocks ------------------------------------------------------------

// sum_j weights[j] * bsums[j] over an activation block's 16 run sums, as 32-bit lanes (their total
// is the sum): the K-quants' minimum and offset terms, in vectors (no scalar loop per row, block).
using D16x8 = hn::CappedTag<int16_t, 8>;
using D32x4 = hn::Repartition<int32_t, D16x8>;
HWY_INLINE hn::Vec<D32x4> RunSumDot(const int16_t weights[16], const int16_t* bsums) {
  const D16x8 d16;
  const D32x4 d32;
  auto odd = hn::Zero(d32);
  auto sum = hn::ReorderWidenMulAccumulate(d32, hn::LoadU(d16, weights), hn::LoadU(d16, bsums), hn::Zero(d32), odd);
  sum = hn::ReorderWidenMulAccumulate(d32, hn::LoadU(d16, weights + 8), hn::LoadU(d16, bsums + 8), sum, odd);
  return hn::Add(sum, odd);
}

// The 12 packed bytes of Q4_K / Q5_K: 6-bit scales sc[0..7] and minimums m[0..7].
HWY_INLINE void UnpackScaleMin(const uint8_t* p, int16_t sc[8], int16_t m[8]) {
  for (int j = 0; j < 4; ++j) {
    sc[j] = static_cast<int16_t>(p[j] & 63);
    m[j] = static_cast<int16_t>(p[j + 4] & 63);
    sc[j + 4] = static_cast<int16_t>((p[j + 8] & 0xf) | ((p[j] >> 6) << 4));
    m[j + 4] = static_cast<int16_t>((p[j + 8] >> 4) | ((p[j + 4] >> 6) << 4));
  }
}

// Q4_K (144 bytes: d, dmin, scales[12], qs[128]), Q5_K (176: d, dmin, scales[12], qh[32], qs[128]).
// Element 64c + l (l < 32): the low nibble of qs[32c + l] (sub-block 2c), 64c + 32 + l its high
// one (2c + 1); Q5_K adds bit s of qh[l] as 16 to element 32s + l. Value d sc[s] q - dmin m[s].
template <bool kFiveBit, int MR>
void DotQ4Q5KRows(const uint8_t* w, int64_t nb, const uint8_t* const* acts, float* out) {
  constexpr int64_t kBytes = kFiveBit ? 176 : 144;
  const DF32 df;
  const DI8 di8;
  const DU8 du8;
  const DI32 di32;
  const VU8 low_mask = hn::Set(du8, uint8_t{0x0f});
  const VU8 sixteen = hn::Set(du8, uint8_t{16});
  const hn::Repartition<float, D32x4> df4;
  VF32 acc[MR];
  hn::Vec<decltype(df4)> minimum[MR];
  CLPORT_UNROLL
  for (int r = 0; r < MR; ++r) {
    acc[r] = hn::Zero(df);
    minimum[r] = hn::Zero(df4);
  }
  for (int64_t b = 0; b < nb; ++b) {
    const uint8_t* block = w + b * kBytes;
    prefetch_ahead(block, kBytes);
    const float d = LoadHalf(block);
    const float dmin = LoadHalf(block + 2);
    int16_t sc[8], mn[8];
    UnpackScaleMin(block + 4, sc, mn);
    // Sub-block s covers runs 2s and 2s + 1.
    alignas(16) int16_t run_mins[16];
    for (int j = 0; j < 16; ++j) run_mins[j] = mn[j / 2];
    const uint8_t* qh = block + 16;
    const uint8_t* qs = block + (kFiveBit ? 48 : 16);
    VI32 isum[MR];
    CLPORT_UNROLL
    for (int r = 0; r < MR; ++r) isum[r] = hn::Zero(di32);
    for (int c = 0; c < 4; ++c) {
      CLPORT_UNROLL
      for (int p = 0; p < kParts; ++p) {
        const VU8 raw = hn::LoadU(du8, qs + 32 * c + p * kVecBytes);
        VU8 lo = hn::And(raw, low_mask);
        VU8 hi = hn::ShiftRight<4>(raw);
        if constexpr (kFiveBit) {
          const VU8 bits = hn::LoadU(du8, qh + p * kVecBytes);
          lo = hn::Or(lo, hn::IfThenElseZero(
                              hn::TestBit(bits, hn::Set(du8, static_cast<uint8_t>(1u << (2 * c)))),
                              sixteen));
          hi = hn::Or(hi,
                      hn::IfThenElseZero(
                          hn::TestBit(bits, hn::Set(du8, static_cast<uint8_t>(1u << (2 * c + 1)))),
                          sixteen));
        }
        CLPORT_UNROLL
        for (int r = 0; r < MR; ++r) {
          const int8_t* a = reinterpret_cast<const Q8BlockK*>(acts[r])[b].qs + 64 * c;
          isum[r] = hn::Add(isum[r],
                            DotU8I8(lo, hn::LoadU(di8, a + p * kVecBytes), sc[2 * c], sc[2 * c]));
          isum[r] = hn::Add(isum[r], DotU8I8(hi, hn::LoadU(di8, a + 32 + p * kVecBytes),
                                             sc[2 * c + 1], sc[2 * c + 1]));
        }
      }
    }
    CLPORT_UNROLL
    for (int r = 0; r < MR; ++r) {
      const Q8BlockK& a = reinterpret_cast<const Q8BlockK*>(acts[r])[b];
      acc[r] = hn::MulAdd(hn::Set(df, d * a.d), hn::ConvertTo(df, isum[r]), acc[r]);
      minimum[r] = hn::MulAdd(hn::Set(df4, dmin * a.d), hn::ConvertTo(df4, RunSumDot(run_mins, a.bsums)),
                              minimum[r]);
    }
  }
  CLPORT_UNROLL
  for (int r = 0; r < MR; ++r) out[r] = SumLanes(acc[r]) - hn::GetLane(hn::SumOfLanes(df4, minimum[r]));
}

// Q6_K (210 bytes: ql[128], qh[64], int8 scales[16], d). Element 128n + 32k + l (l < 32) has
// its low 4 bits in ql[64n + 32(k & 1) + l] (low nibble for k < 2, high otherwise) and its top
// 2 bits in bits 2k, 2k + 1 of qh[32n + l]; value = d * scales[(128n + 32k + l) / 16] *
// (q - 32). The 32 is taken out with the activation sums of 16: sum(q a) - 32 sum(a).
template <int MR>
void DotQ6KRows(const uint8_t* w, int64_t nb, const uint8_t* const* acts, float* out) {
  constexpr int64_t kBytes = 210;
  const DF32 df;
  const DI8 di8;
  const DU8 du8;
  const DI32 di32;
  const VU8 low_mask = hn::Set(du8, uint8_t{0x0f});
  const VU8 two_bits = hn::Set(du8, uint8_t{3});
  const hn::Repartition<float, D32x4> df4;
  VF32 acc[MR];
  hn::Vec<decltype(df4)> offset[MR];
  CLPORT_UNROLL
  for (int r = 0; r < MR; ++r) {
    acc[r] = hn::Zero(df);
    offset[r] = hn::Zero(df4);
  }
  for (int64_t b = 0; b < nb; ++b) {
    const uint8_t* block = w + b * kBytes;
    prefetch_ahead(block, kBytes);
    const uint8_t* ql = block;
    const uint8_t* qh = block + 128;
    const auto* scales = reinterpret_cast<const int8_t*>(block + 192);
    const float d = LoadHalf(block + 208);
    alignas(16) int16_t run_scales[16];
    for (int j = 0; j < 16; ++j) run_scales[j] = scales[j];
    VI32 isum[MR];
    CLPORT_UNROLL
    for (int r = 0; r < MR; ++r) isum[r] = hn::Zero(di32);
    for (int n = 0; n < 2; ++n) {
      CLPORT_UNROLL
      for (int p = 0; p < kParts; ++p) {
        const VU8 high_bits = hn::LoadU(du8, qh + 32 * n + p * kVecBytes);
        const VU8 low_a = hn::LoadU(du8, ql + 64 * n + p * kVecBytes);
        const VU8 low_b = hn::LoadU(du8, ql + 64 * n + 32 + p * kVecBytes);
        for (int k = 0; k < 4; ++k) {
          const VU8 low_src = (k & 1) ? low_b : low_a;
          const VU8 low = k < 2 ? hn::And(low_src, low_mask) : hn::ShiftRight<4>(low_src);
          VU8 top;
          switch (k) {
            case 0: top = hn::And(high_bits, two_bits); break;
            case 1: top = hn::And(hn::ShiftRight<2>(high_bits), two_bits); break;
            case 2: top = hn::And(hn::ShiftRight<4>(high_bits), two_bits); break;
            default: top = hn::ShiftRight<6>(high_bits); break;
          }
          const VU8 q = hn::Or(low, hn::ShiftLeft<4>(top));
          // Scale of the 16-run: 32-byte vectors span two runs, 16-byte vectors one.
          const int run = 8 * n + 2 * k + (kParts == 1 ? 0 : p);
          const int16_t s_lo = scales[run];
          const int16_t s_hi = scales[kParts == 1 ? run + 1 : run];
          CLPORT_UNROLL
          for (int r = 0; r < MR; ++r) {
            const int8_t* a =
                reinterpret_cast<const Q8BlockK*>(acts[r])[b].qs + 128 * n + 32 * k + p * kVecBytes;
            isum[r] = hn::Add(isum[r], DotU8I8(q, hn::LoadU(di8, a), s_lo, s_hi));
          }
        }
      }
    }
    CLPORT_UNROLL
    for (int r = 0; r < MR; ++r) {
      const Q8BlockK& a = reinterpret_cast<const Q8BlockK*>(acts[r])[b];
      acc[r] = hn::MulAdd(hn::Set(df, d * a.d), hn::ConvertTo(df, isum[r]), acc[r]);
      offset[r] = hn::MulAdd(hn::Set(df4, 32.0f * d * a.d), hn::ConvertTo(df4, RunSumDot(run_scales, a.bsums)),
                             offset[r]);
    }
  }
  CLPORT_UNROLL
  for (int r = 0; r < MR; ++r) out[r] = SumLanes(acc[r]) - hn::GetLane(hn::SumOfLanes(df4, offset[r]));
}

#endif  // HWY_TARGET != HWY_SCALAR

// ---- float weights -----------------------------------------------------------------------------

// F32 or F16 weight row against MR float activation rows, full-width float vectors.
template <bool kHalfWeights, int MR>
void DotFloatRows(const uint8_t* w_bytes, int64_t k, const float* const* acts, float* out) {
  const hn::ScalableTag<float> df;
  const size_t lanes = hn::Lanes(df);
  auto acc0 = hn::Zero(df);
  decltype(acc0) acc[MR];
  CLPORT_UNROLL
  for (int r = 0; r < MR; ++r) acc[r] = acc0;
  int64_t i = 0;
  for (; i + static_cast<int64_t>(lanes) <= k; i += static_cast<int64_t>(lanes)) {
    decltype(acc0) wv;
    if (kHalfWeights) {
      const hn::Rebind<hwy::float16_t, decltype(df)> dh;
      wv = hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(w_bytes) + i));
    } else {
      wv = hn::LoadU(df, reinterpret_cast<const float*>(w_bytes) + i);
    }
    CLPORT_UNROLL
    for (int r = 0; r < MR; ++r) acc[r] = hn::MulAdd(wv, hn::LoadU(df, acts[r] + i), acc[r]);
  }
  CLPORT_UNROLL
  for (int r = 0; r < MR; ++r) {
    float sum = hn::GetLane(hn::SumOfLanes(df, acc[r]));
    for (int64_t j = i; j < k; ++j) {
      float wj;
      if (kHalfWeights) {
        uint16_t h;
        std::memcpy(&h, w_bytes + 2 * j, sizeof h);
        wj = half_to_float_inline(h);
      } else {
        std::memcpy(&wj, w_bytes + 4 * j, sizeof wj);
      }
      sum += wj * acts[r][j];
    }
    out[r] = sum;
  }
}

// ---- tiles -------------------------------------------------------------------------------------

template <typename Act>
using RowKernel = void (*)(const uint8_t* w, int64_t n, const Act* const* acts, float* out);
// Two weight rows at once (DotBlock32RowPair).
using PairKernel = void (*)(const uint8_t* w0, const uint8_t* w1, int64_t n, const uint8_t* const* acts,
                            float* out0, float* out1);

constexpr int kMaxRows = 4;  // activation rows per decoded weight block

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
constexpr bool kPairRows = true;  // 32 vector registers
#else
constexpr bool kPairRows = false;
#endif

// Walks the tile: groups of up to kMaxRows activation rows outside, weight rows inside (two at a
// time where `pairs` is given), so both the weight rows of the tile and the activation group stay
// in L1.
template <typename Act>
void RunTile(const RowKernel<Act> kernels[kMaxRows], const PairKernel pairs[kMaxRows], int64_t n_per_row,
             const uint8_t* w, int64_t w_stride, int64_t n_w, const Act* acts, int64_t act_stride,
             int64_t n_acts, float* out, int64_t out_stride) {
  for (int64_t r0 = 0; r0 < n_acts; r0 += kMaxRows) {
    const int mr = static_cast<int>(std::min<int64_t>(kMaxRows, n_acts - r0));
    const Act* rows[kMaxRows];
    for (int j = 0; j < mr; ++j) rows[j] = acts + (r0 + j) * act_stride;
    int64_t n = 0;
    if constexpr (std::is_same_v<Act, uint8_t>) {
      if (pairs != nullptr) {
        for (; n + 2 <= n_w; n += 2) {
          float dots0[kMaxRows], dots1[kMaxRows];
          pairs[mr - 1](w + n * w_stride, w + (n + 1) * w_stride, n_per_row, rows, dots0, dots1);
          for (int j = 0; j < mr; ++j) {
            out[(r0 + j) * out_stride + n] = dots0[j];
            out[(r0 + j) * out_stride + n + 1] = dots1[j];
          }
        }
      }
    }
    for (; n < n_w; ++n) {
      float dots[kMaxRows];
      kernels[mr - 1](w + n * w_stride, n_per_row, rows, dots);
      for (int j = 0; j < mr; ++j) out[(r0 + j) * out_stride + n] = dots[j];
    }
  }
}

}  // namespace

void DotTileQuantized(DType dtype, int64_t k, const uint8_t* w, int64_t w_stride, int64_t n_w,
                      const uint8_t* acts, int64_t act_stride, int64_t n_acts, float* out,
                      int64_t out_stride) {
#if HWY_TARGET == HWY_SCALAR
  scalar_dot_tile_quantized(dtype, k, w, w_stride, n_w, acts, act_stride, n_acts, out, out_stride);
#else
  using K = RowKernel<uint8_t>;
  static constexpr K kQ4_0[] = {DotBlock32Rows<Q4_0, 1>, DotBlock32Rows<Q4_0, 2>,
                                DotBlock32Rows<Q4_0, 3>, DotBlock32Rows<Q4_0, 4>};
  static constexpr K kQ4_1[] = {DotBlock32Rows<Q4_1, 1>, DotBlock32Rows<Q4_1, 2>,
                                DotBlock32Rows<Q4_1, 3>, DotBlock32Rows<Q4_1, 4>};
  static constexpr K kQ5_0[] = {DotBlock32Rows<Q5_0, 1>, DotBlock32Rows<Q5_0, 2>,
                                DotBlock32Rows<Q5_0, 3>, DotBlock32Rows<Q5_0, 4>};
  static constexpr K kQ5_1[] = {DotBlock32Rows<Q5_1, 1>, DotBlock32Rows<Q5_1, 2>,
                                DotBlock32Rows<Q5_1, 3>, DotBlock32Rows<Q5_1, 4>};
  static constexpr K kQ8_0[] = {DotQ8_0Rows<1>, DotQ8_0Rows<2>, DotQ8_0Rows<3>, DotQ8_0Rows<4>};
  static constexpr K kQ4_K[] = {DotQ4Q5KRows<false, 1>, DotQ4Q5KRows<false, 2>,
                                DotQ4Q5KRows<false, 3>, DotQ4Q5KRows<false, 4>};
  static constexpr K kQ5_K[] = {DotQ4Q5KRows<true, 1>, DotQ4Q5KRows<true, 2>, DotQ4Q5KRows<true, 3>,
                                DotQ4Q5KRows<true, 4>};
  static constexpr K kQ6_K[] = {DotQ6KRows<1>, DotQ6KRows<2>, DotQ6KRows<3>, DotQ6KRows<4>};
  static constexpr PairKernel kQ4_0Pairs[] = {DotBlock32RowPair<Q4_0, 1>, DotBlock32RowPair<Q4_0, 2>,
                                              DotBlock32RowPair<Q4_0, 3>, DotBlock32RowPair<Q4_0, 4>};
  static constexpr PairKernel kQ4_1Pairs[] = {DotBlock32RowPair<Q4_1, 1>, DotBlock32RowPair<Q4_1, 2>,
                                              DotBlock32RowPair<Q4_1, 3>, DotBlock32RowPair<Q4_1, 4>};
  static constexpr PairKernel kQ5_0Pairs[] = {DotBlock32RowPair<Q5_0, 1>, DotBlock32RowPair<Q5_0, 2>,
                                              DotBlock32RowPair<Q5_0, 3>, DotBlock32RowPair<Q5_0, 4>};
  static constexpr PairKernel kQ5_1Pairs[] = {DotBlock32RowPair<Q5_1, 1>, DotBlock32RowPair<Q5_1, 2>,
                                              DotBlock32RowPair<Q5_1, 3>, DotBlock32RowPair<Q5_1, 4>};
  const K* kernels = nullptr;
  const PairKernel* pairs = nullptr;
  int64_t block = 32;
  switch (dtype) {
    case DType::Q4_0: kernels = kQ4_0; pairs = kQ4_0Pairs; break;
    case DType::Q4_1: kernels = kQ4_1; pairs = kQ4_1Pairs; break;
    case DType::Q5_0: kernels = kQ5_0; pairs = kQ5_0Pairs; break;
    case DType::Q5_1: kernels = kQ5_1; pairs = kQ5_1Pairs; break;
    case DType::Q8_0: kernels = kQ8_0; break;
    case DType::Q4_K:
      kernels = kQ4_K;
      block = 256;
      break;
    case DType::Q5_K:
      kernels = kQ5_K;
      block = 256;
      break;
    case DType::Q6_K:
      kernels = kQ6_K;
      block = 256;
      break;
    default: return;  // callers only pass quantized weight dtypes
  }
  // Decode steps (one activation row) stream the weights once either way: one row at a time.
  if (!kPairRows || n_acts < 2) pairs = nullptr;
  RunTile<uint8_t>(kernels, pairs, k / block, w, w_stride, n_w, acts, act_stride, n_acts, out, out_stride);
#endif
}

void DotTileFloat(DType dtype, int64_t k, const uint8_t* w, int64_t w_stride, int64_t n_w,
                  const float* acts, int64_t act_stride, int64_t n_acts, float* out,
                  int64_t out_stride) {
  using K = RowKernel<float>;
  static constexpr K kF32[] = {DotFloatRows<false, 1>, DotFloatRows<false, 2>,
                               DotFloatRows<false, 3>, DotFloatRows<false, 4>};
  static constexpr K kF16[] = {DotFloatRows<true, 1>, DotFloatRows<true, 2>, DotFloatRows<true, 3>,
                               DotFloatRows<true, 4>};
  if (dtype != DType::F32 && dtype != DType::F16) return;  // callers only pass these
  RunTile<float>(dtype == DType::F16 ? kF16 : kF32, nullptr, k, w, w_stride, n_w, acts, act_stride, n_acts,
                 out, out_stride);
}

int64_t CurrentTarget() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace clport::fastcpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace clport::fastcpu {

HWY_EXPORT(DotTileQuantized);
HWY_EXPORT(DotTileFloat);
HWY_EXPORT(CurrentTarget);

void dot_tile_quantized(DType dtype, int64_t k, const uint8_t* w, int64_t w_stride, int64_t n_w,
                        const uint8_t* acts, int64_t act_stride, int64_t n_acts, float* out,
                        int64_t out_stride) {
  HWY_DYNAMIC_DISPATCH(DotTileQuantized)
  (dtype, k, w, w_stride, n_w, acts, act_stride, n_acts, out, out_stride);
}

void dot_tile_float(DType dtype, int64_t k, const uint8_t* w, int64_t w_stride, int64_t n_w,
                    const float* acts, int64_t act_stride, int64_t n_acts, float* out,
                    int64_t out_stride) {
  HWY_DYNAMIC_DISPATCH(DotTileFloat)
  (dtype, k, w, w_stride, n_w, acts, act_stride, n_acts, out, out_stride);
}

std::string simd_target_name() {
  use_safe_simd_targets();
  return hwy::TargetName(HWY_DYNAMIC_DISPATCH(CurrentTarget)());
}

std::vector<int64_t> simd_targets_available() {
  use_safe_simd_targets();
  std::vector<int64_t> out;
  for (int64_t t = hwy::SupportedTargets() & HWY_TARGETS; t != 0; t &= t - 1) {
    out.push_back(t & ~(t - 1));
  }
  return out;
}

}  // namespace clport::fastcpu
#endif  // HWY_ONCE
