// Matrix-vector product on 8-bit activations (decode path of CPU-class devices): the activation
// row is quantized once per op (quantize_act_q8, optionally with the RMSNorm in front), then
// every weight block is an integer dot product of its codes with the activation codes, scaled
// once per block. Needs blocks.cl in front.
//
// Activation blocks (the CPU backend's, fastcpu/activation_blocks.h, so both paths mean the same
// numbers), value = d * q with d = max|x| / 127 over the block and q = x / d rounded to nearest
// even, exactly as the CPU quantizer does:
//  Q8Block32 (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 weights): f32 d, f32 s = d * sum(q), i8 q[32], 40 B;
//  Q8BlockK (Q4_K, Q5_K, Q6_K weights): f32 d, i8 q[256], i16 bsums[16] (sums of each run of
//  16 codes, which carry the K-quant minimums and Q6_K's offset), 292 B.
//
// A q8a work-item walks Q8A_ROWS whole weight rows (global size: (ceil(N / Q8A_ROWS), M), local
// size 1; the SwiGLU kernel Q8A_SWIGLU_ROWS of each of its two weights): the activation block
// is loaded once for all rows, and each row keeps 8 partial lanes that are summed once after
// the loop. The q8s kernels (one activation row) quantize the row themselves, then walk the
// same runs of rows. On x86 CPUs with AVX2 (PoCL defines the target's feature
// macros), the 32-code dot product is vpmaddubsw + vpmaddwd on 256-bit registers, written with
// the compiler's builtins; elsewhere the same sums in portable 16-bit arithmetic.

#ifndef Q8A_ROWS
#define Q8A_ROWS 8
#endif
// The SwiGLU kernel reads two weights: Q8A_SWIGLU_ROWS output rows of each per work-item keep
// its accumulators in registers (2 x Q8A_ROWS spilled: 130 vs 80 us at 576 x 1536 on PoCL).
#ifndef Q8A_SWIGLU_ROWS
#define Q8A_SWIGLU_ROWS (Q8A_ROWS / 2 > 0 ? Q8A_ROWS / 2 : 1)
#endif
#define Q8A_BLOCK_BYTES 40
#define Q8A_KBLOCK_BYTES 292

// The RMSNorm's scale of row xr (1 when norm is 0).
inline float q8a_norm_scale(const global float* xr, int K, int norm, float eps) {
  if (!norm) return 1.0f;
  float16 ss = (float16)(0.0f);
  for (int b = 0; b < K / 32; ++b) {
    const float16 lo = vload16(0, xr + 32 * b), hi = vload16(1, xr + 32 * b);
    ss += lo * lo + hi * hi;
  }
  return 1.0f / sqrt(hsum16(ss) / (float)K + eps);
}

// Elements 32 r .. 32 r + 31 of row xr, through the norm when it is on.
inline void q8a_load_run(const global float* xr, const global float* gr, int r, int norm, float scale,
                         float16* lo, float16* hi) {
  *lo = vload16(0, xr + 32 * r);
  *hi = vload16(1, xr + 32 * r);
  if (norm) {
    *lo = *lo * scale * vload16(0, gr + 32 * r);
    *hi = *hi * scale * vload16(1, gr + 32 * r);
  }
}

inline float q8a_absmax(float16 lo, float16 hi) {
  const float16 a = fmax(fabs(lo), fabs(hi));
  const float8 a8 = fmax(a.lo, (float8)(a.s8, a.s9, a.sa, a.sb, a.sc, a.sd, a.se, a.sf));
  const float4 a4 = fmax(a8.lo, a8.hi);
  return fmax(fmax(a4.x, a4.y), fmax(a4.z, a4.w));
}

inline int q8a_hsum_int16(int16 v) {
  const int8 a = v.lo + (int8)(v.s8, v.s9, v.sa, v.sb, v.sc, v.sd, v.se, v.sf);
  const int4 b = a.lo + a.hi;
  return b.x + b.y + b.z + b.w;
}

// Codes rounded to nearest even, and 16 of them stored at p (any alignment). On x86, vcvtps2dq
// (rounding by MXCSR: to nearest even, which OpenCL leaves as it is) and one unaligned store:
// PoCL expands convert_int16_rte and rint alike into an emulation of about 20 instructions per 16
// values, and vstore16 of chars into 16 byte stores, each extracted on its own (the quantizer
// took about a quarter of the time of the products on its rows in a decode step of 4 sequences).
#if defined(__AVX2__) && defined(__x86_64__) && !defined(CLPORT_Q8A_PORTABLE)
typedef char q8a_v16c_unaligned __attribute__((vector_size(16), aligned(1)));
inline int16 q8a_round(float16 v) {
  return (int16)(__builtin_astype(__builtin_ia32_cvtps2dq256(v.lo), int8),
                 __builtin_astype(__builtin_ia32_cvtps2dq256(v.hi), int8));
}
inline void q8a_store_codes(int16 q, global char* p) {
  *(global q8a_v16c_unaligned*)p = __builtin_astype(convert_char16(q), q8a_v16c_unaligned);
}
#else
inline int16 q8a_round(float16 v) { return convert_int16_rte(v); }
inline void q8a_store_codes(int16 q, global char* p) { vstore16(convert_char16(q), 0, p); }
#endif

// Quantizes activation row xr (K values, through the RMSNorm with weight gr when norm is set)
// into K / 32 Q8Block32 blocks at out.
inline void q8a_quantize_row_32(const global float* xr, const global float* gr, int norm, float eps,
                                global uchar* out, int K) {
  const float scale = q8a_norm_scale(xr, K, norm, eps);
  for (int b = 0; b < K / 32; ++b) {
    float16 lo, hi;
    q8a_load_run(xr, gr, b, norm, scale, &lo, &hi);
    const float d = q8a_absmax(lo, hi) / 127.0f, inv = d != 0.0f ? 1.0f / d : 0.0f;
    const int16 ql = q8a_round(lo * inv), qh = q8a_round(hi * inv);
    global uchar* blk = out + (size_t)b * Q8A_BLOCK_BYTES;
    *(global float*)blk = d;
    *(global float*)(blk + 4) = d * (float)q8a_hsum_int16(ql + qh);
    q8a_store_codes(ql, (global char*)(blk + 8));
    q8a_store_codes(qh, (global char*)(blk + 24));
  }
}

// The same into K / 256 Q8BlockK blocks (K a multiple of 256).
inline void q8a_quantize_row_k(const global float* xr, const global float* gr, int norm, float eps,
                               global uchar* out, int K) {
  const float scale = q8a_norm_scale(xr, K, norm, eps);
  for (int b = 0; b < K / 256; ++b) {
    float amax = 0.0f;
    for (int r = 8 * b; r < 8 * b + 8; ++r) {
      float16 lo, hi;
      q8a_load_run(xr, gr, r, norm, scale, &lo, &hi);
      amax = fmax(amax, q8a_absmax(lo, hi));
    }
    const float d = amax / 127.0f, inv = d != 0.0f ? 1.0f / d : 0.0f;
    global uchar* blk = out + (size_t)b * Q8A_KBLOCK_BYTES;
    *(global float*)blk = d;
    global short* bsums = (global short*)(blk + 260);
    for (int r = 0; r < 8; ++r) {
      float16 lo, hi;
      q8a_load_run(xr, gr, 8 * b + r, norm, scale, &lo, &hi);
      const int16 ql = q8a_round(lo * inv), qh = q8a_round(hi * inv);
      bsums[2 * r] = (short)q8a_hsum_int16(ql);
      bsums[2 * r + 1] = (short)q8a_hsum_int16(qh);
      q8a_store_codes(ql, (global char*)(blk + 4 + 32 * r));
      q8a_store_codes(qh, (global char*)(blk + 20 + 32 * r));
    }
  }
}

// Both quantize kernels: one work-item per activation row m (global size M) writes that row's
// blocks at dst + dst_off; g is the norm weight.
#define CLPORT_Q8A_QUANTIZE_KERNEL(NAME, QUANTIZE_ROW, VALUES, BYTES)                         \
  kernel __attribute__((reqd_work_group_size(1, 1, 1))) void NAME(                            \
      const global uchar* x, ulong x_off, const global uchar* g, ulong g_off, int norm, float eps, \
      global uchar* dst, ulong dst_off, int K) {                                              \
    const int m = get_global_id(0);                                                           \
    QUANTIZE_ROW(CLPORT_AT(const global float*, x, x_off) + (size_t)m * K,                   \
                 CLPORT_AT(const global float*, g, g_off), norm, eps,                         \
                 dst + dst_off + (size_t)m * (K / (VALUES)) * (BYTES), K);                    \
  }
CLPORT_Q8A_QUANTIZE_KERNEL(quantize_act_q8, q8a_quantize_row_32, 32, Q8A_BLOCK_BYTES)
CLPORT_Q8A_QUANTIZE_KERNEL(quantize_act_q8k, q8a_quantize_row_k, 256, Q8A_KBLOCK_BYTES)

#if defined(__AVX2__) && defined(__x86_64__) && !defined(CLPORT_Q8A_PORTABLE)
typedef char q8a_v32c __attribute__((vector_size(32)));
typedef char q8a_v16c __attribute__((vector_size(16)));
typedef short q8a_v16s __attribute__((vector_size(32)));
typedef int q8a_v8i __attribute__((vector_size(32)));
// The 32 activation codes of a block in one register.
typedef q8a_v32c Q8aCodes;
inline Q8aCodes q8a_load_codes(const global char* codes) {
  const q8a_v16c lo = __builtin_astype(vload16(0, codes), q8a_v16c);
  const q8a_v16c hi = __builtin_astype(vload16(1, codes), q8a_v16c);
  return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                                 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
}
inline q8a_v32c q8a_join(uchar16 lo, uchar16 hi) {
  return __builtin_shufflevector(__builtin_astype(lo, q8a_v16c), __builtin_astype(hi, q8a_v16c), 0, 1, 2, 3, 4,
                                 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
                                 26, 27, 28, 29, 30, 31);
}
inline int8 q8a_pairs_to_int8(q8a_v16s p) {
  const q8a_v16s ones = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  return __builtin_astype(__builtin_ia32_pmaddwd256(p, ones), int8);
}
// Unsigned weight codes 0..255 (lo = codes 0..15, hi = 16..31) times the activation codes, as 8
// partial sums. vpmaddubsw saturates its pair sums at 16 bits; 4-bit and 5-bit codes times
// |q| <= 127 stay far below that.
inline int8 q8a_dot_unsigned(uchar16 lo, uchar16 hi, Q8aCodes x) {
  return q8a_pairs_to_int8(__builtin_ia32_pmaddubsw256(q8a_join(lo, hi), x));
}
// Signed weight codes: |w| times x with w's sign moved onto x (the unsigned-by-signed form).
// Pair sums stay below 2^15 even for a code of -128 (2 * 128 * 127).
inline int8 q8a_dot_signed(char16 lo, char16 hi, Q8aCodes x) {
  const q8a_v32c w = q8a_join(as_uchar16(lo), as_uchar16(hi));
  // psignb(w, w) is |w| as an unsigned byte (OpenCL's abs() became per-lane code in PoCL).
  return q8a_pairs_to_int8(__builtin_ia32_pmaddubsw256(__builtin_ia32_psignb256(w, w), __builtin_ia32_psignb256(x, w)));
}
#else
// Portable: codes widened to 16 bits once per block (activations) or per row (weights);
// products of two codes and the sum of a pair fit 16 bits, the rest is summed in 32.
typedef struct {
  short16 lo, hi;
} Q8aCodes;
inline Q8aCodes q8a_load_codes(const global char* codes) {
  Q8aCodes c;
  c.lo = convert_short16(vload16(0, codes));
  c.hi = convert_short16(vload16(1, codes));
  return c;
}
// Four partial sums of 16 products. The lanes are summed one by one rather than through
// .even / .odd: oclgrind 21.10 marks a lane that a shufflevector takes from element 11 as
// uninitialised (see hsum16 in blocks.cl), and the oclgrind conformance test runs this form.
inline int4 q8a_madd(short16 a, short16 b) {
  const int16 p = convert_int16(a) * convert_int16(b);
  return (int4)(p.s0 + p.s1 + p.s2 + p.s3, p.s4 + p.s5 + p.s6 + p.s7, p.s8 + p.s9 + p.sa + p.sb,
                p.sc + p.sd + p.se + p.sf);
}
inline int8 q8a_dot_unsigned(uchar16 lo, uchar16 hi, Q8aCodes x) {
  return (int8)(q8a_madd(convert_short16(lo), x.lo), q8a_madd(convert_short16(hi), x.hi));
}
inline int8 q8a_dot_signed(char16 lo, char16 hi, Q8aCodes x) {
  return (int8)(q8a_madd(convert_short16(lo), x.lo), q8a_madd(convert_short16(hi), x.hi));
}
#endif

// Both forms return 8 partial sums: lanes 0..3 over codes 0..15 (lo), lanes 4..7 over 16..31
// (hi), so that a scale per 16 codes (Q6_K) can be applied per lane.

// Per weight type: the integer dot of block s of a row with activation codes x, and the block's
// scalar terms. Adds d_w * d_x * dot to *v (8 lanes) and returns the part carried by the
// activation sum sx = d_x * sum(q_x): a minimum (Q4_1, Q5_1) or the code offset (Q4_0, Q5_0).
inline float q8a_q4_0(const global uchar* row, uint s, Q8aCodes x, float dx, float sx, float8* v) {
  const global uchar* b = row + (size_t)s * 18;
  const uchar16 q = vload16(0, b + 2);
  const float d = ld_f16(b);
  *v += convert_float8(q8a_dot_unsigned(q & (uchar)15, q >> (uchar)4, x)) * (d * dx);
  return -8.0f * d * sx;
}

inline float q8a_q4_1(const global uchar* row, uint s, Q8aCodes x, float dx, float sx, float8* v) {
  const global uchar* b = row + (size_t)s * 20;
  const uchar16 q = vload16(0, b + 4);
  *v += convert_float8(q8a_dot_unsigned(q & (uchar)15, q >> (uchar)4, x)) * (ld_f16(b) * dx);
  return ld_f16(b + 2) * sx;
}

// Bit 4 of codes first .. first + 15 (first 0 or 16) from a Q5 block's 32 high bits, as 0 or 16:
// each byte of qh repeated 8 times and tested against its bit (byte-wide vector ops; shifting
// 32-bit lanes and narrowing cost PoCL several times more).
inline uchar16 q8a_q5_high(uint qh, uint first) {
  const uchar lo = (uchar)(qh >> first), hi = (uchar)(qh >> (first + 8));
  const uchar16 rep = (uchar16)((uchar8)(lo), (uchar8)(hi));
  const uchar16 bit = (uchar16)(1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128);
  return as_uchar16((rep & bit) != (uchar)0) & (uchar)16;
}

inline float q8a_q5_0(const global uchar* row, uint s, Q8aCodes x, float dx, float sx, float8* v) {
  const global uchar* b = row + (size_t)s * 22;
  const uint qh = ld_u32(b + 2);
  const uchar16 q = vload16(0, b + 6);
  const float d = ld_f16(b);
  const uchar16 lo = (q & (uchar)15) | q8a_q5_high(qh, 0), hi = (q >> (uchar)4) | q8a_q5_high(qh, 16);
  *v += convert_float8(q8a_dot_unsigned(lo, hi, x)) * (d * dx);
  return -16.0f * d * sx;
}

inline float q8a_q5_1(const global uchar* row, uint s, Q8aCodes x, float dx, float sx, float8* v) {
  const global uchar* b = row + (size_t)s * 24;
  const uint qh = ld_u32(b + 4);
  const uchar16 q = vload16(0, b + 8);
  const uchar16 lo = (q & (uchar)15) | q8a_q5_high(qh, 0), hi = (q >> (uchar)4) | q8a_q5_high(qh, 16);
  *v += convert_float8(q8a_dot_unsigned(lo, hi, x)) * (ld_f16(b) * dx);
  return ld_f16(b + 2) * sx;
}

inline float q8a_q8_0(const global uchar* row, uint s, Q8aCodes x, float dx, float sx, float8* v) {
  const global uchar* b = row + (size_t)s * 34;
  const global char* qs = (const global char*)(b + 2);
  (void)sx;
  *v += convert_float8(q8a_dot_signed(vload16(0, qs), vload16(1, qs), x)) * (ld_f16(b) * dx);
  return 0.0f;
}

// K-quants. Per row and super-block, q8a_kprep_T decodes the scales once: sc[j] is the weight's
// scale of run j (0..7) times the activation scale dx, mn[j] the run's minimum (Q6_K: sc[2j],
// sc[2j + 1] for the run's two halves of 16, mn the same without dx). Then run j of the
// super-block against activation codes x adds its integer dot, scaled, to *v and returns the
// part carried by the activation sums sx0 / sx1 (dx times the sum of the run's codes 0..15 /
// 16..31): the minimum (Q4_K, Q5_K) or the code offset of 32 (Q6_K).
inline void q8a_kprep_q4_k(const global uchar* blk, float dx, float* sc, float* mn) {
  const uchar4 a = vload4(0, blk + 4), b = vload4(1, blk + 4), c = vload4(2, blk + 4);
  const uchar8 s6 = (uchar8)(a & (uchar)63, (c & (uchar)15) | ((a >> (uchar)6) << (uchar)4));
  const uchar8 m6 = (uchar8)(b & (uchar)63, (c >> (uchar)4) | ((b >> (uchar)6) << (uchar)4));
  vstore8(convert_float8(s6) * (ld_f16(blk) * dx), 0, sc);
  vstore8(convert_float8(m6) * ld_f16(blk + 2), 0, mn);
}
#define q8a_kprep_q5_k q8a_kprep_q4_k

inline void q8a_kprep_q6_k(const global uchar* blk, float dx, float* sc, float* mn) {
  const float16 s = convert_float16(vload16(0, (const global char*)(blk + 192))) * ld_f16(blk + 208);
  vstore16(s * dx, 0, sc);
  vstore16(s, 0, mn);  // without dx: the offset term's activation sums carry it
}

inline float q8a_k_q4_k(const global uchar* blk, uint j, const float* sc, const float* mn, Q8aCodes x, float sx0,
                        float sx1, float8* v) {
  const global uchar* qs = blk + 16 + 32 * (j / 2);
  const uchar shift = (uchar)((j & 1) * 4);
  const uchar16 lo = (vload16(0, qs) >> shift) & (uchar)15, hi = (vload16(1, qs) >> shift) & (uchar)15;
  *v += convert_float8(q8a_dot_unsigned(lo, hi, x)) * sc[j];
  return -mn[j] * (sx0 + sx1);
}

inline float q8a_k_q5_k(const global uchar* blk, uint j, const float* sc, const float* mn, Q8aCodes x, float sx0,
                        float sx1, float8* v) {
  const global uchar* qh = blk + 16;
  const global uchar* qs = blk + 48 + 32 * (j / 2);
  const uchar shift = (uchar)((j & 1) * 4), bit = (uchar)j;
  const uchar16 lo = ((vload16(0, qs) >> shift) & (uchar)15) | (((vload16(0, qh) >> bit) & (uchar)1) << (uchar)4);
  const uchar16 hi = ((vload16(1, qs) >> shift) & (uchar)15) | (((vload16(1, qh) >> bit) & (uchar)1) << (uchar)4);
  *v += convert_float8(q8a_dot_unsigned(lo, hi, x)) * sc[j];
  return -mn[j] * (sx0 + sx1);
}

// Q6_K: a scale per 16 codes, so lanes 0..3 and 4..7 take their own.
inline float q8a_k_q6_k(const global uchar* blk, uint j, const float* sc, const float* mn, Q8aCodes x, float sx0,
                        float sx1, float8* v) {
  const uint n = j / 4, g = j % 4;
  const global uchar* ql = blk + 64 * n + 32 * (g & 1);
  const global uchar* qh = blk + 128 + 32 * n;
  const uchar lshift = (uchar)((g >> 1) * 4), hshift = (uchar)(2 * g);
  const uchar16 lo = ((vload16(0, ql) >> lshift) & (uchar)15) | (((vload16(0, qh) >> hshift) & (uchar)3) << (uchar)4);
  const uchar16 hi = ((vload16(1, ql) >> lshift) & (uchar)15) | (((vload16(1, qh) >> hshift) & (uchar)3) << (uchar)4);
  *v += convert_float8(q8a_dot_unsigned(lo, hi, x)) * (float8)((float4)(sc[2 * j]), (float4)(sc[2 * j + 1]));
  return -32.0f * (mn[2 * j] * sx0 + mn[2 * j + 1] * sx1);
}

inline float q8a_hsum8(float8 v) {
  const float4 a = v.lo + v.hi;
  const float2 b = a.lo + a.hi;
  return b.x + b.y;
}

// Sums NR rows of W from row n0 on against activation row m (both defined by the caller) into
// tot[0..NR): rows r < ROWS from w0, the next
// ROWS (a fused kernel's second weight) from w1, ROWS being the output rows per work-item. Rows
// past N are clamped (computed, never stored). The activation row has K / VALUES blocks of
// BLOCK_BYTES; the per-dtype loops between BEGIN and END add each row's 8 lanes into vacc[r]
// and its scalar terms into tot[r].
#define CLPORT_Q8A_ROWS_BEGIN(ROWS, NR, VALUES, BLOCK_BYTES)                                 \
  const global uchar* xq = xa + xa_off + (size_t)m * (K / (VALUES)) * (BLOCK_BYTES);          \
  const global uchar* wr[NR];                                                                 \
  for (int r = 0; r < (NR); ++r)                                                              \
    wr[r] = (r < (ROWS) ? w0 : w1) + (size_t)min(n0 + r % (ROWS), N - 1) * w_row_bytes;      \
  float8 vacc[NR];                                                                            \
  float tot[NR];                                                                              \
  for (int r = 0; r < (NR); ++r) {                                                            \
    vacc[r] = (float8)(0.0f);                                                                 \
    tot[r] = 0.0f;                                                                            \
  }
#define CLPORT_Q8A_ROWS_END(NR) for (int r = 0; r < (NR); ++r) tot[r] += q8a_hsum8(vacc[r]);

// Legacy 32-value blocks.
#define CLPORT_Q8A_ACCUMULATE(T, ROWS, NR)                                                    \
  CLPORT_Q8A_ROWS_BEGIN(ROWS, NR, 32, Q8A_BLOCK_BYTES)                                        \
  for (uint s = 0; s < (uint)(K / 32); ++s) {                                                 \
    const global uchar* blk = xq + (size_t)s * Q8A_BLOCK_BYTES;                               \
    const float dx = *(const global float*)blk, sx = *(const global float*)(blk + 4);        \
    const Q8aCodes codes = q8a_load_codes((const global char*)(blk + 8));                     \
    _Pragma("unroll")                                                                         \
    for (int r = 0; r < (NR); ++r) tot[r] += q8a_##T(wr[r], s, codes, dx, sx, &vacc[r]);     \
  }                                                                                           \
  CLPORT_Q8A_ROWS_END(NR)

// K-quant super-blocks of BYTES bytes over Q8BlockK activations.
#define CLPORT_Q8A_ACCUMULATE_K(T, BYTES, ROWS, NR)                                          \
  CLPORT_Q8A_ROWS_BEGIN(ROWS, NR, 256, Q8A_KBLOCK_BYTES)                                      \
  for (uint sb = 0; sb < (uint)(K / 256); ++sb) {                                             \
    const global uchar* blk = xq + (size_t)sb * Q8A_KBLOCK_BYTES;                             \
    const float dx = *(const global float*)blk;                                               \
    const global short* bsums = (const global short*)(blk + 260);                             \
    float sc[NR][16], mn[NR][16];                                                             \
    for (int r = 0; r < (NR); ++r) q8a_kprep_##T(wr[r] + (size_t)sb * (BYTES), dx, sc[r], mn[r]); \
    for (uint j = 0; j < 8; ++j) {                                                            \
      const Q8aCodes codes = q8a_load_codes((const global char*)(blk + 4 + 32 * j));          \
      const float sx0 = dx * (float)bsums[2 * j], sx1 = dx * (float)bsums[2 * j + 1];         \
      _Pragma("unroll")                                                                       \
      for (int r = 0; r < (NR); ++r)                                                          \
        tot[r] += q8a_k_##T(wr[r] + (size_t)sb * (BYTES), j, sc[r], mn[r], codes, sx0, sx1, &vacc[r]); \
    }                                                                                         \
  }                                                                                           \
  CLPORT_Q8A_ROWS_END(NR)

// Which accumulation each dtype uses (legacy blocks or K-quant super-blocks).
#define CLPORT_Q8A_ACC_q4_0(ROWS, NR) CLPORT_Q8A_ACCUMULATE(q4_0, ROWS, NR)
#define CLPORT_Q8A_ACC_q4_1(ROWS, NR) CLPORT_Q8A_ACCUMULATE(q4_1, ROWS, NR)
#define CLPORT_Q8A_ACC_q5_0(ROWS, NR) CLPORT_Q8A_ACCUMULATE(q5_0, ROWS, NR)
#define CLPORT_Q8A_ACC_q5_1(ROWS, NR) CLPORT_Q8A_ACCUMULATE(q5_1, ROWS, NR)
#define CLPORT_Q8A_ACC_q8_0(ROWS, NR) CLPORT_Q8A_ACCUMULATE(q8_0, ROWS, NR)
#define CLPORT_Q8A_ACC_q4_k(ROWS, NR) CLPORT_Q8A_ACCUMULATE_K(q4_k, 144, ROWS, NR)
#define CLPORT_Q8A_ACC_q5_k(ROWS, NR) CLPORT_Q8A_ACCUMULATE_K(q5_k, 176, ROWS, NR)
#define CLPORT_Q8A_ACC_q6_k(ROWS, NR) CLPORT_Q8A_ACCUMULATE_K(q6_k, 210, ROWS, NR)

#define CLPORT_Q8A_ARGS                                                                        \
  const global uchar *w, ulong w_off, ulong w_row_bytes, const global uchar *xa, ulong xa_off, \
      global uchar *dst, ulong dst_off, int K, int N

// The self-quantizing forms' arguments (one activation row, M = 1): x the float row, g the
// RMSNorm weight (read when norm is set), scratch one row of activation blocks per work-group.
#define CLPORT_Q8S_ARGS                                                                        \
  const global uchar *w, ulong w_off, ulong w_row_bytes, const global uchar *x, ulong x_off,  \
      const global uchar *g, ulong g_off, int norm, float eps, global uchar *scratch,          \
      global uchar *dst, ulong dst_off, int K, int N

// Their prologue: each work-item (local size 1, a few of them: global size q8s_items) quantizes
// the row into its own slice of scratch, then walks a contiguous share of the output rows,
// Q8A_ROWS (SwiGLU: Q8A_SWIGLU_ROWS) at a time. One launch instead of a quantize launch in
// front: on a CPU the launch and its wake-up of the worker threads cost more than the redundant
// quantization, which stays small with few work-items. (Work-groups of many items sharing one
// quantized row are slower on PoCL, which vectorises across the items into gathers.)
#define CLPORT_Q8S_QUANTIZE(QUANTIZE_ROW, VALUES, BYTES)                                      \
  const global uchar* xa = scratch;                                                           \
  const ulong xa_off = (ulong)get_global_id(0) * (ulong)(K / (VALUES)) * (BYTES);             \
  QUANTIZE_ROW(CLPORT_AT(const global float*, x, x_off), CLPORT_AT(const global float*, g, g_off), norm, \
               eps, scratch + xa_off, K);                                                     \
  const int m = 0;
#define CLPORT_Q8S_QUANTIZE_q4_0 CLPORT_Q8S_QUANTIZE(q8a_quantize_row_32, 32, Q8A_BLOCK_BYTES)
#define CLPORT_Q8S_QUANTIZE_q4_1 CLPORT_Q8S_QUANTIZE_q4_0
#define CLPORT_Q8S_QUANTIZE_q5_0 CLPORT_Q8S_QUANTIZE_q4_0
#define CLPORT_Q8S_QUANTIZE_q5_1 CLPORT_Q8S_QUANTIZE_q4_0
#define CLPORT_Q8S_QUANTIZE_q8_0 CLPORT_Q8S_QUANTIZE_q4_0
#define CLPORT_Q8S_QUANTIZE_q4_k CLPORT_Q8S_QUANTIZE(q8a_quantize_row_k, 256, Q8A_KBLOCK_BYTES)
#define CLPORT_Q8S_QUANTIZE_q5_k CLPORT_Q8S_QUANTIZE_q4_k
#define CLPORT_Q8S_QUANTIZE_q6_k CLPORT_Q8S_QUANTIZE_q4_k

// The epilogues, after the accumulation of row m: dst = W x; dst = W x + res (res may be dst
// itself: each element is read, then written, by one item); dst = silu(Wg x) * (Wu x), whose
// accumulation rows r < Q8A_SWIGLU_ROWS are the gate's and the next Q8A_SWIGLU_ROWS the up
// projection's.
#define CLPORT_Q8A_STORE                                                                      \
  global float* y = CLPORT_AT(global float*, dst, dst_off) + (size_t)m * N;                  \
  for (int r = 0; r < Q8A_ROWS; ++r)                                                          \
    if (n0 + r < N) y[n0 + r] = tot[r];
#define CLPORT_Q8A_STORE_ADD                                                                  \
  global float* y = CLPORT_AT(global float*, dst, dst_off) + (size_t)m * N;                  \
  const global float* rv = CLPORT_AT(const global float*, res, res_off) + (size_t)m * N;     \
  for (int r = 0; r < Q8A_ROWS; ++r)                                                          \
    if (n0 + r < N) y[n0 + r] = tot[r] + rv[n0 + r];
#define CLPORT_Q8A_STORE_SWIGLU                                                               \
  global float* y = CLPORT_AT(global float*, dst, dst_off) + (size_t)m * N;                  \
  for (int r = 0; r < Q8A_SWIGLU_ROWS; ++r) {                                                 \
    const float gate = tot[r], up = tot[Q8A_SWIGLU_ROWS + r];                                 \
    if (n0 + r < N) y[n0 + r] = gate / (1.0f + exp(-gate)) * up;                              \
  }

// The q8a kernels: one work-item per ROWS output rows of activation row get_global_id(1).
#define CLPORT_Q8A_ITEM_ROWS(ROWS) const int n0 = get_global_id(0) * (ROWS), m = get_global_id(1);
// The q8s kernels: this work-item's share of the ceil(N / ROWS) row runs, ROWS rows each.
#define CLPORT_Q8S_FOR_ROWS(ROWS)                                                             \
  const int runs = (N + (ROWS) - 1) / (ROWS), share = (runs + get_global_size(0) - 1) / get_global_size(0); \
  const int run_end = min(runs, (int)(get_global_id(0) + 1) * share);                         \
  for (int run = get_global_id(0) * share; run < run_end; ++run) {                            \
    const int n0 = run * (ROWS);

// Per dtype: the kernels over quantized activations (q8a) and the self-quantizing ones (q8s).
#define CLPORT_Q8A_KERNELS(T)                                                                 \
  kernel __attribute__((reqd_work_group_size(1, 1, 1))) void mul_mat_gemv_q8a_##T(CLPORT_Q8A_ARGS) { \
    const global uchar *w0 = w + w_off, *w1 = w0;                                             \
    CLPORT_Q8A_ITEM_ROWS(Q8A_ROWS)                                                            \
    CLPORT_Q8A_ACC_##T(Q8A_ROWS, Q8A_ROWS)                                                    \
    CLPORT_Q8A_STORE                                                                          \
  }                                                                                           \
  kernel __attribute__((reqd_work_group_size(1, 1, 1))) void mul_mat_gemv_q8a_add_##T(      \
      CLPORT_Q8A_ARGS, const global uchar* res, ulong res_off) {                              \
    const global uchar *w0 = w + w_off, *w1 = w0;                                             \
    CLPORT_Q8A_ITEM_ROWS(Q8A_ROWS)                                                            \
    CLPORT_Q8A_ACC_##T(Q8A_ROWS, Q8A_ROWS)                                                    \
    CLPORT_Q8A_STORE_ADD                                                                      \
  }                                                                                           \
  kernel __attribute__((reqd_work_group_size(1, 1, 1))) void mul_mat_gemv_q8a_swiglu_##T(   \
      CLPORT_Q8A_ARGS, const global uchar* u, ulong u_off) {                                  \
    const global uchar *w0 = w + w_off, *w1 = u + u_off;                                      \
    CLPORT_Q8A_ITEM_ROWS(Q8A_SWIGLU_ROWS)                                                     \
    CLPORT_Q8A_ACC_##T(Q8A_SWIGLU_ROWS, 2 * Q8A_SWIGLU_ROWS)                                  \
    CLPORT_Q8A_STORE_SWIGLU                                                                   \
  }                                                                                           \
  kernel __attribute__((reqd_work_group_size(1, 1, 1))) void mul_mat_gemv_q8s_##T(CLPORT_Q8S_ARGS) { \
    CLPORT_Q8S_QUANTIZE_##T                                                                   \
    const global uchar *w0 = w + w_off, *w1 = w0;                                             \
    CLPORT_Q8S_FOR_ROWS(Q8A_ROWS)                                                             \
    CLPORT_Q8A_ACC_##T(Q8A_ROWS, Q8A_ROWS)                                                    \
    CLPORT_Q8A_STORE                                                                          \
    }                                                                                         \
  }                                                                                           \
  kernel __attribute__((reqd_work_group_size(1, 1, 1))) void mul_mat_gemv_q8s_add_##T(      \
      CLPORT_Q8S_ARGS, const global uchar* res, ulong res_off) {                              \
    CLPORT_Q8S_QUANTIZE_##T                                                                   \
    const global uchar *w0 = w + w_off, *w1 = w0;                                             \
    CLPORT_Q8S_FOR_ROWS(Q8A_ROWS)                                                             \
    CLPORT_Q8A_ACC_##T(Q8A_ROWS, Q8A_ROWS)                                                    \
    CLPORT_Q8A_STORE_ADD                                                                      \
    }                                                                                         \
  }                                                                                           \
  kernel __attribute__((reqd_work_group_size(1, 1, 1))) void mul_mat_gemv_q8s_swiglu_##T(   \
      CLPORT_Q8S_ARGS, const global uchar* u, ulong u_off) {                                  \
    CLPORT_Q8S_QUANTIZE_##T                                                                   \
    const global uchar *w0 = w + w_off, *w1 = u + u_off;                                      \
    CLPORT_Q8S_FOR_ROWS(Q8A_SWIGLU_ROWS)                                                      \
    CLPORT_Q8A_ACC_##T(Q8A_SWIGLU_ROWS, 2 * Q8A_SWIGLU_ROWS)                                  \
    CLPORT_Q8A_STORE_SWIGLU                                                                   \
    }                                                                                         \
  }

// The weight dtypes with an integer kernel (the host asks only for these).
#if CLPORT_WANT(q4_0)
CLPORT_Q8A_KERNELS(q4_0)
#endif
#if CLPORT_WANT(q4_1)
CLPORT_Q8A_KERNELS(q4_1)
#endif
#if CLPORT_WANT(q5_0)
CLPORT_Q8A_KERNELS(q5_0)
#endif
#if CLPORT_WANT(q5_1)
CLPORT_Q8A_KERNELS(q5_1)
#endif
#if CLPORT_WANT(q8_0)
CLPORT_Q8A_KERNELS(q8_0)
#endif
#if CLPORT_WANT(q4_k)
CLPORT_Q8A_KERNELS(q4_k)
#endif
#if CLPORT_WANT(q5_k)
CLPORT_Q8A_KERNELS(q5_k)
#endif
#if CLPORT_WANT(q6_k)
CLPORT_Q8A_KERNELS(q6_k)
#endif
