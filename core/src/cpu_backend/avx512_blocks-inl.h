// The 32-value weight blocks (Q4_0, Q4_1, Q5_0, Q5_1) as AVX-512 kernels decode them: the f16
// scale, the 32 unsigned codes in one 256-bit vector, value = d * code + m. Shared by the prompt
// kernels (simd_prompt_kernels.cpp) and the few-row kernels (simd_rows4_kernels.cpp), which must
// decode a block alike for their results to agree bit for bit. Included once per Highway target
// (the -inl.h idiom: the guard flips with HWY_TARGET_TOGGLE); the helpers exist for the AVX3
// targets only.
#if defined(CLPORT_AVX512_BLOCKS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CLPORT_AVX512_BLOCKS_INL_H_
#undef CLPORT_AVX512_BLOCKS_INL_H_
#else
#define CLPORT_AVX512_BLOCKS_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>
#include <cstring>

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#include <immintrin.h>

HWY_BEFORE_NAMESPACE();
namespace clport::fastcpu {
namespace HWY_NAMESPACE {
namespace avx512_blocks {

HWY_INLINE float Half(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, sizeof h);
  return _cvtsh_ss(h);
}

// 16 bytes of nibbles -> 32 codes: code j < 16 the low nibble of byte j, code j + 16 its high one.
HWY_INLINE __m256i Nibbles(const uint8_t* qs) {
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
  const __m256i both = _mm256_inserti128_si256(_mm256_castsi128_si256(bytes), _mm_srli_epi16(bytes, 4), 1);
  return _mm256_and_si256(both, _mm256_set1_epi8(0x0f));
}

// Adds 16 to code j where bit j of the little-endian 32-bit word at qh is set.
HWY_INLINE __m256i AddFifthBits(__m256i codes, const uint8_t* qh) {
  uint32_t bits;
  std::memcpy(&bits, qh, sizeof bits);
  return _mm256_mask_add_epi8(codes, static_cast<__mmask32>(bits), codes, _mm256_set1_epi8(16));
}

// One block format: kBytes a block, the nibbles at kQs, the fifth bits at kQh (-1: none), the
// minimum after d (kHasMin) or else codes offset by kOffset.
template <int Bytes, int Qs, int Qh, bool HasMin, int Offset>
struct Block32 {
  static constexpr int64_t kSize = Bytes;
  static constexpr int kQs = Qs;
  static constexpr int kQh = Qh;
  static constexpr bool kHasMin = HasMin;
  static constexpr int kOffset = Offset;
  // The block's codes; *d its scale, *m the value of code 0.
  static HWY_INLINE __m256i Decode(const uint8_t* b, float* d, float* m) {
    __m256i q = Nibbles(b + kQs);
    if constexpr (kQh >= 0) q = AddFifthBits(q, b + kQh);
    *d = Half(b);
    *m = kHasMin ? Half(b + 2) : -static_cast<float>(kOffset) * *d;
    return q;
  }
};
using Q4_0 = Block32<18, 2, -1, false, 8>;
using Q4_1 = Block32<20, 4, -1, true, 0>;
using Q5_0 = Block32<22, 6, 2, false, 16>;
using Q5_1 = Block32<24, 8, 4, true, 0>;

}  // namespace avx512_blocks
}  // namespace HWY_NAMESPACE
}  // namespace clport::fastcpu
HWY_AFTER_NAMESPACE();

#endif  // AVX3 targets
#endif  // per-target guard
