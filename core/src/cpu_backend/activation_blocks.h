// Quantized activation rows for the integer mat-mul: the layouts llama.cpp uses for its
// activations, so that a weight block's numbers mean the same here as there.
//  Q8_1-style 32-value block (for Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 weights): scale d, the block sum
//    s = d * sum(qs) and 32 int8 codes, value = d * q. The sum lets a weight minimum (or the
//    constant offset of the symmetric 4/5-bit codes) be applied once per block instead of per
//    value. Scales are kept in f32 (llama.cpp's Q8_1 rounds them to f16) for a little accuracy
//    at no speed cost.
//  Q8_K 256-value block (for Q4_K, Q5_K, Q6_K weights): f32 scale d, 256 int8 codes and the sum
//    of each run of 16 codes (bsums), which carry the K-quant minimums and Q6_K's offset.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/dtype.h"

namespace clport::fastcpu {

struct Q8Block32 {
  float d;
  float s;  // d * sum(qs)
  int8_t qs[32];
};
static_assert(sizeof(Q8Block32) == 40, "packed activation block");

struct Q8BlockK {
  float d;
  int8_t qs[256];
  int16_t bsums[16];  // bsums[j] = sum(qs[16 j .. 16 j + 15])
};
static_assert(sizeof(Q8BlockK) == 292, "packed activation block");

// Which activation layout a weight dtype is multiplied with.
enum class ActivationLayout { kNone, kQ8Block32, kQ8BlockK };

inline ActivationLayout activation_layout(DType weight) {
  switch (weight) {
    case DType::Q4_0:
    case DType::Q4_1:
    case DType::Q5_0:
    case DType::Q5_1:
    case DType::Q8_0: return ActivationLayout::kQ8Block32;
    case DType::Q4_K:
    case DType::Q5_K:
    case DType::Q6_K: return ActivationLayout::kQ8BlockK;
    // F32 / F16 / BF16 weights, and the quantized dtypes without an integer kernel (Q2_K, Q3_K,
    // IQ4_NL), take float activations.
    default: return ActivationLayout::kNone;
  }
}

// Values per activation block of a layout (0 for float activations).
inline int64_t activation_block_values(ActivationLayout layout) {
  switch (layout) {
    case ActivationLayout::kQ8Block32: return 32;
    case ActivationLayout::kQ8BlockK: return 256;
    default: return 0;
  }
}

// Bytes of one quantized activation row of k values (k a multiple of the layout's block size).
inline int64_t activation_row_bytes(ActivationLayout layout, int64_t k) {
  switch (layout) {
    case ActivationLayout::kQ8Block32: return k / 32 * static_cast<int64_t>(sizeof(Q8Block32));
    case ActivationLayout::kQ8BlockK: return k / 256 * static_cast<int64_t>(sizeof(Q8BlockK));
    default: return 0;
  }
}

// IEEE half to float without a library call, exact for every input (the weight scales are read
// in the innermost loops). Normal and subnormal halves are rescaled by 2^112 in float, which is
// exact; infinities and NaNs keep their payload.
inline float half_to_float_inline(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t magnitude = static_cast<uint32_t>(h & 0x7fffu) << 13;
  float f;
  if (magnitude >= (0x7c00u << 13)) {
    const uint32_t bits = sign | 0x7f800000u | magnitude;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  std::memcpy(&f, &magnitude, sizeof f);
  f *= 5.192296858534828e+33f;  // 2^112
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits |= sign;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline float load_half_inline(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, sizeof h);  // GGUF is little-endian, as every target Highway serves here
  return half_to_float_inline(h);
}

}  // namespace clport::fastcpu
