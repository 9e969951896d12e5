// Prompt mat-mul kernels for AVX-512 targets: one 512-bit vector holds one 32-bit lane per
// weight row, 16 weight rows at once. A tile's weight rows are decoded once per call into an
// interleaved scratch copy (for each run of 4 values, the 4 unsigned codes of all 16 rows side by
// side), then every activation row runs against it: each 4-byte run of activation codes is
// broadcast to all lanes and one byte multiply-add (vpdpbusd, or pmaddubsw + pmaddwd without
// AVX512-VNNI) gives 16 rows x 4 values. The per-block scales are applied per 16 rows with one
// float multiply-add, instead of per row as in the one-row kernels of simd_matmul_kernels.cpp.
// Other targets have no such kernel and say so (prompt_tile_supported), and the caller keeps
// the one-row kernels.
#include "cpu_backend/simd_kernel_build.h"  // before Highway: see why there
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu_backend/simd_prompt_kernels.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "cpu_backend/activation_blocks.h"
#include "cpu_backend/avx512_blocks-inl.h"
#include "cpu_backend/simd_kernels.h"

#ifndef CLPORT_UNROLL
#define CLPORT_UNROLL _Pragma("GCC unroll 8")
#endif

// Once per translation unit (foreach_target.h includes this file once per target).
#ifndef CLPORT_PROMPT_KERNELS_SHARED
#define CLPORT_PROMPT_KERNELS_SHARED
namespace clport::fastcpu {
// Cleared by tests to run the multiply-add that CPUs without AVX512-VNNI use.
inline std::atomic<bool> prompt_vnni_allowed{true};
}  // namespace clport::fastcpu
#endif

HWY_BEFORE_NAMESPACE();
namespace clport::fastcpu {
namespace HWY_NAMESPACE {
namespace {

#undef CLPORT_PROMPT_AVX512
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#define CLPORT_PROMPT_AVX512 1

constexpr int kLanes = 16;  // weight rows per vector
constexpr int kRows = 4;    // activation rows per pass over the decoded tile

// acc + per 32-bit lane sum of four u8 x s8 products. Written as assembly for the reason given
// at DpBusd in simd_matmul_kernels.cpp (Highway's target attributes do not name AVX512-VNNI).
template <bool kVnni>
HWY_INLINE __m512i DotAdd(__m512i acc, __m512i w, __m512i a) {
  if constexpr (kVnni) {
    __asm__("vpdpbusd %[a], %[w], %[acc]" : [acc] "+v"(acc) : [w] "v"(w), [a] "v"(a));
    return acc;
  } else {
    // Codes are at most 63 and |a| <= 127, so the 16-bit pair sums cannot saturate.
    const __m512i pairs = _mm512_maddubs_epi16(w, a);
    return _mm512_add_epi32(acc, _mm512_madd_epi16(pairs, _mm512_set1_epi16(1)));
  }
}

using avx512_blocks::Half;

// One weight format: kSub values per scale (a sub-block), decoded per row into kSub unsigned
// codes q with value = dscale * q + bias.
//   Decode(row, j, codes, &dscale, &bias): sub-block j of one weight row.

// The 32-value blocks, decoded as the few-row kernels decode them (avx512_blocks-inl.h).
template <class Block>
struct Block32Format {
  static constexpr int kSub = 32;
  static HWY_INLINE void Decode(const uint8_t* row, int64_t j, uint8_t* codes, float* dscale, float* bias) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(codes), Block::Decode(row + j * Block::kSize, dscale, bias));
  }
};
using Q4_0 = Block32Format<avx512_blocks::Q4_0>;
using Q4_1 = Block32Format<avx512_blocks::Q4_1>;
using Q5_0 = Block32Format<avx512_blocks::Q5_0>;
using Q5_1 = Block32Format<avx512_blocks::Q5_1>;

// Q4_K / Q5_K sub-block s of super-block j / 8: low nibbles of qs[32 (s / 2) + l] for even s,
// high nibbles for odd s; Q5_K adds bit s of qh[l] as 16. value = d sc[s] q - dmin m[s].
template <bool kFiveBit>
struct QK45Format {
  static constexpr int kSub = 32;
  static HWY_INLINE void Decode(const uint8_t* row, int64_t j, uint8_t* codes, float* dscale, float* bias) {
    const uint8_t* block = row + (j / 8) * (kFiveBit ? 176 : 144);
    const int s = static_cast<int>(j % 8);
    const uint8_t* qs = block + (kFiveBit ? 48 : 16) + 32 * (s / 2);
    __m256i raw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qs));
    if (s & 1) raw = _mm256_srli_epi16(raw, 4);
    __m256i q = _mm256_and_si256(raw, _mm256_set1_epi8(0x0f));
    if constexpr (kFiveBit) {
      const __m256i qh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 16));
      const __mmask32 set = _mm256_test_epi8_mask(qh, _mm256_set1_epi8(static_cast<char>(1u << s)));
      q = _mm256_mask_add_epi8(q, set, q, _mm256_set1_epi8(16));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(codes), q);
    // The packed 6-bit scale and minimum of sub-block s (layout in quant_k.cpp).
    const uint8_t* p = block + 4;
    int sc, m;
    if (s < 4) {
      sc = p[s] & 63;
      m = p[s + 4] & 63;
    } else {
      sc = (p[s + 4] & 0xf) | ((p[s - 4] >> 6) << 4);
      m = (p[s + 4] >> 4) | ((p[s] >> 6) << 4);
    }
    *dscale = Half(block) * static_cast<float>(sc);
    *bias = -Half(block + 2) * static_cast<float>(m);
  }
};

// Q6_K run s (16 values) of super-block j / 16: element e = 16 s + l = 128 n + 32 k + i has its
// low 4 bits in ql[64 n + 32 (k & 1) + i] (low nibble for k < 2) and its top two in bits 2k, 2k + 1
// of qh[32 n + i]; value = d scales[s] (q - 32).
struct Q6KFormat {
  static constexpr int kSub = 16;
  static HWY_INLINE void Decode(const uint8_t* row, int64_t j, uint8_t* codes, float* dscale, float* bias) {
    const uint8_t* block = row + (j / 16) * 210;
    const int s = static_cast<int>(j % 16);
    const int n = s / 8, k = (s % 8) / 2, i = 16 * (s % 2);
    __m128i low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 64 * n + 32 * (k & 1) + i));
    if (k >= 2) low = _mm_srli_epi16(low, 4);
    low = _mm_and_si128(low, _mm_set1_epi8(0x0f));
    __m128i top = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 128 + 32 * n + i));
    top = _mm_and_si128(_mm_srl_epi16(top, _mm_cvtsi32_si128(2 * k)), _mm_set1_epi8(3));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(codes), _mm_or_si128(low, _mm_slli_epi16(top, 4)));
    const float d = Half(block + 208) * static_cast<float>(static_cast<int8_t>(block[192 + s]));
    *dscale = d;
    *bias = -32.0f * d;
  }
};

// The decoded tile: for each sub-block j, kSub / 4 vectors of codes (lane n: 4 codes of row n),
// then the 16 rows' dscale and bias.
template <int kSub>
constexpr int64_t SubBytes() {
  return (kSub / 4) * 64 + 2 * 64;
}

// The 16 rows' codes of one sub-block, codes[n] = kSub bytes of row n, into the interleaved
// layout (vector g, lane n = 32-bit word g of row n): a transpose of 32-bit words in registers.
// (Gathers would be shorter to write, but are slow on AMD Zen 4.)
HWY_INLINE void Interleave32(const uint8_t (*codes)[32], uint8_t* out) {
  __m512i z[8], a[8], b[8];
  // z[k]: row k in the low 256 bits, row k + 8 in the high; the three steps below transpose
  // both 8 x 8 word blocks at once.
  CLPORT_UNROLL
  for (int k = 0; k < 8; ++k) {
    const __m256i lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(codes[k]));
    const __m256i hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(codes[k + 8]));
    z[k] = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
  }
  CLPORT_UNROLL
  for (int k = 0; k < 8; k += 2) {
    a[k] = _mm512_unpacklo_epi32(z[k], z[k + 1]);
    a[k + 1] = _mm512_unpackhi_epi32(z[k], z[k + 1]);
  }
  // b[4h + i], in each 256-bit half: word i of rows 4h .. 4h + 3, then their word i + 4.
  CLPORT_UNROLL
  for (int h = 0; h < 2; ++h) {
    b[4 * h + 0] = _mm512_unpacklo_epi64(a[4 * h], a[4 * h + 2]);
    b[4 * h + 1] = _mm512_unpackhi_epi64(a[4 * h], a[4 * h + 2]);
    b[4 * h + 2] = _mm512_unpacklo_epi64(a[4 * h + 1], a[4 * h + 3]);
    b[4 * h + 3] = _mm512_unpackhi_epi64(a[4 * h + 1], a[4 * h + 3]);
  }
  const __m512i first = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
  const __m512i second = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  CLPORT_UNROLL
  for (int i = 0; i < 4; ++i) {
    _mm512_store_si512(out + 64 * i, _mm512_permutex2var_epi64(b[i], first, b[4 + i]));
    _mm512_store_si512(out + 64 * (i + 4), _mm512_permutex2var_epi64(b[i], second, b[4 + i]));
  }
}

HWY_INLINE void Interleave16(const uint8_t (*codes)[16], uint8_t* out) {
  __m512i z[4];
  // z[k]: rows k, k + 4, k + 8, k + 12 in its four 128-bit lanes; a 4 x 4 word transpose per lane.
  CLPORT_UNROLL
  for (int k = 0; k < 4; ++k) {
    __m512i v = _mm512_castsi128_si512(_mm_load_si128(reinterpret_cast<const __m128i*>(codes[k])));
    v = _mm512_inserti32x4(v, _mm_load_si128(reinterpret_cast<const __m128i*>(codes[k + 4])), 1);
    v = _mm512_inserti32x4(v, _mm_load_si128(reinterpret_cast<const __m128i*>(codes[k + 8])), 2);
    z[k] = _mm512_inserti32x4(v, _mm_load_si128(reinterpret_cast<const __m128i*>(codes[k + 12])), 3);
  }
  const __m512i a0 = _mm512_unpacklo_epi32(z[0], z[1]), a1 = _mm512_unpackhi_epi32(z[0], z[1]);
  const __m512i a2 = _mm512_unpacklo_epi32(z[2], z[3]), a3 = _mm512_unpackhi_epi32(z[2], z[3]);
  _mm512_store_si512(out, _mm512_unpacklo_epi64(a0, a2));
  _mm512_store_si512(out + 64, _mm512_unpackhi_epi64(a0, a2));
  _mm512_store_si512(out + 128, _mm512_unpacklo_epi64(a1, a3));
  _mm512_store_si512(out + 192, _mm512_unpackhi_epi64(a1, a3));
}

template <class Format>
void DecodeTile(const uint8_t* w, int64_t w_stride, int64_t n_w, int64_t n_sub, uint8_t* tile) {
  constexpr int kSub = Format::kSub;
  constexpr int kGroups = kSub / 4;
  alignas(64) uint8_t codes[kLanes][kSub];
  alignas(64) float dscale[kLanes], bias[kLanes];
  for (int n = n_w; n < kLanes; ++n) {
    std::memset(codes[n], 0, kSub);
    dscale[n] = bias[n] = 0.0f;
  }
  for (int64_t j = 0; j < n_sub; ++j) {
    for (int n = 0; n < n_w; ++n) Format::Decode(w + n * w_stride, j, codes[n], &dscale[n], &bias[n]);
    uint8_t* out = tile + j * SubBytes<kSub>();
    if constexpr (kSub == 32) {
      Interleave32(codes, out);
    } else {
      Interleave16(codes, out);
    }
    _mm512_store_ps(reinterpret_cast<float*>(out + 64 * kGroups), _mm512_load_ps(dscale));
    _mm512_store_ps(reinterpret_cast<float*>(out + 64 * kGroups + 64), _mm512_load_ps(bias));
  }
}

// Where activation row `row` keeps sub-block j: its codes, its scale d_a, and d_a * sum(codes).
struct Block32Acts {
  static HWY_INLINE const int8_t* Codes(const uint8_t* row, int64_t j) {
    return reinterpret_cast<const Q8Block32*>(row)[j].qs;
  }
  static HWY_INLINE float Scale(const uint8_t* row, int64_t j) { return reinterpret_cast<const Q8Block32*>(row)[j].d; }
  static HWY_INLINE float Sum(const uint8_t* row, const float*, int64_t j) {
    return reinterpret_cast<const Q8Block32*>(row)[j].s;
  }
};
template <int kSub>
struct BlockKActs {
  static constexpr int kPer = 256 / kSub;
  static HWY_INLINE const int8_t* Codes(const uint8_t* row, int64_t j) {
    return reinterpret_cast<const Q8BlockK*>(row)[j / kPer].qs + kSub * (j % kPer);
  }
  static HWY_INLINE float Scale(const uint8_t* row, int64_t j) {
    return reinterpret_cast<const Q8BlockK*>(row)[j / kPer].d;
  }
  // The Q8_K blocks keep only run sums of 16: the sums per sub-block come precomputed.
  static HWY_INLINE float Sum(const uint8_t*, const float* sums, int64_t j) { return sums[j]; }
};

HWY_INLINE __m512i Broadcast4(const int8_t* p) {
  int32_t word;
  std::memcpy(&word, p, sizeof word);
  return _mm512_set1_epi32(word);
}

// R activation rows against the decoded tile; out[r] gets the 16 rows' dot products (n_w kept).
template <class Acts, int kSub, bool kVnni, int R>
void TileRows(const uint8_t* tile, int64_t n_sub, const uint8_t* const* rows, const float* const* sums,
              float* const* out, __mmask16 keep) {
  constexpr int kGroups = kSub / 4;
  __m512 acc[R], bacc[R];
  CLPORT_UNROLL
  for (int r = 0; r < R; ++r) acc[r] = bacc[r] = _mm512_setzero_ps();
  for (int64_t j = 0; j < n_sub; ++j) {
    const uint8_t* t = tile + j * SubBytes<kSub>();
    __m512i w[kGroups];
    CLPORT_UNROLL
    for (int g = 0; g < kGroups; ++g) w[g] = _mm512_load_si512(t + 64 * g);
    const __m512 dscale = _mm512_load_ps(reinterpret_cast<const float*>(t + 64 * kGroups));
    const __m512 bias = _mm512_load_ps(reinterpret_cast<const float*>(t + 64 * kGroups + 64));
    CLPORT_UNROLL
    for (int r = 0; r < R; ++r) {
      const int8_t* a = Acts::Codes(rows[r], j);
      // Two chains, so consecutive multiply-adds of one row do not wait on each other.
      __m512i even = _mm512_setzero_si512(), odd = _mm512_setzero_si512();
      CLPORT_UNROLL
      for (int g = 0; g < kGroups; g += 2) {
        even = DotAdd<kVnni>(even, w[g], Broadcast4(a + 4 * g));
        odd = DotAdd<kVnni>(odd, w[g + 1], Broadcast4(a + 4 * g + 4));
      }
      const __m512 dot = _mm512_cvtepi32_ps(_mm512_add_epi32(even, odd));
      acc[r] = _mm512_fmadd_ps(dot, _mm512_mul_ps(dscale, _mm512_set1_ps(Acts::Scale(rows[r], j))), acc[r]);
      bacc[r] = _mm512_fmadd_ps(bias, _mm512_set1_ps(Acts::Sum(rows[r], sums[r], j)), bacc[r]);
    }
  }
  CLPORT_UNROLL
  for (int r = 0; r < R; ++r) _mm512_mask_storeu_ps(out[r], keep, _mm512_add_ps(acc[r], bacc[r]));
}

template <class Format, class Acts, bool kVnni>
void RunPromptTile(int64_t k, const uint8_t* w, int64_t w_stride, int64_t n_w, const uint8_t* acts,
                   int64_t act_stride, int64_t n_acts, const float* sums, int64_t sums_stride, float* out,
                   int64_t out_stride) {
  constexpr int kSub = Format::kSub;
  const int64_t n_sub = k / kSub;
  // One buffer per thread, kept between calls (a tile of K = 2048 is 48 KiB).
  struct alignas(64) Line {
    uint8_t bytes[64];
  };
  thread_local std::vector<Line> buffer;
  const size_t vectors = static_cast<size_t>(n_sub * SubBytes<kSub>() / 64);
  if (buffer.size() < vectors) buffer.resize(vectors);
  auto* tile = reinterpret_cast<uint8_t*>(buffer.data());
  for (int64_t n0 = 0; n0 < n_w; n0 += kLanes) {
    const int rows_here = static_cast<int>(std::min<int64_t>(kLanes, n_w - n0));
    DecodeTile<Format>(w + n0 * w_stride, w_stride, rows_here, n_sub, tile);
    const __mmask16 keep = static_cast<__mmask16>((1u << rows_here) - 1u);
    for (int64_t r0 = 0; r0 < n_acts; r0 += kRows) {
      const int mr = static_cast<int>(std::min<int64_t>(kRows, n_acts - r0));
      const uint8_t* rows[kRows];
      const float* row_sums[kRows];
      float* outs[kRows];
      for (int r = 0; r < mr; ++r) {
        rows[r] = acts + (r0 + r) * act_stride;
        row_sums[r] = sums == nullptr ? nullptr : sums + (r0 + r) * sums_stride;
        outs[r] = out + (r0 + r) * out_stride + n0;
      }
      switch (mr) {
        case 4: TileRows<Acts, kSub, kVnni, 4>(tile, n_sub, rows, row_sums, outs, keep); break;
        case 3: TileRows<Acts, kSub, kVnni, 3>(tile, n_sub, rows, row_sums, outs, keep); break;
        case 2: TileRows<Acts, kSub, kVnni, 2>(tile, n_sub, rows, row_sums, outs, keep); break;
        default: TileRows<Acts, kSub, kVnni, 1>(tile, n_sub, rows, row_sums, outs, keep); break;
      }
    }
  }
}

bool CpuHasVnni() {
  static const bool has = __builtin_cpu_supports("avx512vnni");
  return has;
}

template <class Format, class Acts>
void RunPromptTileAnyMadd(int64_t k, const uint8_t* w, int64_t w_stride, int64_t n_w, const uint8_t* acts,
                          int64_t act_stride, int64_t n_acts, const float* sums, int64_t sums_stride, float* out,
                          int64_t out_stride) {
  if (CpuHasVnni() && prompt_vnni_allowed.load(std::memory_order_relaxed)) {
    RunPromptTile<Format, Acts, true>(k, w, w_stride, n_w, acts, act_stride, n_acts, sums, sums_stride, out,
                                      out_stride);
  } else {
    RunPromptTile<Format, Acts, false>(k, w, w_stride, n_w, acts, act_stride, n_acts, sums, sums_stride, out,
                                       out_stride);
  }
}
#endif  // AVX3 targets

}  // namespace

int64_t PromptSubValues(DType dtype) {
#if defined(CLPORT_PROMPT_AVX512)
  switch (dtype) {
    case DType::Q4_0:
    case DType::Q4_1:
    case DType::Q5_0:
    case DType::Q5_1:
    case DType::Q4_K:
    case DType::Q5_K: return 32;
    case DType::Q6_K: return 16;
    default: return 0;
  }
#else
  (void)dtype;
  return 0;
#endif
}

void DotTilePrompt(DType dtype, int64_t k, const uint8_t* w, int64_t w_stride, int64_t n_w, const uint8_t* acts,
                   int64_t act_stride, int64_t n_acts, const float* sums, float* out, int64_t out_stride) {
#if defined(CLPORT_PROMPT_AVX512)
  const int64_t s32 = k / 32, s16 = k / 16;
  switch (dtype) {
#define CLPORT_PROMPT_CASE(TYPE, FORMAT, ACTS, SUMS_STRIDE)                                                    \
  case DType::TYPE:                                                                                           \
    RunPromptTileAnyMadd<FORMAT, ACTS>(k, w, w_stride, n_w, acts, act_stride, n_acts, sums, SUMS_STRIDE, out, \
                                       out_stride);                                                           \
    break;
    CLPORT_PROMPT_CASE(Q4_0, Q4_0, Block32Acts, 0)
    CLPORT_PROMPT_CASE(Q4_1, Q4_1, Block32Acts, 0)
    CLPORT_PROMPT_CASE(Q5_0, Q5_0, Block32Acts, 0)
    CLPORT_PROMPT_CASE(Q5_1, Q5_1, Block32Acts, 0)
    CLPORT_PROMPT_CASE(Q4_K, QK45Format<false>, BlockKActs<32>, s32)
    CLPORT_PROMPT_CASE(Q5_K, QK45Format<true>, BlockKActs<32>, s32)
    CLPORT_PROMPT_CASE(Q6_K, Q6KFormat, BlockKActs<16>, s16)
#undef CLPORT_PROMPT_CASE
    default: break;  // callers check PromptSubValues first
  }
#else
  (void)dtype, (void)k, (void)w, (void)w_stride, (void)n_w, (void)acts, (void)act_stride, (void)n_acts;
  (void)sums, (void)out, (void)out_stride;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace clport::fastcpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace clport::fastcpu {

HWY_EXPORT(PromptSubValues);
HWY_EXPORT(DotTilePrompt);

// No use_safe_simd_targets() here, unlike simd_target_name: it runs CPUID (slow in a VM) and this
// is asked once per mat-mul.
int64_t prompt_sub_values(DType dtype) {
  return HWY_DYNAMIC_DISPATCH(PromptSubValues)(dtype);
}

void prompt_activation_sums(DType dtype, int64_t k, const uint8_t* acts, int64_t act_stride, int64_t n_acts,
                            float* sums) {
  const int64_t sub = prompt_sub_values(dtype);
  if (activation_layout(dtype) != ActivationLayout::kQ8BlockK || sub == 0) return;
  const int64_t n_sub = k / sub, runs = sub / 16;
  for (int64_t r = 0; r < n_acts; ++r) {
    const auto* blocks = reinterpret_cast<const Q8BlockK*>(acts + r * act_stride);
    float* row = sums + r * n_sub;
    for (int64_t j = 0; j < n_sub; ++j) {
      const Q8BlockK& b = blocks[j * sub / 256];
      const int64_t first = (j * sub % 256) / 16;
      int sum = 0;
      for (int64_t i = 0; i < runs; ++i) sum += b.bsums[first + i];
      row[j] = b.d * static_cast<float>(sum);
    }
  }
}

void dot_tile_quantized_prompt(DType dtype, int64_t k, const uint8_t* w, int64_t w_stride, int64_t n_w,
                               const uint8_t* acts, int64_t act_stride, int64_t n_acts, const float* sums,
                               float* out, int64_t out_stride) {
  HWY_DYNAMIC_DISPATCH(DotTilePrompt)(dtype, k, w, w_stride, n_w, acts, act_stride, n_acts, sums, out, out_stride);
}

void set_prompt_vnni_allowed(bool allowed) { prompt_vnni_allowed.store(allowed); }

}  // namespace clport::fastcpu
#endif  // HWY_ONCE
