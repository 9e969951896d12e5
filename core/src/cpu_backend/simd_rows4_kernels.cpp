// Mat-muls of 2 to 7 activation rows (decode steps over several sequences) for the 32-value
// weight formats with unsigned codes (Q4_0, Q4_1, Q5_0, Q5_1), on the AVX-512 targets.
//
// Why: with one weight row per vector, each (weight row, activation row) pair needs its 8
// partial sums folded horizontally before its scale can apply: three horizontal adds a pair and
// block, on the one shuffle port. Here a 512-bit vector holds 16 codes of each of four weight
// rows, one row per 128-bit lane, and an activation row's matching 16 codes are broadcast to
// the four lanes by the load itself; one 4 x 4 transpose within the lanes then folds 16 pairs
// at once (six shuffles for four weight rows and four activation rows), and one conversion, one
// scale product and two multiply-adds serve all 16. On CPUs with AVX512-VNNI the byte products
// are vpdpbusd instead of pmaddubsw + pmaddwd. Each weight block is decoded once for the four
// activation rows. A 2-core Sapphire Rapids VM ran the Q4_1 4 x 576 x 1536 product at 1.75 ns
// a weight block against 3.5 for one row per vector and horizontal adds.
//
// Every row gets the arithmetic of the prompt kernels (simd_prompt_kernels.cpp), whichever group
// and lane it lands in: a row's result is the same bits in any call of two or more rows. One-row
// calls keep the one-row kernels (a lone row streams the weights; it has no scales to share),
// whose summation order differs, as their two-weight-row pairs already did on these targets.
#include "cpu_backend/simd_kernel_build.h"  // before Highway: see why there
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu_backend/simd_rows4_kernels.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <algorithm>
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

// 16 bytes at `offset` in each of four rows, row i in 128-bit lane i.
HWY_INLINE __m512i LoadLanes(const uint8_t* const* row, int64_t offset) {
  auto load = [&](int i) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(row[i] + offset)); };
  __m512i v = _mm512_castsi128_si512(load(0));
  v = _mm512_inserti32x4(v, load(1), 1);
  v = _mm512_inserti32x4(v, load(2), 2);
  return _mm512_inserti32x4(v, load(3), 3);
}

// acc + per 32-bit lane sum of four products of unsigned codes w (<= 31) and signed codes a.
template <bool kVnni>
HWY_INLINE __m512i DotAdd(__m512i acc, __m512i w, __m512i a) {
  if constexpr (kVnni) {
    __asm__("vpdpbusd %[a], %[w], %[acc]" : [acc] "+v"(acc) : [w] "v"(w), [a] "v"(a));
    return acc;
  }
  // |a| <= 127 and w <= 31: the 16-bit pair sums cannot saturate.
  return _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maddubs_epi16(w, a), _mm512_set1_epi16(1)));
}

// Four weight rows against four activation rows, one weight row per 128-bit lane: the lane
// holds 16 codes of its row (the low nibbles, then in a second vector the high ones), and each
// activation row's matching 16 codes are broadcast to all four lanes (a load, no shuffle), so
// two multiply-adds give the partial sums of 4 weight rows x 1 activation row. Four such sets
// fold, by a 4 x 4 transpose within each lane (six shuffles), into one vector whose lane
// (i, r) is the exact integer sum S of weight row i and activation row r. ds holds, per block,
// the rows' scales d_a and then their d_a * sum(codes). Then, lane by lane and in block order,
//   acc = fma(S, d_w * d_a, acc), mins = fma(m_w, d_a * sum(codes), mins), result acc + mins:
// the arithmetic of the prompt kernels (simd_prompt_kernels.cpp), so a row's result is the same
// bits whichever kernel its call takes. Rows past n_w repeat the last row and are not stored.
template <class Format, bool kVnni>
void Quad(const uint8_t* w, int64_t w_stride, int n_w, int64_t nb, const Q8Block32* const* acts, const float* ds,
          int rows_here, float* out, int64_t out_stride) {
  const uint8_t* row[4];
  for (int i = 0; i < 4; ++i) row[i] = w + std::min(i, n_w - 1) * w_stride;
  const __m512i low_nibbles = _mm512_set1_epi8(0x0f);
  // Lane i of the block's four (d, m) pairs, widened to floats: d at 2i, m at 2i + 1.
  const __m512i pick_d = _mm512_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6);
  const __m512i pick_m = _mm512_setr_epi32(1, 1, 1, 1, 3, 3, 3, 3, 5, 5, 5, 5, 7, 7, 7, 7);
  __m512 acc = _mm512_setzero_ps(), mins = _mm512_setzero_ps();
  for (int64_t b = 0; b < nb; ++b) {
    const int64_t at = b * Format::kSize;
    CLPORT_UNROLL
    for (int i = 0; i < 4; ++i) prefetch_ahead(row[i] + at, Format::kSize);
    const __m512i v = LoadLanes(row, at + Format::kQs);  // lane i: the 16 nibble bytes of row i
    __m512i lo = _mm512_and_si512(v, low_nibbles);  // its codes 0-15
    __m512i hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), low_nibbles);  // its codes 16-31
    if constexpr (Format::kQh >= 0) {
      // Bit j of a row's 32-bit qh adds 16 to its code j: bits 0-15 to the low nibbles' codes,
      // bits 16-31 to the high ones'; lane i takes mask bits 16 i .. 16 i + 15.
      uint64_t mask_lo = 0, mask_hi = 0;
      CLPORT_UNROLL
      for (int i = 0; i < 4; ++i) {
        uint32_t bits;
        std::memcpy(&bits, row[i] + at + Format::kQh, sizeof bits);
        mask_lo |= static_cast<uint64_t>(bits & 0xffffu) << (16 * i);
        mask_hi |= static_cast<uint64_t>(bits >> 16) << (16 * i);
      }
      const __m512i sixteen = _mm512_set1_epi8(16);
      lo = _mm512_mask_add_epi8(lo, static_cast<__mmask64>(mask_lo), lo, sixteen);
      hi = _mm512_mask_add_epi8(hi, static_cast<__mmask64>(mask_hi), hi, sixteen);
    }
    __m512i s[4];
    CLPORT_UNROLL
    for (int r = 0; r < 4; ++r) {
      const __m128i* a = reinterpret_cast<const __m128i*>(acts[r][b].qs);
      s[r] = DotAdd<kVnni>(DotAdd<kVnni>(_mm512_setzero_si512(), lo, _mm512_broadcast_i32x4(_mm_loadu_si128(a))), hi,
                           _mm512_broadcast_i32x4(_mm_loadu_si128(a + 1)));
    }
    // Within each lane: [S_0, S_1, S_2, S_3] of its weight row, four partial sums each.
    const __m512i t01 = _mm512_add_epi32(_mm512_unpacklo_epi32(s[0], s[1]), _mm512_unpackhi_epi32(s[0], s[1]));
    const __m512i t23 = _mm512_add_epi32(_mm512_unpacklo_epi32(s[2], s[3]), _mm512_unpackhi_epi32(s[2], s[3]));
    const __m512i sums = _mm512_add_epi32(_mm512_unpacklo_epi64(t01, t23), _mm512_unpackhi_epi64(t01, t23));
    // The four rows' (d, m) as 8 halves, then d and m spread over their lanes.
    uint32_t dm[4];
    CLPORT_UNROLL
    for (int i = 0; i < 4; ++i) std::memcpy(&dm[i], row[i] + at, sizeof dm[i]);
    const __m512 halves = _mm512_castps256_ps512(
        _mm256_cvtph_ps(_mm_setr_epi32(static_cast<int>(dm[0]), static_cast<int>(dm[1]), static_cast<int>(dm[2]),
                                       static_cast<int>(dm[3]))));
    const __m512 d = _mm512_permutexvar_ps(pick_d, halves);
    const __m512 d_a = _mm512_broadcast_f32x4(_mm_loadu_ps(ds + 8 * b));
    const __m512 m = Format::kHasMin ? _mm512_permutexvar_ps(pick_m, halves)
                                     : _mm512_mul_ps(_mm512_set1_ps(-static_cast<float>(Format::kOffset)), d);
    acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums), _mm512_mul_ps(d, d_a), acc);
    mins = _mm512_fmadd_ps(m, _mm512_broadcast_f32x4(_mm_loadu_ps(ds + 8 * b + 4)), mins);
  }
  alignas(64) float total[16];
  _mm512_store_ps(total, _mm512_add_ps(acc, mins));
  for (int r = 0; r < rows_here; ++r) {
    for (int i = 0; i < n_w; ++i) out[r * out_stride + i] = total[4 * i + r];
  }
}

// Groups of four activation rows (the last group's missing rows repeat its last row and are
// not stored), their scales gathered once per group and tile; the tile's weight rows stay in L1
// across the groups.
template <class Format, bool kVnni>
void Tile(int64_t nb, const uint8_t* w, int64_t w_stride, int64_t n_w, const uint8_t* acts, int64_t act_stride,
          int64_t n_acts, float* out, int64_t out_stride) {
  thread_local std::vector<float> ds;
  ds.resize(static_cast<size_t>(8 * nb));
  for (int64_t r0 = 0; r0 < n_acts; r0 += 4) {
    const int rows_here = static_cast<int>(std::min<int64_t>(4, n_acts - r0));
    const Q8Block32* rows[4];
    for (int r = 0; r < 4; ++r)
      rows[r] = reinterpret_cast<const Q8Block32*>(acts + (r0 + std::min(r, rows_here - 1)) * act_stride);
    for (int64_t b = 0; b < nb; ++b) {
      for (int r = 0; r < 4; ++r) {
        ds[static_cast<size_t>(8 * b + r)] = rows[r][b].d;
        ds[static_cast<size_t>(8 * b + 4 + r)] = rows[r][b].s;
      }
    }
    for (int64_t n = 0; n < n_w; n += 4) {
      Quad<Format, kVnni>(w + n * w_stride, w_stride, static_cast<int>(std::min<int64_t>(4, n_w - n)), nb, rows,
                          ds.data(), rows_here, out + r0 * out_stride + n, out_stride);
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
