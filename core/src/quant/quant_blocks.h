// Internal: per-format block codecs behind dequantize_row / quantize_row. Every function works on
// `nblocks` whole blocks laid out exactly as GGUF stores them (little-endian, packed, no padding).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "quant/quant.h"

namespace clport::quant {

// Block geometry (GGUF facts; dtype.cpp holds the same numbers for the rest of the core).
inline constexpr int kQK = 32;    // elements per legacy block (Q4_0 .. Q8_0)
inline constexpr int kQKK = 256;  // elements per K-quant super-block

// Nearest integer to v, clamped to [lo, hi] (quantizer codes).
inline int round_clamp(float v, int lo, int hi) {
  return static_cast<int>(std::min<long>(std::max<long>(std::lround(v), lo), hi));
}

inline uint16_t load_u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t load_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}
inline void store_u16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v & 0xff);
  p[1] = static_cast<uint8_t>(v >> 8);
}
inline void store_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>((v >> (8 * i)) & 0xff);
}
inline float load_half(const uint8_t* p) { return half_to_float(load_u16(p)); }
// Stores f as half and returns the value actually stored, so quantizers can use the rounded
// scale (what a decoder will see) when they pick the integer codes.
inline float store_half(uint8_t* p, float f) {
  const uint16_t h = float_to_half(f);
  store_u16(p, h);
  return half_to_float(h);
}

// n halves (little-endian bytes) to float; same results as half_to_float, faster on rows.
void half_row_to_float(const uint8_t* src, float* dst, int64_t n);

// Legacy 32-element formats (quant_legacy.cpp).
void dequant_q4_0(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks);
void dequant_q4_1(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks);
void dequant_q5_0(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks);
void dequant_q5_1(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks);
void dequant_q8_0(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks);
void quant_q4_0(const float* src, uint8_t* dst, int64_t nblocks);
void quant_q4_1(const float* src, uint8_t* dst, int64_t nblocks);
void quant_q5_0(const float* src, uint8_t* dst, int64_t nblocks);
void quant_q5_1(const float* src, uint8_t* dst, int64_t nblocks);
void quant_q8_0(const float* src, uint8_t* dst, int64_t nblocks);

// K-quant 256-element super-blocks (quant_k.cpp, scale search in quant_k_search.cpp).
void dequant_q4_k(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks);
void dequant_q5_k(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks);
void dequant_q6_k(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks);
void quant_q4_k(const float* src, uint8_t* dst, int64_t nblocks);
void quant_q5_k(const float* src, uint8_t* dst, int64_t nblocks);
void quant_q6_k(const float* src, uint8_t* dst, int64_t nblocks);

// The 2- and 3-bit K-quants (quant_k_low.cpp).
void dequant_q2_k(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks);
void dequant_q3_k(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks);
void quant_q2_k(const float* src, uint8_t* dst, int64_t nblocks);
void quant_q3_k(const float* src, uint8_t* dst, int64_t nblocks);

// IQ4_NL, 32 elements of 4-bit indices into kIq4nlTable (quant_iq4_nl.cpp). The table is the
// GGUF format's fixed one.
inline constexpr int8_t kIq4nlTable[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                           1,    13,   25,  38,  53,  69,  89,  113};
void dequant_iq4_nl(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks);
void quant_iq4_nl(const float* src, uint8_t* dst, int64_t nblocks);

// bfloat16 (bfloat16.cpp): n little-endian bf16 values <-> float.
float bf16_to_float(uint16_t h);
uint16_t float_to_bf16(float f);  // round to nearest even; NaN stays NaN
void bf16_row_to_float(const uint8_t* src, float* dst, int64_t n);
void float_row_to_bf16(const float* src, uint8_t* dst, int64_t n);

// Scale searches shared by the K-quant encoders (quant_k_search.cpp).
// Fits x[i] ~= scale * q[i] - offset with q in [0, nmax], scale >= 0, offset >= 0 (the K-quant
// "min" is stored as a non-negative offset subtracted from every value).
void fit_scale_offset(const float* x, int n, int nmax, float* scale, float* offset);
// Fits x[i] ~= scale * q[i] with q in [qmin, qmax] (symmetric formats, scale may be negative).
float fit_scale_symmetric(const float* x, int n, int qmin, int qmax);

}  // namespace clport::quant
