// Mat-muls of 2 to 7 activation rows (decode steps over several sequences) for the 32-value
// weight formats with unsigned codes (Q4_0, Q4_1, Q5_0, Q5_1), on the AVX-512 targets.
//
// Why: the decode kernels of simd_matmul_kernels.cpp apply each (weight block, activation row)
// scale in its own vector: convert the block's 8 partial sums, multiply the scales, broadcast,
// multiply-add, and add the minimum term, five operations a row and block. Here four rows' four
// vectors of partial sums are first folded into one by horizontal adds, so one conversion, one
// scale vector (the weight scale times the four rows' activation scales) and one multiply-add
// serve all four rows, and one more multiply-add takes their four minimum terms. On CPUs with
// AVX512-VNNI the byte products are one vpdpbusd instead of pmaddubsw + pmaddwd. Each weight
// block is still decoded once for the four rows.
//
// Every row gets the arithmetic of the prompt kernels (simd_prompt_kernels.cpp), whichever group
// it lands in: a row's result is the same bits in any call of two or more rows. One-row calls
// keep the one-row kernels (a lone row streams the weights; it has no scales to share), whose
// summation order differs, as their two-weight-row pairs already did on these targets.
#include "cpu_backend/simd_kernel_build.h"  // before Highway: see why there
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu_backend/simd_rows4_kernels.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <atomic>
#include <cstring>
#include <vector>

#include "cpu_backend/activation_blocks.h"
#include "cpu_backend/avx512_blocks-inl.h"
#include "cpu_backend/simd_kernels.h"
#include "cpu_backend/weight_prefetch.h"

#ifndef CLPORT_UNROLL
#define CLPORT_UNROLL _Pragma("GCC unroll 8")
#endif

// Once per translation unit (foreach_target.h includes this file once per target).
#ifndef CLPORT_ROWS4_KERNELS_SHARED
#define CLPORT_ROWS4_KERNELS_SHARED
namespace clport::fastcpu {
// Cleared by tests to run the multiply-add that CPUs without AVX512-VNNI use.
inline std::atomic<bool> rows4_vnni_allowed{true};
}  // namespace clport::fastcpu
#endif

HWY_BEFORE_NAMESPACE();
namespace clport::fastcpu {
namespace HWY_NAMESPACE {
namespace {

#undef CLPORT_ROWS4_X86
#if (HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL) && !defined(CLPORT_FASTCPU_PORTABLE_KERNELS)
#define CLPORT_ROWS4_X86 1

// The 32-value blocks, decoded as the prompt kernels decode them (avx512_blocks-inl.h).
using avx512_blocks::Q4_0;
using avx512_blocks::Q4_1;
using avx512_blocks::Q5_0;
using avx512_blocks::Q5_1;
// Per 32-bit lane, the sum of four products of unsigned codes w (<= 63) and signed codes a.
template <bool kVnni>
HWY_INLINE __m256i BlockDot(__m256i w, const int8_t* codes) {
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes));
  if constexpr (kVnni) {
    // Assembly: Highway's target attributes do not name AVX512-VNNI (see DpBusd in
    // simd_matmul_kernels.cpp); the caller checked the CPU has it.
    __m256i sum = _mm256_setzero_si256();
    __asm__("%{evex%} vpdpbusd %[a], %[w], %[sum]" : [sum] "+v"(sum) : [w] "v"(w), [a] "v"(a));
    return sum;
  }
  return _mm256_madd_epi16(_mm256_maddubs_epi16(w, a), _mm256_set1_epi16(1));
}

// One weight row against four activation rows; ds holds, per block, the rows' scales d_a and
// then their d_a * sum(codes). Per row and block the integer sum S is exact, then
//   acc = fma(S, d_w * d_a, acc), mins = fma(m_w, d_a * sum(codes), mins), result acc + mins,
// in block order: the arithmetic of the prompt kernels (simd_prompt_kernels.cpp) lane by lane,
// so a row's result is the same bits whichever kernel its call takes.
template <class Format, bool kVnni>
void Row(const uint8_t* w, int64_t nb, const Q8Block32* const* acts, const float* ds, float* out) {
  __m128 acc = _mm_setzero_ps(), mins = _mm_setzero_ps();
  for (int64_t b = 0; b < nb; ++b) {
    float d, m;
    prefetch_ahead(w + b * Format::kSize, Format::kSize);
    const __m256i q = Format::Decode(w + b * Format::kSize, &d, &m);
    __m256i s[4];
    CLPORT_UNROLL
    for (int r = 0; r < 4; ++r) s[r] = BlockDot<kVnni>(q, acts[r][b].qs);
    // Lane r (and r + 4): row r's partial sums in the two 128-bit halves, then their total.
    const __m256i halves = _mm256_hadd_epi32(_mm256_hadd_epi32(s[0], s[1]), _mm256_hadd_epi32(s[2], s[3]));
    const __m128i sums = _mm_add_epi32(_mm256_castsi256_si128(halves), _mm256_extracti128_si256(halves, 1));
    const __m128 scale = _mm_mul_ps(_mm_set1_ps(d), _mm_loadu_ps(ds + 8 * b));
    acc = _mm_fmadd_ps(_mm_cvtepi32_ps(sums), scale, acc);
    mins = _mm_fmadd_ps(_mm_set1_ps(m), _mm_loadu_ps(ds + 8 * b + 4), mins);
  }
  _mm_storeu_ps(out, _mm_add_ps(acc, mins));
}

// Two weight rows against one activation row, with Row's arithmetic per row (two independent
// chains, so one row's multiply-adds do not wait on each other). n_w 1: w1 is not read.
template <class Format, bool kVnni, int kRows>
void Row1(const uint8_t* w0, const uint8_t* w1, int64_t nb, const Q8Block32* act, float* out) {
  __m128 acc = _mm_setzero_ps(), mins = _mm_setzero_ps();  // lane i: weight row i
  for (int64_t b = 0; b < nb; ++b) {
    float d[2] = {0.0f, 0.0f}, m[2] = {0.0f, 0.0f};
    __m256i s[2];
    CLPORT_UNROLL
    for (int i = 0; i < kRows; ++i) {
      prefetch_ahead((i == 0 ? w0 : w1) + b * Format::kSize, Format::kSize);
      const __m256i q = Format::Decode((i == 0 ? w0 : w1) + b * Format::kSize, &d[i], &m[i]);
      s[i] = BlockDot<kVnni>(q, act[b].qs);
    }
    if constexpr (kRows == 1) s[1] = _mm256_setzero_si256();
    // Lane i: row i's total (the same integer as Row's, whatever the order of adds).
    const __m256i halves = _mm256_hadd_epi32(_mm256_hadd_epi32(s[0], s[1]), _mm256_setzero_si256());
    const __m128i sums = _mm_add_epi32(_mm256_castsi256_si128(halves), _mm256_extracti128_si256(halves, 1));
    const __m128 scale = _mm_mul_ps(_mm_setr_ps(d[0], d[1], 0.0f, 0.0f), _mm_set1_ps(act[b].d));
    acc = _mm_fmadd_ps(_mm_cvtepi32_ps(sums), scale, acc);
    mins = _mm_fmadd_ps(_mm_setr_ps(m[0], m[1], 0.0f, 0.0f), _mm_set1_ps(act[b].s), mins);
  }
  alignas(16) float total[4];
  _mm_store_ps(total, _mm_add_ps(acc, mins));
  for (int i = 0; i < kRows; ++i) out[i] = total[i];
}

// Groups of four activation rows through Row (their scales gathered once per group and tile),
// the rest one by one through Row1; the tile's weight rows stay in L1 across the groups.
template <class Format, bool kVnni>
void Tile(int64_t nb, const uint8_t* w, int64_t w_stride, int64_t n_w, const uint8_t* acts, int64_t act_stride,
          int64_t n_acts, float* out, int64_t out_stride) {
  auto act_row = [&](int64_t r) { return reinterpret_cast<const Q8Block32*>(acts + r * act_stride); };
  thread_local std::vector<float> ds;
  ds.resize(static_cast<size_t>(8 * nb));
  int64_t r0 = 0;
  for (; r0 + 4 <= n_acts; r0 += 4) {
    const Q8Block32* rows[4] = {act_row(r0), act_row(r0 + 1), act_row(r0 + 2), act_row(r0 + 3)};
    for (int64_t b = 0; b < nb; ++b) {
      for (int r = 0; r < 4; ++r) {
        ds[static_cast<size_t>(8 * b + r)] = rows[r][b].d;
        ds[static_cast<size_t>(8 * b + 4 + r)] = rows[r][b].s;
      }
    }
    for (int64_t n = 0; n < n_w; ++n) {
      alignas(16) float dots[4];
      Row<Format, kVnni>(w + n * w_stride, nb, rows, ds.data(), dots);
      CLPORT_UNROLL
      for (int r = 0; r < 4; ++r) out[(r0 + r) * out_stride + n] = dots[r];
    }
  }
  for (; r0 < n_acts; ++r0) {
    float dots[2];
    int64_t n = 0;
    for (; n + 2 <= n_w; n += 2) {
      Row1<Format, kVnni, 2>(w + n * w_stride, w + (n + 1) * w_stride, nb, act_row(r0), dots);
      out[r0 * out_stride + n] = dots[0];
      out[r0 * out_stride + n + 1] = dots[1];
    }
    if (n < n_w) {
      Row1<Format, kVnni, 1>(w + n * w_stride, w, nb, act_row(r0), dots);
      out[r0 * out_stride + n] = dots[0];
    }
  }
}

bool CpuHasVnni() {
  static const bool has = __builtin_cpu_supports("avx512vnni");
  return has;
}

template <bool kVnni>
void TileFor(DType dtype, int64_t nb, const uint8_t* w, int64_t w_stride, int64_t n_w, const uint8_t* acts,
             int64_t act_stride, int64_t n_acts, float* out, int64_t out_stride) {
  switch (dtype) {
#define CLPORT_ROWS4_CASE(T) \
  case DType::T: return Tile<T, kVnni>(nb, w, w_stride, n_w, acts, act_stride, n_acts, out, out_stride);
    CLPORT_ROWS4_CASE(Q4_0)
    CLPORT_ROWS4_CASE(Q4_1)
    CLPORT_ROWS4_CASE(Q5_0)
    CLPORT_ROWS4_CASE(Q5_1)
#undef CLPORT_ROWS4_CASE
    default: return;  // callers check Rows4Supported first
  }
}
#endif  // x86 with 256-bit integer vectors

}  // namespace

bool Rows4Supported(DType dtype) {
#if defined(CLPORT_ROWS4_X86)
  return dtype == DType::Q4_0 || dtype == DType::Q4_1 || dtype == DType::Q5_0 || dtype == DType::Q5_1;
#else
  (void)dtype;
  return false;
#endif
}

void DotTileRows4(DType dtype, int64_t k, const uint8_t* w, int64_t w_stride, int64_t n_w, const uint8_t* acts,
                  int64_t act_stride, int64_t n_acts, float* out, int64_t out_stride) {
#if defined(CLPORT_ROWS4_X86)
  if (CpuHasVnni() && rows4_vnni_allowed.load(std::memory_order_relaxed)) {
    TileFor<true>(dtype, k / 32, w, w_stride, n_w, acts, act_stride, n_acts, out, out_stride);
    return;
  }
  TileFor<false>(dtype, k / 32, w, w_stride, n_w, acts, act_stride, n_acts, out, out_stride);
#else
  (void)dtype, (void)k, (void)w, (void)w_stride, (void)n_w, (void)acts, (void)act_stride, (void)n_acts, (void)out,
      (void)out_stride;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace clport::fastcpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace clport::fastcpu {

HWY_EXPORT(Rows4Supported);
HWY_EXPORT(DotTileRows4);

bool rows4_supported(DType dtype) { return HWY_DYNAMIC_DISPATCH(Rows4Supported)(dtype); }

void dot_tile_quantized_rows4(DType dtype, int64_t k, const uint8_t* w, int64_t w_stride, int64_t n_w,
                              const uint8_t* acts, int64_t act_stride, int64_t n_acts, float* out,
                              int64_t out_stride) {
  HWY_DYNAMIC_DISPATCH(DotTileRows4)(dtype, k, w, w_stride, n_w, acts, act_stride, n_acts, out, out_stride);
}

void set_rows4_vnni_allowed(bool allowed) { rows4_vnni_allowed.store(allowed); }

}  // namespace clport::fastcpu
#endif  // HWY_ONCE
