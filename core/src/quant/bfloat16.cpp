// bfloat16 <-> float: a bfloat16 is the top 16 bits of an IEEE binary32, so widening is a shift
// and narrowing rounds the dropped 16 bits to nearest, ties to even (NaNs stay NaN).
#include <cstring>

#include "quant/quant_blocks.h"

namespace clport::quant {

float bf16_to_float(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint16_t float_to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<uint16_t>((bits >> 16) | 0x40u);  // quiet NaN; rounding could make it inf
  }
  const uint32_t round = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + round) >> 16);
}

void bf16_row_to_float(const uint8_t* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_float(load_u16(src + 2 * i));
}

void float_row_to_bf16(const float* src, uint8_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) store_u16(dst + 2 * i, float_to_bf16(src[i]));
}

}  // namespace clport::quant
