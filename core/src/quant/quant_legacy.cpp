// Q4_0, Q4_1, Q5_0, Q5_1, Q8_0: 32-element blocks with one half scale (and a half minimum for the
// "_1" variants). Nibble order is the GGUF one: element j < 16 is the low nibble of qs[j] and
// element j + 16 the high nibble of qs[j]; for the 5-bit formats bit j of the little-endian
// 32-bit qh word is the fifth bit of element j.
#include <algorithm>
#include <cmath>

#include "quant/quant_blocks.h"

namespace clport::quant {
namespace {

constexpr int kHalf = kQK / 2;

// Byte sizes and field offsets of each block.
constexpr int kQ4_0Bytes = 18;  // d, qs[16]
constexpr int kQ4_1Bytes = 20;  // d, m, qs[16]
constexpr int kQ5_0Bytes = 22;  // d, qh[4], qs[16]
constexpr int kQ5_1Bytes = 24;  // d, m, qh[4], qs[16]
constexpr int kQ8_0Bytes = 34;  // d, qs[32] (int8)

int clamp_int(long v, int lo, int hi) {
  return static_cast<int>(std::min<long>(std::max<long>(v, lo), hi));
}

// The element of largest magnitude, keeping its sign: symmetric formats map it to the most
// negative code so the full code range is used on that side.
float signed_absmax(const float* x, int n) {
  float best = 0.0f;
  for (int i = 0; i < n; ++i) {
    if (std::fabs(x[i]) > std::fabs(best)) best = x[i];
  }
  return best;
}

void min_max(const float* x, int n, float* lo, float* hi) {
  *lo = x[0];
  *hi = x[0];
  for (int i = 1; i < n; ++i) {
    *lo = std::min(*lo, x[i]);
    *hi = std::max(*hi, x[i]);
  }
}

// Fifth bits of the 32 elements as 0 / 16, so the decode loops below have no per-lane shifts.
void unpack_fifth_bits(uint32_t qh, int out[kQK]) {
  for (int j = 0; j < kQK; ++j) out[j] = static_cast<int>(((qh >> j) & 1u) << 4);
}

void pack_nibbles(const int* q, uint8_t* qs) {
  for (int j = 0; j < kHalf; ++j)
    qs[j] = static_cast<uint8_t>((q[j] & 0xf) | ((q[j + kHalf] & 0xf) << 4));
}

uint32_t pack_fifth_bits(const int* q) {
  uint32_t qh = 0;
  for (int j = 0; j < kQK; ++j) qh |= static_cast<uint32_t>((q[j] >> 4) & 1) << j;
  return qh;
}

// Symmetric 4/5-bit: value = (q - bias) * d with q in [0, 2 * bias - 1].
void quant_symmetric(const float* x, uint8_t* d_out, int bias, int q[kQK]) {
  const float max = signed_absmax(x, kQK);
  const float d = store_half(d_out, max / static_cast<float>(-bias));
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  for (int j = 0; j < kQK; ++j) q[j] = clamp_int(std::lround(x[j] * id) + bias, 0, 2 * bias - 1);
}

// Asymmetric 4/5-bit: value = q * d + m with q in [0, nmax].
void quant_asymmetric(const float* x, uint8_t* dm_out, int nmax, int q[kQK]) {
  float lo, hi;
  min_max(x, kQK, &lo, &hi);
  const float d = store_half(dm_out, (hi - lo) / static_cast<float>(nmax));
  const float m = store_half(dm_out + 2, lo);
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  for (int j = 0; j < kQK; ++j) q[j] = clamp_int(std::lround((x[j] - m) * id), 0, nmax);
}

}  // namespace

void dequant_q4_0(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks) {
  for (int64_t b = 0; b < nblocks; ++b, src += kQ4_0Bytes, dst += kQK) {
    const float d = load_half(src);
    const uint8_t* qs = src + 2;
    for (int j = 0; j < kHalf; ++j) {
      dst[j] = static_cast<float>((qs[j] & 0xf) - 8) * d;
      dst[j + kHalf] = static_cast<float>((qs[j] >> 4) - 8) * d;
    }
  }
}

void dequant_q4_1(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks) {
  for (int64_t b = 0; b < nblocks; ++b, src += kQ4_1Bytes, dst += kQK) {
    const float d = load_half(src);
    const float m = load_half(src + 2);
    const uint8_t* qs = src + 4;
    for (int j = 0; j < kHalf; ++j) {
      dst[j] = static_cast<float>(qs[j] & 0xf) * d + m;
      dst[j + kHalf] = static_cast<float>(qs[j] >> 4) * d + m;
    }
  }
}

void dequant_q5_0(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks) {
  for (int64_t b = 0; b < nblocks; ++b, src += kQ5_0Bytes, dst += kQK) {
    const float d = load_half(src);
    int fifth[kQK];
    unpack_fifth_bits(load_u32(src + 2), fifth);
    const uint8_t* qs = src + 6;
    for (int j = 0; j < kHalf; ++j) {
      const int lo = (qs[j] & 0xf) | fifth[j];
      const int hi = (qs[j] >> 4) | fifth[j + kHalf];
      dst[j] = static_cast<float>(lo - 16) * d;
      dst[j + kHalf] = static_cast<float>(hi - 16) * d;
    }
  }
}

void dequant_q5_1(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks) {
  for (int64_t b = 0; b < nblocks; ++b, src += kQ5_1Bytes, dst += kQK) {
    const float d = load_half(src);
    const float m = load_half(src + 2);
    int fifth[kQK];
    unpack_fifth_bits(load_u32(src + 4), fifth);
    const uint8_t* qs = src + 8;
    for (int j = 0; j < kHalf; ++j) {
      const int lo = (qs[j] & 0xf) | fifth[j];
      const int hi = (qs[j] >> 4) | fifth[j + kHalf];
      dst[j] = static_cast<float>(lo) * d + m;
      dst[j + kHalf] = static_cast<float>(hi) * d + m;
    }
  }
}

void dequant_q8_0(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks) {
  for (int64_t b = 0; b < nblocks; ++b, src += kQ8_0Bytes, dst += kQK) {
    const float d = load_half(src);
    const int8_t* qs = reinterpret_cast<const int8_t*>(src + 2);
    for (int j = 0; j < kQK; ++j) dst[j] = static_cast<float>(qs[j]) * d;
  }
}

void quant_q4_0(const float* src, uint8_t* dst, int64_t nblocks) {
  int q[kQK];
  for (int64_t b = 0; b < nblocks; ++b, src += kQK, dst += kQ4_0Bytes) {
    quant_symmetric(src, dst, 8, q);
    pack_nibbles(q, dst + 2);
  }
}

void quant_q4_1(const float* src, uint8_t* dst, int64_t nblocks) {
  int q[kQK];
  for (int64_t b = 0; b < nblocks; ++b, src += kQK, dst += kQ4_1Bytes) {
    quant_asymmetric(src, dst, 15, q);
    pack_nibbles(q, dst + 4);
  }
}

void quant_q5_0(const float* src, uint8_t* dst, int64_t nblocks) {
  int q[kQK];
  for (int64_t b = 0; b < nblocks; ++b, src += kQK, dst += kQ5_0Bytes) {
    quant_symmetric(src, dst, 16, q);
    store_u32(dst + 2, pack_fifth_bits(q));
    pack_nibbles(q, dst + 6);
  }
}

void quant_q5_1(const float* src, uint8_t* dst, int64_t nblocks) {
  int q[kQK];
  for (int64_t b = 0; b < nblocks; ++b, src += kQK, dst += kQ5_1Bytes) {
    quant_asymmetric(src, dst, 31, q);
    store_u32(dst + 4, pack_fifth_bits(q));
    pack_nibbles(q, dst + 8);
  }
}

void quant_q8_0(const float* src, uint8_t* dst, int64_t nblocks) {
  for (int64_t b = 0; b < nblocks; ++b, src += kQK, dst += kQ8_0Bytes) {
    float amax = 0.0f;
    for (int j = 0; j < kQK; ++j) amax = std::max(amax, std::fabs(src[j]));
    const float d = store_half(dst, amax / 127.0f);
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    for (int j = 0; j < kQK; ++j) {
      const int q = clamp_int(std::lround(src[j] * id), -127, 127);
      dst[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(q));
    }
  }
}

}  // namespace clport::quant
