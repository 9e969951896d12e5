// K-quants: 256-element super-blocks.
//  Q4_K (144 B): half d, half dmin, scales[12], qs[128]. 8 sub-blocks of 32; sub-block s has a
//    6-bit scale sc[s] and 6-bit min m[s]; value = d*sc[s]*q - dmin*m[s]. Elements 64c..64c+31
//    are the low nibbles of qs[32c..32c+31], elements 64c+32..64c+63 the high nibbles.
//  Q5_K (176 B): as Q4_K plus qh[32] between scales and qs; bit s of qh[l] is the fifth bit of
//    element 32s + l.
//  Q6_K (210 B): ql[128], qh[64], int8 scales[16], half d. 16 sub-blocks of 16, value =
//    d*scales[e/16]*(q-32). Each 128-element half n uses ql[64n..], qh[32n..]; element
//    128n + 32k + l takes its low 4 bits from ql[64n + l + 32(k&1)] (low nibble for k < 2, high
//    nibble otherwise) and its top 2 bits from bits 2k..2k+1 of qh[32n + l].
// The 12 packed scale bytes: bytes 0-3 hold sc[0..3] in bits 0-5, bytes 4-7 hold m[0..3] in
// bits 0-5; byte 8+j holds the low 4 bits of sc[4+j] (low nibble) and m[4+j] (high nibble); the
// top 2 bits of sc[4+j] sit in bits 6-7 of byte j, those of m[4+j] in bits 6-7 of byte 4+j.
#include <algorithm>
#include <cmath>

#include "quant/quant_blocks.h"

namespace clport::quant {
namespace {

constexpr int kQ4KBytes = 144;
constexpr int kQ5KBytes = 176;
constexpr int kQ6KBytes = 210;
constexpr int kSub = 8;  // Q4_K / Q5_K sub-blocks
constexpr int kSubLen = 32;
constexpr int kScaleBytes = 12;

void unpack_scales(const uint8_t* p, uint8_t sc[kSub], uint8_t m[kSub]) {
  for (int j = 0; j < 4; ++j) {
    sc[j] = p[j] & 63;
    m[j] = p[j + 4] & 63;
    sc[j + 4] = static_cast<uint8_t>((p[j + 8] & 0xf) | ((p[j] >> 6) << 4));
    m[j + 4] = static_cast<uint8_t>((p[j + 8] >> 4) | ((p[j + 4] >> 6) << 4));
  }
}

void pack_scales(const uint8_t sc[kSub], const uint8_t m[kSub], uint8_t* p) {
  for (int j = 0; j < 4; ++j) {
    p[j] = static_cast<uint8_t>((sc[j] & 63) | ((sc[j + 4] >> 4) << 6));
    p[j + 4] = static_cast<uint8_t>((m[j] & 63) | ((m[j + 4] >> 4) << 6));
    p[j + 8] = static_cast<uint8_t>((sc[j + 4] & 0xf) | ((m[j + 4] & 0xf) << 4));
  }
}


// Shared Q4_K / Q5_K body: x[32s + l] = d*sc[s]*q - dmin*m[s], q read by `code(s, l)`.
template <typename CodeFn>
void dequant_scale_min(const uint8_t* block, float* dst, CodeFn code) {
  const float d = load_half(block);
  const float dmin = load_half(block + 2);
  uint8_t sc[kSub], m[kSub];
  unpack_scales(block + 4, sc, m);
  for (int s = 0; s < kSub; ++s) {
    const float step = d * sc[s];
    const float offset = dmin * m[s];
    float* y = dst + s * kSubLen;
    for (int l = 0; l < kSubLen; ++l) y[l] = step * static_cast<float>(code(s, l)) - offset;
  }
}

// Shared Q4_K / Q5_K encoder: fills d, dmin and the packed scales of `block` and returns the
// codes q[256] in [0, nmax] chosen with the stored (rounded) scales.
void encode_scale_min(const float* x, int nmax, uint8_t* block, int q[kQKK]) {
  float scale[kSub], offset[kSub];
  float max_scale = 0.0f, max_offset = 0.0f;
  for (int s = 0; s < kSub; ++s) {
    fit_scale_offset(x + s * kSubLen, kSubLen, nmax, &scale[s], &offset[s]);
    max_scale = std::max(max_scale, scale[s]);
    max_offset = std::max(max_offset, offset[s]);
  }
  const float d = store_half(block, max_scale / 63.0f);
  const float dmin = store_half(block + 2, max_offset / 63.0f);
  uint8_t sc[kSub], m[kSub];
  for (int s = 0; s < kSub; ++s) {
    sc[s] = static_cast<uint8_t>(d > 0.0f ? round_clamp(scale[s] / d, 0, 63) : 0);
    m[s] = static_cast<uint8_t>(dmin > 0.0f ? round_clamp(offset[s] / dmin, 0, 63) : 0);
  }
  pack_scales(sc, m, block + 4);
  for (int s = 0; s < kSub; ++s) {
    const float step = d * sc[s];
    const float off = dmin * m[s];
    for (int l = 0; l < kSubLen; ++l) {
      const int e = s * kSubLen + l;
      q[e] = step > 0.0f ? round_clamp((x[e] + off) / step, 0, nmax) : 0;
    }
  }
}

// Low 4 bits of element 32s + l of a Q4_K / Q5_K block live in qs[32*(s/2) + l].
void pack_low_nibbles(const int q[kQKK], uint8_t* qs) {
  for (int c = 0; c < kSub / 2; ++c) {
    for (int l = 0; l < kSubLen; ++l) {
      const int lo = q[(2 * c) * kSubLen + l] & 0xf;
      const int hi = q[(2 * c + 1) * kSubLen + l] & 0xf;
      qs[c * kSubLen + l] = static_cast<uint8_t>(lo | (hi << 4));
    }
  }
}

int nibble(const uint8_t* qs, int s, int l) {
  const uint8_t byte = qs[(s / 2) * kSubLen + l];
  return (s & 1) ? (byte >> 4) : (byte & 0xf);
}

}  // namespace

void dequant_q4_k(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks) {
  for (int64_t b = 0; b < nblocks; ++b, src += kQ4KBytes, dst += kQKK) {
    const uint8_t* qs = src + 4 + kScaleBytes;
    dequant_scale_min(src, dst, [qs](int s, int l) { return nibble(qs, s, l); });
  }
}

void dequant_q5_k(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks) {
  for (int64_t b = 0; b < nblocks; ++b, src += kQ5KBytes, dst += kQKK) {
    const uint8_t* qh = src + 4 + kScaleBytes;
    const uint8_t* qs = qh + kSubLen;
    dequant_scale_min(
        src, dst, [qs, qh](int s, int l) { return nibble(qs, s, l) | (((qh[l] >> s) & 1) << 4); });
  }
}

void dequant_q6_k(const uint8_t* __restrict src, float* __restrict dst, int64_t nblocks) {
  for (int64_t b = 0; b < nblocks; ++b, src += kQ6KBytes, dst += kQKK) {
    const uint8_t* ql = src;
    const uint8_t* qh = src + 128;
    const int8_t* scales = reinterpret_cast<const int8_t*>(src + 192);
    const float d = load_half(src + 208);
    // Per (half, k, 16-element run) the scale, the ql nibble and the qh bit pair are fixed, so
    // the inner loop has constant shifts and vectorises.
    for (int half = 0; half < 2; ++half) {
      for (int k = 0; k < 4; ++k) {
        for (int run = 0; run < 2; ++run) {
          const float step = d * static_cast<float>(scales[8 * half + 2 * k + run]);
          const uint8_t* low = ql + 64 * half + 32 * (k & 1) + 16 * run;
          const uint8_t* high = qh + 32 * half + 16 * run;
          const int low_shift = k < 2 ? 0 : 4;
          float* y = dst + 128 * half + 32 * k + 16 * run;
          for (int l = 0; l < 16; ++l) {
            const int q = ((low[l] >> low_shift) & 0xf) | (((high[l] >> (2 * k)) & 3) << 4);
            y[l] = step * static_cast<float>(q - 32);
          }
        }
      }
    }
  }
}

void quant_q4_k(const float* src, uint8_t* dst, int64_t nblocks) {
  int q[kQKK];
  for (int64_t b = 0; b < nblocks; ++b, src += kQKK, dst += kQ4KBytes) {
    encode_scale_min(src, 15, dst, q);
    pack_low_nibbles(q, dst + 4 + kScaleBytes);
  }
}

void quant_q5_k(const float* src, uint8_t* dst, int64_t nblocks) {
  int q[kQKK];
  for (int64_t b = 0; b < nblocks; ++b, src += kQKK, dst += kQ5KBytes) {
    encode_scale_min(src, 31, dst, q);
    uint8_t* qh = dst + 4 + kScaleBytes;
    for (int l = 0; l < kSubLen; ++l) {
      uint8_t bits = 0;
      for (int s = 0; s < kSub; ++s)
        bits = static_cast<uint8_t>(bits | (((q[s * kSubLen + l] >> 4) & 1) << s));
      qh[l] = bits;
    }
    pack_low_nibbles(q, qh + kSubLen);
  }
}

void quant_q6_k(const float* src, uint8_t* dst, int64_t nblocks) {
  constexpr int kSub6 = 16, kSubLen6 = 16;
  for (int64_t b = 0; b < nblocks; ++b, src += kQKK, dst += kQ6KBytes) {
    float scale[kSub6];
    float max_abs = 0.0f;
    for (int s = 0; s < kSub6; ++s) {
      scale[s] = fit_scale_symmetric(src + s * kSubLen6, kSubLen6, -32, 31);
      max_abs = std::max(max_abs, std::fabs(scale[s]));
    }
    const float d = store_half(dst + 208, max_abs / 127.0f);
    int8_t* scales = reinterpret_cast<int8_t*>(dst + 192);
    int q[kQKK];
    for (int s = 0; s < kSub6; ++s) {
      const int sc = d > 0.0f ? round_clamp(scale[s] / d, -127, 127) : 0;
      scales[s] = static_cast<int8_t>(sc);
      const float step = d * static_cast<float>(sc);
      for (int l = 0; l < kSubLen6; ++l) {
        const int e = s * kSubLen6 + l;
        q[e] = (step != 0.0f ? round_clamp(src[e] / step, -32, 31) : 0) + 32;
      }
    }
    uint8_t* ql = dst;
    uint8_t* qh = dst + 128;
    for (int half = 0; half < 2; ++half) {
      for (int l = 0; l < 32; ++l) {
        const int* v = q + 128 * half + l;  // v[0], v[32], v[64], v[96]: k = 0..3
        ql[64 * half + l] = static_cast<uint8_t>((v[0] & 0xf) | ((v[64] & 0xf) << 4));
        ql[64 * half + l + 32] = static_cast<uint8_t>((v[32] & 0xf) | ((v[96] & 0xf) << 4));
        qh[32 * half + l] = static_cast<uint8_t>((v[0] >> 4) | ((v[32] >> 4) << 2) |
                                                 ((v[64] >> 4) << 4) | ((v[96] >> 4) << 6));
      }
    }
  }
}

}  // namespace clport::quant
