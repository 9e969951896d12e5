// IEEE 754 binary16 <-> binary32 by bit manipulation, so results do not depend on the compiler's
// or the CPU's half support (F16C, _Float16) and are identical on every host.
#include <cstring>

#include "quant/quant.h"
#include "quant/quant_blocks.h"

namespace clport {
namespace {

float bits_to_float(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint32_t float_to_bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

// Shifts `value` right by `shift` bits rounding to nearest, ties to even.
uint32_t shift_round_even(uint32_t value, int shift) {
  const uint32_t kept = value >> shift;
  const uint32_t rest = value & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (kept & 1u))) return kept + 1u;
  return kept;
}

}  // namespace

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24 is exact in float.
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return bits_to_float(sign | 0x7f800000u | (mantissa << 13));  // inf / nan
  return bits_to_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

uint16_t float_to_half(float f) {
  const uint32_t bits = float_to_bits(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;

  if (magnitude > 0x7f800000u) {
    // NaN: keep the top payload bits and force the quiet bit so it never becomes an infinity.
    return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  }
  if (magnitude >= 0x47800000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65536: inf
  if (magnitude < 0x38800000u) {
    // Below the smallest normal half (2^-14): a subnormal half or zero. The float's value is
    // mantissa24 * 2^(e-150); in units of 2^-24 that is mantissa24 >> (126 - e).
    const int exponent = static_cast<int>(magnitude >> 23);
    if (exponent < 102) return sign;  // < 2^-25: rounds to zero even at a tie
    const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    return static_cast<uint16_t>(sign | shift_round_even(mantissa, 126 - exponent));
  }
  // Normal: rebias the exponent and round the 23-bit mantissa to 10 bits. A rounding carry
  // moves into the exponent, which is what makes 65520 and above round to infinity.
  const uint32_t rebased = magnitude - (112u << 23);
  return static_cast<uint16_t>(sign | shift_round_even(rebased, 13));
}

namespace quant {

namespace {

float half_bits_to_float_branchless(uint32_t h) {
  // Shifting the 15 magnitude bits into float position and multiplying by 2^112 rebiases the
  // exponent and, for subnormal halves, scales the (float subnormal) pattern to the exact value;
  // only inf/nan need their exponent forced to 255. No branches, so loops over it vectorise.
  const float rebias = 5.192296858534828e33f;  // 2^112
  const float scaled = bits_to_float((h & 0x7fffu) << 13) * rebias;
  uint32_t bits = float_to_bits(scaled);
  bits |= ((h & 0x7c00u) == 0x7c00u) ? 0x7f800000u : 0u;
  return bits_to_float(bits | ((h & 0x8000u) << 16));
}

}  // namespace

void half_row_to_float(const uint8_t* __restrict src, float* __restrict dst, int64_t n) {
  // Fixed-size inner chunks without aliasing let the compiler vectorise at -O2.
  constexpr int kChunk = 16;
  int64_t i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  // On little-endian hosts the stored bytes are already uint16 values.
  for (; i + kChunk <= n; i += kChunk) {
    uint16_t h[kChunk];
    std::memcpy(h, src + 2 * i, sizeof h);
    float* d = dst + i;
    for (int j = 0; j < kChunk; ++j) d[j] = half_bits_to_float_branchless(h[j]);
  }
#endif
  for (; i < n; ++i) {
    dst[i] = half_bits_to_float_branchless(static_cast<uint32_t>(src[2 * i]) |
                                           (static_cast<uint32_t>(src[2 * i + 1]) << 8));
  }
}

}  // namespace quant
}  // namespace clport
