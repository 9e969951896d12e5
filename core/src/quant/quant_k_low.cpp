// The 2- and 3-bit K-quants: 256-element super-blocks of 16 sub-blocks of 16 elements.
//  Q2_K (84 B): scales[16], qs[64], half d, half dmin. scales[s] holds sub-block s's 4-bit scale
//    (low nibble) and 4-bit min (high nibble); value = d*sc*q - dmin*m with q in 0..3.
//  Q3_K (110 B): hmask[32], qs[64], scales[12], half d. 16 signed 6-bit scales (stored + 32);
//    value = d*(scale-32)*(q - 4) with q in 0..7, its bit 2 kept in hmask.
// Both place element 128n + 32j + l (n < 2, j < 4, l < 32) in bits 2j, 2j+1 of qs[32n + l], in
// sub-block 8n + 2j + l/16; Q3_K's third bit is bit 4n + j of hmask[l]. The 12 Q3_K scale
// bytes: scale i's low nibble is nibble i/8 of byte i%8, its top 2 bits are bits 2(i/4), 2(i/4)+1
// of byte 8 + i%4.
#include <algorithm>
#include <cmath>

#include "quant/quant_blocks.h"

namespace clport::quant {
namespace {

constexpr int kQ2KBytes = 84;
constexpr int kQ3KBytes = 110;
constexpr int kLowSub = 16;
constexpr int kLowSubLen = 16;


// Sub-block (0..15) and the qs byte / bit pair of element e.
int sub_of(int e) { return e / kLowSubLen; }
int qs_index(int e) { return 32 * (e / 128) + e % 32; }
int qs_shift(int e) { return 2 * ((e % 128) / 32); }

int q3_scale(const uint8_t* p, int i) {
  const int low = (p[i % 8] >> (4 * (i / 8))) & 0xf;
  const int high = (p[8 + i % 4] >> (2 * (i / 4))) & 3;
  return (low | (high << 4)) - 32;
}

void pack_q3_scales(const int sc[kLowSub], uint8_t* p) {
  for (int i = 0; i < 12; ++i) p[i] = 0;
  for (int i = 0; i < kLowSub; ++i) {
    const int u = sc[i] + 32;
    p[i % 8] = static_cast<uint8_t>(p[i % 8] | ((u & 0xf) << (4 * (i / 8))));
    p[8 + i % 4] = static_cast<uint8_t>(p[8 + i % 4] | ((u >> 4) << (2 * (i / 4))));
  }
}

}  // namespace

void dequant_q2_k(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks) {
  for (int64_t b = 0; b < nblocks; ++b, src += kQ2KBytes, dst += kQKK) {
    const uint8_t* scales = src;
    const uint8_t* qs = src + 16;
    const float d = load_half(src + 80);
    const float dmin = load_half(src + 82);
    for (int e = 0; e < kQKK; ++e) {
      const uint8_t sm = scales[sub_of(e)];
      const int q = (qs[qs_index(e)] >> qs_shift(e)) & 3;
      dst[e] = d * static_cast<float>(sm & 0xf) * static_cast<float>(q) -
               dmin * static_cast<float>(sm >> 4);
    }
  }
}

void dequant_q3_k(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks) {
  for (int64_t b = 0; b < nblocks; ++b, src += kQ3KBytes, dst += kQKK) {
    const uint8_t* hmask = src;
    const uint8_t* qs = src + 32;
    const uint8_t* scales = src + 96;
    const float d = load_half(src + 108);
    float step[kLowSub];
    for (int s = 0; s < kLowSub; ++s) step[s] = d * static_cast<float>(q3_scale(scales, s));
    for (int e = 0; e < kQKK; ++e) {
      const int low = (qs[qs_index(e)] >> qs_shift(e)) & 3;
      const int bit = (hmask[e % 32] >> (4 * (e / 128) + (e % 128) / 32)) & 1;
      dst[e] = step[sub_of(e)] * static_cast<float>(low + 4 * bit - 4);
    }
  }
}

void quant_q2_k(const float* src, uint8_t* dst, int64_t nblocks) {
  for (int64_t b = 0; b < nblocks; ++b, src += kQKK, dst += kQ2KBytes) {
    float scale[kLowSub], offset[kLowSub];
    float max_scale = 0.0f, max_offset = 0.0f;
    for (int s = 0; s < kLowSub; ++s) {
      fit_scale_offset(src + s * kLowSubLen, kLowSubLen, 3, &scale[s], &offset[s]);
      max_scale = std::max(max_scale, scale[s]);
      max_offset = std::max(max_offset, offset[s]);
    }
    const float d = store_half(dst + 80, max_scale / 15.0f);
    const float dmin = store_half(dst + 82, max_offset / 15.0f);
    uint8_t* qs = dst + 16;
    for (int i = 0; i < 64; ++i) qs[i] = 0;
    float step[kLowSub], off[kLowSub];
    for (int s = 0; s < kLowSub; ++s) {
      const int sc = d > 0.0f ? round_clamp(scale[s] / d, 0, 15) : 0;
      const int m = dmin > 0.0f ? round_clamp(offset[s] / dmin, 0, 15) : 0;
      dst[s] = static_cast<uint8_t>(sc | (m << 4));
      step[s] = d * static_cast<float>(sc);
      off[s] = dmin * static_cast<float>(m);
    }
    for (int e = 0; e < kQKK; ++e) {
      const int s = sub_of(e);
      const int q = step[s] > 0.0f ? round_clamp((src[e] + off[s]) / step[s], 0, 3) : 0;
      qs[qs_index(e)] = static_cast<uint8_t>(qs[qs_index(e)] | (q << qs_shift(e)));
    }
  }
}

void quant_q3_k(const float* src, uint8_t* dst, int64_t nblocks) {
  for (int64_t b = 0; b < nblocks; ++b, src += kQKK, dst += kQ3KBytes) {
    float scale[kLowSub];
    float extreme = 0.0f;  // the scale of largest magnitude, with its sign: it gets code -32
    for (int s = 0; s < kLowSub; ++s) {
      scale[s] = fit_scale_symmetric(src + s * kLowSubLen, kLowSubLen, -4, 3);
      if (std::fabs(scale[s]) > std::fabs(extreme)) extreme = scale[s];
    }
    const float d = store_half(dst + 108, extreme / -32.0f);
    int sc[kLowSub];
    for (int s = 0; s < kLowSub; ++s) sc[s] = d != 0.0f ? round_clamp(scale[s] / d, -32, 31) : 0;
    pack_q3_scales(sc, dst + 96);
    uint8_t* hmask = dst;
    uint8_t* qs = dst + 32;
    for (int i = 0; i < 96; ++i) dst[i] = 0;
    for (int e = 0; e < kQKK; ++e) {
      const float step = d * static_cast<float>(sc[sub_of(e)]);
      const int u = (step != 0.0f ? round_clamp(src[e] / step, -4, 3) : 0) + 4;
      qs[qs_index(e)] = static_cast<uint8_t>(qs[qs_index(e)] | ((u & 3) << qs_shift(e)));
      const int bit = 4 * (e / 128) + (e % 128) / 32;
      hmask[e % 32] = static_cast<uint8_t>(hmask[e % 32] | ((u >> 2) << bit));
    }
  }
}

}  // namespace clport::quant
