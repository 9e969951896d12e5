// Matrix-vector product (decode path): dst[N, M] = x[K, M] . W[K, N]^T for small M.
// Needs blocks.cl in front. One work-group of GEMV_WG work-items computes GEMV_ROWS consecutive
// output rows for one column m (global size: (ceil(N / GEMV_ROWS) * GEMV_WG, M)); each x chunk
// is loaded once and reused for all GEMV_ROWS rows, and partial sums meet in a local-memory
// reduction. GEMV_WG must be a power of two; 1 means no reduction (see CLPORT_GEMV_FINISH).
//
// Quantized weights are split between work-items in one of two ways (GEMV_SPLIT):
//  1  each work-item takes whole 32-element runs: wide per-item vectors and little per-run
//     overhead, which suits CPUs (PoCL vectorises inside the item);
//  4  "quarters": quarter t of a row covers elements 4q..4q+3 and 16+4q..16+4q+3 of run s = t / 4
//     (q = t % 4). In every GGUF layout those eight elements sit in 4 consecutive bytes (plus 4
//     more for Q8_0 and the high bits of Q5 / Q6_K), so consecutive work-items read consecutive
//     4-byte words of one block: loads coalesce on GPUs and a row offers K / 8 parallel items.
// Plain weights always stride over float4 chunks.

#ifndef GEMV_WG
#define GEMV_WG 64
#endif
#ifndef GEMV_SPLIT
#define GEMV_SPLIT 1
#endif
#ifndef GEMV_ROWS
#define GEMV_ROWS 4
#endif

// Sums acc[r] over the work-group for every r (work-item r < GEMV_ROWS gets row r's total). Two
// passes instead of a log2(GEMV_WG)-step tree: first every work-item folds GEMV_RED_CHUNK
// partials of one row (all rows at once, consecutive work-items reading consecutive words), then
// one work-item per row adds that row's GEMV_WG / GEMV_RED_CHUNK sums. Three barriers in all.
#if GEMV_WG >= 8
#define GEMV_RED_CHUNK 8
#else
#define GEMV_RED_CHUNK GEMV_WG
#endif
#define GEMV_RED_PER_ROW (GEMV_WG / GEMV_RED_CHUNK)

#define GEMV_RED_ITEMS (GEMV_ROWS * GEMV_RED_PER_ROW)
#define GEMV_RED_PASSES ((GEMV_RED_ITEMS + GEMV_WG - 1) / GEMV_WG)

// Returns the sum of acc[lid] over the work-group for work-items lid < GEMV_ROWS.
inline float gemv_reduce(float* acc, local float* red) {
  const uint lid = get_local_id(0);
  for (int r = 0; r < GEMV_ROWS; ++r) red[r * GEMV_WG + lid] = acc[r];
  barrier(CLK_LOCAL_MEM_FENCE);
  float part[GEMV_RED_PASSES];  // constant trip counts keep this in registers
  for (uint k = 0; k < GEMV_RED_PASSES; ++k) {
    const uint t = lid + k * GEMV_WG, r = t / GEMV_RED_PER_ROW, c = t % GEMV_RED_PER_ROW;
    float sum = 0.0f;
    if (t < GEMV_RED_ITEMS) {
      for (uint i = 0; i < GEMV_RED_CHUNK; ++i) sum += red[r * GEMV_WG + c + i * GEMV_RED_PER_ROW];
    }
    part[k] = sum;
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // every pass-1 read is done before its slots are reused
  for (uint k = 0; k < GEMV_RED_PASSES; ++k) {
    const uint t = lid + k * GEMV_WG;
    if (t < GEMV_RED_ITEMS) red[t] = part[k];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  float total = 0.0f;
  if (lid < GEMV_ROWS) {
    for (uint c = 0; c < GEMV_RED_PER_ROW; ++c) total += red[lid * GEMV_RED_PER_ROW + c];
  }
  return total;
}

inline void gemv_store(float total, global float* y, int n0, int N) {
  const uint lid = get_local_id(0);
  if (lid < GEMV_ROWS && n0 + (int)lid < N) y[n0 + lid] = total;
}

// GEMV_WG 1 (what CPUs get): the one work-item of a work-group walks its GEMV_ROWS rows whole,
// so there is nothing to reduce, and nothing for a CPU compiler to vectorise across work-items
// (PoCL turned the per-item vector code into gathers: 2x slower). Otherwise the partial sums
// meet in local memory.
#if GEMV_WG == 1
#define CLPORT_GEMV_LOCALS
#define CLPORT_GEMV_FINISH()                                                                  \
  global float* y = CLPORT_AT(global float*, dst, dst_off) + (size_t)m * N;                  \
  for (int r = 0; r < GEMV_ROWS; ++r)                                                         \
    if (n0 + r < N) y[n0 + r] = acc[r];
#else
#define CLPORT_GEMV_LOCALS local float red[GEMV_ROWS * GEMV_WG];
#define CLPORT_GEMV_FINISH()                                                                  \
  const float total = gemv_reduce(acc, red);                                                  \
  gemv_store(total, CLPORT_AT(global float*, dst, dst_off) + (size_t)m * N, n0, N);
#endif

#define CLPORT_GEMV_ARGS                                                                       \
  const global uchar *w, ulong w_off, ulong w_row_bytes, const global uchar *x, ulong x_off,  \
      global uchar *dst, ulong dst_off, int K, int N

// GEMV_SPLIT 1: per-type dot product of one 32-element run s of a weight row with the matching x run, which
// the caller loaded once (xl = x[0..15], xh = x[16..31], sl / sh their sums) and shares between
// all GEMV_ROWS rows. Offsets and mins are factored out of the element loop (e.g. Q4_0:
// d * (q . x - 8 * sum x)), so each element costs one nibble extraction, one convert and one
// multiply-add; byte math stays in uchar16 vectors and nothing branches per element.
// Each returns the run's scalar part (offsets and mins times sum x) and adds its element part,
// still 16 lanes wide, to *v: the lanes are summed once per row after the loop instead of once
// per run (a horizontal sum costs a CPU as much as the run's multiply-adds).
inline float16 gv_dot(float16 a, float16 xl, float16 b, float16 xh) { return a * xl + b * xh; }

inline float gv_q4_0(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh, float16* v) {
  const global uchar* b = row + (size_t)s * 18;
  const uchar16 q = vload16(0, b + 2);
  const float d = ld_f16(b);
  *v += d * gv_dot(convert_float16(q & (uchar)15), xl, convert_float16(q >> (uchar)4), xh);
  return -8.0f * d * (sl + sh);
}

inline float gv_q4_1(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh, float16* v) {
  const global uchar* b = row + (size_t)s * 20;
  const uchar16 q = vload16(0, b + 4);
  *v += ld_f16(b) * gv_dot(convert_float16(q & (uchar)15), xl, convert_float16(q >> (uchar)4), xh);
  return ld_f16(b + 2) * (sl + sh);
}

inline float gv_q5_0(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh, float16* v) {
  const global uchar* b = row + (size_t)s * 22;
  const uint qh = ld_u32(b + 2);
  const uchar16 q = vload16(0, b + 6);
  const float16 lo = convert_float16(q & (uchar)15) + convert_float16(q5_high_bits(qh, 0));
  const float16 hi = convert_float16(q >> (uchar)4) + convert_float16(q5_high_bits(qh, 16));
  const float d = ld_f16(b);
  *v += d * gv_dot(lo, xl, hi, xh);
  return -16.0f * d * (sl + sh);
}

inline float gv_q5_1(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh, float16* v) {
  const global uchar* b = row + (size_t)s * 24;
  const uint qh = ld_u32(b + 4);
  const uchar16 q = vload16(0, b + 8);
  const float16 lo = convert_float16(q & (uchar)15) + convert_float16(q5_high_bits(qh, 0));
  const float16 hi = convert_float16(q >> (uchar)4) + convert_float16(q5_high_bits(qh, 16));
  *v += ld_f16(b) * gv_dot(lo, xl, hi, xh);
  return ld_f16(b + 2) * (sl + sh);
}

inline float gv_q8_0(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh, float16* v) {
  const global uchar* b = row + (size_t)s * 34;
  const global char* qs = (const global char*)(b + 2);
  (void)sl;
  (void)sh;
  *v += ld_f16(b) * gv_dot(convert_float16(vload16(0, qs)), xl, convert_float16(vload16(1, qs)), xh);
  return 0.0f;
}

inline float gv_q4_k(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh, float16* v) {
  const global uchar* b = row + (size_t)(s / 8) * 144;
  const uint j = s % 8;
  const float2 sm = k_scale_min(b + 4, j);
  const global uchar* qs = b + 16 + 32 * (j / 2);
  const uchar shift = (uchar)((j & 1) * 4);
  const uchar16 q0 = (vload16(0, qs) >> shift) & (uchar)15;
  const uchar16 q1 = (vload16(1, qs) >> shift) & (uchar)15;
  *v += ld_f16(b) * sm.x * gv_dot(convert_float16(q0), xl, convert_float16(q1), xh);
  return -ld_f16(b + 2) * sm.y * (sl + sh);
}

inline float gv_q5_k(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh, float16* v) {
  const global uchar* b = row + (size_t)(s / 8) * 176;
  const uint j = s % 8;
  const float2 sm = k_scale_min(b + 4, j);
  const global uchar* qh = b + 16;
  const global uchar* qs = b + 48 + 32 * (j / 2);
  const uchar shift = (uchar)((j & 1) * 4), bit = (uchar)j;
  const uchar16 q0 = ((vload16(0, qs) >> shift) & (uchar)15) | (((vload16(0, qh) >> bit) & (uchar)1) << (uchar)4);
  const uchar16 q1 = ((vload16(1, qs) >> shift) & (uchar)15) | (((vload16(1, qh) >> bit) & (uchar)1) << (uchar)4);
  *v += ld_f16(b) * sm.x * gv_dot(convert_float16(q0), xl, convert_float16(q1), xh);
  return -ld_f16(b + 2) * sm.y * (sl + sh);
}

inline float gv_q6_k(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh, float16* v) {
  const global uchar* b = row + (size_t)(s / 8) * 210;
  const uint j = s % 8, n = j / 4, g = j % 4;
  const float d = ld_f16(b + 208);
  const global char* sc = (const global char*)(b + 192) + 8 * n + 2 * g;
  const global uchar* ql = b + 64 * n + 32 * (g & 1);
  const global uchar* qh = b + 128 + 32 * n;
  const uchar lshift = (uchar)((g >> 1) * 4), hshift = (uchar)(2 * g);
  const uchar16 q0 = ((vload16(0, ql) >> lshift) & (uchar)15) | (((vload16(0, qh) >> hshift) & (uchar)3) << (uchar)4);
  const uchar16 q1 = ((vload16(1, ql) >> lshift) & (uchar)15) | (((vload16(1, qh) >> hshift) & (uchar)3) << (uchar)4);
  const float d0 = d * (float)sc[0], d1 = d * (float)sc[1];
  *v += gv_dot(d0 * convert_float16(q0), xl, d1 * convert_float16(q1), xh);
  return -32.0f * (d0 * sl + d1 * sh);
}

// Q2_K, Q3_K, IQ4_NL: the run decoded by blocks.cl, then multiplied (these have no tuned
// decode-into-the-dot path; correctness first, and the decoders are vector code already).
#define CLPORT_GV_DECODED(T)                                                                  \
  inline float gv_##T(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh, float16* v) { \
    float16 lo, hi;                                                                           \
    dq32_##T(row, s, &lo, &hi);                                                               \
    (void)sl;                                                                                 \
    (void)sh;                                                                                 \
    *v += gv_dot(lo, xl, hi, xh);                                                             \
    return 0.0f;                                                                              \
  }
CLPORT_GV_DECODED(q2_k)
CLPORT_GV_DECODED(q3_k)
CLPORT_GV_DECODED(iq4_nl)

// K-quants, GEMV_SPLIT 1: a work-item walks whole 256-element super-blocks, so each row's
// half-precision scales and 6-bit sub-block scales are decoded once per super-block (gk_prep_*:
// sc[j], mn[j] for its 8 runs) instead of once per 32-element run. On a CPU that per-run scalar
// decode cost as much as the run's vector work.
inline void gk_prep_q4_k(const global uchar* blk, float* sc, float* mn) {
  const float d = ld_f16(blk), dmin = ld_f16(blk + 2);
  for (uint j = 0; j < 8; ++j) {
    const float2 sm = k_scale_min(blk + 4, j);
    sc[j] = d * sm.x;
    mn[j] = dmin * sm.y;
  }
}
#define gk_prep_q5_k gk_prep_q4_k

// Q6_K: sc[2j], sc[2j + 1] are d times the scales of run j's two halves; mn is unused.
inline void gk_prep_q6_k(const global uchar* blk, float* sc, float* mn) {
  const float d = ld_f16(blk + 208);
  const global char* s8 = (const global char*)(blk + 192);
  for (uint i = 0; i < 16; ++i) sc[i] = d * (float)s8[i];
  (void)mn;
}

inline float gk_q4_k(const global uchar* blk, uint j, const float* sc, const float* mn, float16 xl, float16 xh,
                     float sl, float sh, float16* v) {
  const global uchar* qs = blk + 16 + 32 * (j / 2);
  const uchar shift = (uchar)((j & 1) * 4);
  const uchar16 q0 = (vload16(0, qs) >> shift) & (uchar)15;
  const uchar16 q1 = (vload16(1, qs) >> shift) & (uchar)15;
  *v += sc[j] * gv_dot(convert_float16(q0), xl, convert_float16(q1), xh);
  return -mn[j] * (sl + sh);
}

inline float gk_q5_k(const global uchar* blk, uint j, const float* sc, const float* mn, float16 xl, float16 xh,
                     float sl, float sh, float16* v) {
  const global uchar* qh = blk + 16;
  const global uchar* qs = blk + 48 + 32 * (j / 2);
  const uchar shift = (uchar)((j & 1) * 4), bit = (uchar)j;
  const uchar16 q0 = ((vload16(0, qs) >> shift) & (uchar)15) | (((vload16(0, qh) >> bit) & (uchar)1) << (uchar)4);
  const uchar16 q1 = ((vload16(1, qs) >> shift) & (uchar)15) | (((vload16(1, qh) >> bit) & (uchar)1) << (uchar)4);
  *v += sc[j] * gv_dot(convert_float16(q0), xl, convert_float16(q1), xh);
  return -mn[j] * (sl + sh);
}

inline float gk_q6_k(const global uchar* blk, uint j, const float* sc, const float* mn, float16 xl, float16 xh,
                     float sl, float sh, float16* v) {
  const uint n = j / 4, g = j % 4;
  const global uchar* ql = blk + 64 * n + 32 * (g & 1);
  const global uchar* qh = blk + 128 + 32 * n;
  const uchar lshift = (uchar)((g >> 1) * 4), hshift = (uchar)(2 * g);
  const uchar16 q0 = ((vload16(0, ql) >> lshift) & (uchar)15) | (((vload16(0, qh) >> hshift) & (uchar)3) << (uchar)4);
  const uchar16 q1 = ((vload16(1, ql) >> lshift) & (uchar)15) | (((vload16(1, qh) >> hshift) & (uchar)3) << (uchar)4);
  const float d0 = sc[8 * n + 2 * g], d1 = sc[8 * n + 2 * g + 1];
  (void)mn;
  *v += gv_dot(d0 * convert_float16(q0), xl, d1 * convert_float16(q1), xh);
  return -32.0f * (d0 * sl + d1 * sh);
}

// 4 bytes at an even offset, read as two 16-bit words: rows start at even offsets and every
// block size is even (see blocks.cl), so 2-byte alignment is all that can be relied on.
inline uint gq_word(const global uchar* p) {
  const global ushort* h = (const global ushort*)p;
  return (uint)h[0] | ((uint)h[1] << 16);
}

// Bits [shift, shift + width) of each byte of a little-endian word, one byte per lane.
#define GQ_LANES(v, shift) ((uint4)(v) >> ((uint4)(0, 8, 16, 24) + (uint)(shift)))

// Exact float of integers below 2^23 without an int-to-float convert (those run at a fraction
// of the FMA rate on some GPUs, which made the convert-per-element version compute-bound): the
// integer becomes the mantissa of 2^23 + u, and the 2^23 (plus any constant offset) is subtracted.
inline float4 gq_float(uint4 u, float offset) { return as_float4(u | 0x4B000000u) - (8388608.0f + offset); }

// The 4-bit fields at bits pos[i] of v as 1 + field / 16: one rotate puts the field at the top
// of the mantissa (bits 19..22) and one and-or makes the float, so the caller recovers
// sum(field * x) as 16 * (dot - sum x) without a subtraction per element.
inline float4 gq_unit4(uint v, uint4 pos) {
  return as_float4((rotate((uint4)(v), (uint4)(51u) - pos) & 0x00780000u) | 0x3F800000u);
}
#define GQ_LO (uint4)(0, 8, 16, 24)
#define GQ_HI (uint4)(4, 12, 20, 28)

// Bit 4 of elements first..first+3 of a Q5 block from its 32 high bits, as 0 or 16.
inline uint4 gq_q5_bits(uint qh, uint first) { return (((uint4)(qh >> first) >> (uint4)(0, 1, 2, 3)) & 1u) << 4; }

// GEMV_SPLIT 4: per-type partial dot product of quarter q of run s with xa = x[32s+4q ..],
// xb = x[32s+16+4q ..] (sa, sb their sums, loaded once by the caller).
inline float gq_q4_0(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) {
  const global uchar* b = row + (size_t)s * 18;
  const uint v = gq_word(b + 2 + 4 * q);
  return ld_f16(b) * (16.0f * (dot(gq_unit4(v, GQ_LO), xa) + dot(gq_unit4(v, GQ_HI), xb)) - 24.0f * (sa + sb));
}

inline float gq_q4_1(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) {
  const global uchar* b = row + (size_t)s * 20;
  const uint v = gq_word(b + 4 + 4 * q);
  return ld_f16(b) * (16.0f * (dot(gq_unit4(v, GQ_LO), xa) + dot(gq_unit4(v, GQ_HI), xb) - sa - sb)) +
         ld_f16(b + 2) * (sa + sb);
}

inline float gq_q5_0(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) {
  const global uchar* b = row + (size_t)s * 22;
  const uint qh = gq_word(b + 2), v = gq_word(b + 6 + 4 * q);
  const float4 lo = gq_float((GQ_LANES(v, 0) & 15u) | gq_q5_bits(qh, 4 * q), 16.0f);
  const float4 hi = gq_float((GQ_LANES(v, 4) & 15u) | gq_q5_bits(qh, 16 + 4 * q), 16.0f);
  (void)sa;
  (void)sb;
  return ld_f16(b) * (dot(lo, xa) + dot(hi, xb));
}

inline float gq_q5_1(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) {
  const global uchar* b = row + (size_t)s * 24;
  const uint qh = gq_word(b + 4), v = gq_word(b + 8 + 4 * q);
  const float4 lo = gq_float((GQ_LANES(v, 0) & 15u) | gq_q5_bits(qh, 4 * q), 0.0f);
  const float4 hi = gq_float((GQ_LANES(v, 4) & 15u) | gq_q5_bits(qh, 16 + 4 * q), 0.0f);
  return ld_f16(b) * (dot(lo, xa) + dot(hi, xb)) + ld_f16(b + 2) * (sa + sb);
}

// Signed bytes: flipping the sign bit maps -128..127 to 0..255, undone by the 128 offset.
inline float gq_q8_0(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) {
  const global uchar* b = row + (size_t)s * 34;
  const uint v0 = gq_word(b + 2 + 4 * q) ^ 0x80808080u, v1 = gq_word(b + 18 + 4 * q) ^ 0x80808080u;
  (void)sa;
  (void)sb;
  return ld_f16(b) * (dot(gq_float(GQ_LANES(v0, 0) & 255u, 128.0f), xa) + dot(gq_float(GQ_LANES(v1, 0) & 255u, 128.0f), xb));
}

inline float gq_q4_k(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) {
  const global uchar* b = row + (size_t)(s / 8) * 144;
  const uint j = s % 8;
  const float2 sm = k_scale_min(b + 4, j);
  const global uchar* qs = b + 16 + 32 * (j / 2) + 4 * q;
  const uint4 pos = GQ_LO + (j & 1) * 4;
  const float dn = dot(gq_unit4(gq_word(qs), pos), xa) + dot(gq_unit4(gq_word(qs + 16), pos), xb) - sa - sb;
  return ld_f16(b) * sm.x * 16.0f * dn - ld_f16(b + 2) * sm.y * (sa + sb);
}

inline float gq_q5_k(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) {
  const global uchar* b = row + (size_t)(s / 8) * 176;
  const uint j = s % 8;
  const float2 sm = k_scale_min(b + 4, j);
  const global uchar* qh = b + 16 + 4 * q;
  const global uchar* qs = b + 48 + 32 * (j / 2) + 4 * q;
  const uint shift = (j & 1) * 4;
  const float4 a = gq_float((GQ_LANES(gq_word(qs), shift) & 15u) | ((GQ_LANES(gq_word(qh), j) & 1u) << 4), 0.0f);
  const float4 c = gq_float((GQ_LANES(gq_word(qs + 16), shift) & 15u) | ((GQ_LANES(gq_word(qh + 16), j) & 1u) << 4), 0.0f);
  return ld_f16(b) * sm.x * (dot(a, xa) + dot(c, xb)) - ld_f16(b + 2) * sm.y * (sa + sb);
}

inline float gq_q6_k(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) {
  const global uchar* b = row + (size_t)(s / 8) * 210;
  const uint j = s % 8, n = j / 4, g = j % 4;
  const global char* sc = (const global char*)(b + 192) + 8 * n + 2 * g;
  const global uchar* ql = b + 64 * n + 32 * (g & 1) + 4 * q;
  const global uchar* qh = b + 128 + 32 * n + 4 * q;
  const uint lshift = (g >> 1) * 4, hshift = 2 * g;
  const float4 a = gq_float((GQ_LANES(gq_word(ql), lshift) & 15u) | ((GQ_LANES(gq_word(qh), hshift) & 3u) << 4), 32.0f);
  const float4 c = gq_float((GQ_LANES(gq_word(ql + 16), lshift) & 15u) | ((GQ_LANES(gq_word(qh + 16), hshift) & 3u) << 4), 32.0f);
  (void)sa;
  (void)sb;
  return ld_f16(b + 208) * ((float)sc[0] * dot(a, xa) + (float)sc[1] * dot(c, xb));
}

// Q2_K, Q3_K, IQ4_NL in the quarter split: blocks.cl's quarter decoders.
#define CLPORT_GQ_DECODED(T)                                                                  \
  inline float gq_##T(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) { \
    float4 a, c;                                                                              \
    dq8_##T(row, s, q, &a, &c);                                                               \
    (void)sa;                                                                                 \
    (void)sb;                                                                                 \
    return dot(a, xa) + dot(c, xb);                                                           \
  }
CLPORT_GQ_DECODED(q2_k)
CLPORT_GQ_DECODED(q3_k)
CLPORT_GQ_DECODED(iq4_nl)

// The accumulation macros below take NR, the number of weight rows accumulated at once (wr[r],
// set up by CLPORT_GEMV_ROW_POINTERS: GEMV_ROWS, or 2 * GEMV_ROWS when a fused kernel reads a
// second weight), and NORM: 1 when the kernel fuses the RMSNorm in front (each x value is used
// as x * g, and ss collects sum(x^2) for the norm's scale, which the finish applies).
#define CLPORT_GEMV_ROW_POINTERS(NR)                                                          \
  const global uchar* wr[NR];                                                                 \
  /* rows past N are clamped: computed, never stored; rows r >= GEMV_ROWS read weight w1 */   \
  for (int r = 0; r < (NR); ++r)                                                              \
    wr[r] = (r < GEMV_ROWS ? w0 : w1) + (size_t)min(n0 + r % GEMV_ROWS, N - 1) * w_row_bytes;

// x chunk loads: the norm's sum of squares from the raw values, then the norm weight applied.
#define CLPORT_GEMV_NORM16(NORM, xl, xh, gp)                                                  \
  if (NORM) {                                                                                 \
    ss += hsum16(xl * xl + xh * xh);                                                          \
    xl *= vload16(0, gp);                                                                     \
    xh *= vload16(1, gp);                                                                     \
  }
#define CLPORT_GEMV_NORM4(NORM, xa, xb, ga, gb)                                               \
  if (NORM) {                                                                                 \
    ss += dot(xa, xa) + dot(xb, xb);                                                          \
    xa *= (ga);                                                                               \
    xb *= (gb);                                                                               \
  }

#if GEMV_SPLIT == 4
#define CLPORT_GEMV_Q_ACCUMULATE(T, NR, NORM)                                                 \
  CLPORT_GEMV_ROW_POINTERS(NR)                                                                \
  const uint nquarter = (uint)(K / 32) * 4;                                                   \
  /* vload4 may only assume 4-byte alignment; a 16-byte aligned row (K is a multiple of 32,   \
     so all rows are when the first is) takes one vector load instead of four scalar ones. */ \
  const bool x_aligned = ((ulong)xr % 16) == 0;                                               \
  for (uint t = get_local_id(0); t < nquarter; t += GEMV_WG) {                                \
    const uint s = t / 4, q = t % 4;                                                          \
    const global float* xp = xr + 32 * s + 4 * q;                                             \
    float4 xa = x_aligned ? *(const global float4*)xp : vload4(0, xp);                        \
    float4 xb = x_aligned ? *(const global float4*)(xp + 16) : vload4(4, xp);                 \
    CLPORT_GEMV_NORM4(NORM, xa, xb, vload4(0, gr + 32 * s + 4 * q), vload4(4, gr + 32 * s + 4 * q)) \
    const float sa = xa.x + xa.y + xa.z + xa.w, sb = xb.x + xb.y + xb.z + xb.w;                \
    for (int r = 0; r < (NR); ++r) acc[r] += gq_##T(wr[r], s, q, xa, xb, sa, sb);           \
  }
#else
// Whole-run split: each row's first byte and 16-lane partial sums (the lanes are added once,
// after the loop, by CLPORT_GEMV_WHOLE_RUN_END).
#define CLPORT_GEMV_WHOLE_RUN_BEGIN(NR)                                                       \
  float16 vacc[NR];                                                                           \
  CLPORT_GEMV_ROW_POINTERS(NR)                                                                \
  for (int r = 0; r < (NR); ++r) vacc[r] = (float16)(0.0f);
#define CLPORT_GEMV_WHOLE_RUN_END(NR) for (int r = 0; r < (NR); ++r) acc[r] += hsum16(vacc[r]);

#define CLPORT_GEMV_Q_ACCUMULATE(T, NR, NORM)                                                 \
  CLPORT_GEMV_WHOLE_RUN_BEGIN(NR)                                                             \
  const uint nrun = K / 32;                                                                   \
  for (uint s = get_local_id(0); s < nrun; s += GEMV_WG) {                                    \
    float16 xl = vload16(0, xr + 32 * s), xh = vload16(1, xr + 32 * s);                       \
    CLPORT_GEMV_NORM16(NORM, xl, xh, gr + 32 * s)                                             \
    const float sl = hsum16(xl), sh = hsum16(xh);                                             \
    /* unrolled, the per-row sums stay in registers (PoCL kept them on the stack) */          \
    _Pragma("unroll")                                                                         \
    for (int r = 0; r < (NR); ++r) acc[r] += gv_##T(wr[r], s, xl, xh, sl, sh, &vacc[r]);    \
  }                                                                                           \
  CLPORT_GEMV_WHOLE_RUN_END(NR)

// K-quants (see gk_prep_*): work-items stride over super-blocks of BYTES bytes.
#define CLPORT_GEMV_QK_ACCUMULATE(T, BYTES, NR, NORM)                                         \
  CLPORT_GEMV_WHOLE_RUN_BEGIN(NR)                                                             \
  const uint nsb = K / 256;                                                                   \
  for (uint sb = get_local_id(0); sb < nsb; sb += GEMV_WG) {                                  \
    float sc[NR][16], mn[NR][8];                                                              \
    _Pragma("unroll")                                                                         \
    for (int r = 0; r < (NR); ++r) gk_prep_##T(wr[r] + (size_t)sb * (BYTES), sc[r], mn[r]);  \
    for (uint j = 0; j < 8; ++j) {                                                            \
      const size_t off = 256 * (size_t)sb + 32 * j;                                           \
      float16 xl = vload16(0, xr + off), xh = vload16(1, xr + off);                           \
      CLPORT_GEMV_NORM16(NORM, xl, xh, gr + off)                                              \
      const float sl = hsum16(xl), sh = hsum16(xh);                                           \
      _Pragma("unroll")                                                                       \
      for (int r = 0; r < (NR); ++r)                                                          \
        acc[r] += gk_##T(wr[r] + (size_t)sb * (BYTES), j, sc[r], mn[r], xl, xh, sl, sh, &vacc[r]); \
    }                                                                                         \
  }                                                                                           \
  CLPORT_GEMV_WHOLE_RUN_END(NR)
#endif

// Which accumulation each quantized dtype uses: the K-quants walk whole super-blocks in the
// whole-run split (CPUs); everything else, and every dtype in the quarter split, runs by run.
#if GEMV_SPLIT == 4
#define CLPORT_GEMV_ACC_q4_k(NR, NORM) CLPORT_GEMV_Q_ACCUMULATE(q4_k, NR, NORM)
#define CLPORT_GEMV_ACC_q5_k(NR, NORM) CLPORT_GEMV_Q_ACCUMULATE(q5_k, NR, NORM)
#define CLPORT_GEMV_ACC_q6_k(NR, NORM) CLPORT_GEMV_Q_ACCUMULATE(q6_k, NR, NORM)
#else
#define CLPORT_GEMV_ACC_q4_k(NR, NORM) CLPORT_GEMV_QK_ACCUMULATE(q4_k, 144, NR, NORM)
#define CLPORT_GEMV_ACC_q5_k(NR, NORM) CLPORT_GEMV_QK_ACCUMULATE(q5_k, 176, NR, NORM)
#define CLPORT_GEMV_ACC_q6_k(NR, NORM) CLPORT_GEMV_QK_ACCUMULATE(q6_k, 210, NR, NORM)
#endif
#define CLPORT_GEMV_ACC_q4_0(NR, NORM) CLPORT_GEMV_Q_ACCUMULATE(q4_0, NR, NORM)
#define CLPORT_GEMV_ACC_q4_1(NR, NORM) CLPORT_GEMV_Q_ACCUMULATE(q4_1, NR, NORM)
#define CLPORT_GEMV_ACC_q5_0(NR, NORM) CLPORT_GEMV_Q_ACCUMULATE(q5_0, NR, NORM)
#define CLPORT_GEMV_ACC_q5_1(NR, NORM) CLPORT_GEMV_Q_ACCUMULATE(q5_1, NR, NORM)
#define CLPORT_GEMV_ACC_q8_0(NR, NORM) CLPORT_GEMV_Q_ACCUMULATE(q8_0, NR, NORM)
#define CLPORT_GEMV_ACC_q2_k(NR, NORM) CLPORT_GEMV_Q_ACCUMULATE(q2_k, NR, NORM)
#define CLPORT_GEMV_ACC_q3_k(NR, NORM) CLPORT_GEMV_Q_ACCUMULATE(q3_k, NR, NORM)
#define CLPORT_GEMV_ACC_iq4_nl(NR, NORM) CLPORT_GEMV_Q_ACCUMULATE(iq4_nl, NR, NORM)

// Plain weights: float4 chunks, then a scalar tail for K % 4.
#define CLPORT_GEMV_PLAIN_ACCUMULATE(WT, LOAD4, LOAD1, NR, NORM)                               \
  const uint nvec = K / 4;                                                                    \
  const uint lid = get_local_id(0);                                                           \
  for (uint i = lid; i < nvec; i += GEMV_WG) {                                                \
    float4 xv = vload4(i, xr), unused = (float4)(0.0f);                                       \
    CLPORT_GEMV_NORM4(NORM, xv, unused, vload4(i, gr), (float4)(0.0f))                        \
    for (int r = 0; r < (NR); ++r) {                                                          \
      const global WT* wp = (const global WT*)((r < GEMV_ROWS ? w0 : w1) +                    \
                                              (size_t)min(n0 + r % GEMV_ROWS, N - 1) * w_row_bytes); \
      acc[r] += dot(LOAD4(i, wp), xv);                                                        \
    }                                                                                         \
  }                                                                                           \
  /* K % 4 leftovers: one per work-item, all of them when GEMV_WG is 1 */                    \
  for (uint tail = 4 * nvec + lid; tail < (uint)K; tail += GEMV_WG) {                         \
    float xt = xr[tail];                                                                      \
    if (NORM) {                                                                               \
      ss += xt * xt;                                                                          \
      xt *= gr[tail];                                                                         \
    }                                                                                         \
    for (int r = 0; r < (NR); ++r) {                                                          \
      const global WT* wp = (const global WT*)((r < GEMV_ROWS ? w0 : w1) +                    \
                                              (size_t)min(n0 + r % GEMV_ROWS, N - 1) * w_row_bytes); \
      acc[r] += LOAD1(tail, wp) * xt;                                                         \
    }                                                                                         \
  }
#define CLPORT_LOAD_F32_1(i, p) ((p)[i])
#define CLPORT_GEMV_ACC_f32(NR, NORM) CLPORT_GEMV_PLAIN_ACCUMULATE(float, vload4, CLPORT_LOAD_F32_1, NR, NORM)
#define CLPORT_GEMV_ACC_f16(NR, NORM) CLPORT_GEMV_PLAIN_ACCUMULATE(half, vload_half4, vload_half, NR, NORM)
#define CLPORT_GEMV_ACC_bf16(NR, NORM) CLPORT_GEMV_PLAIN_ACCUMULATE(ushort, ld_bf16_4, ld_bf16, NR, NORM)

// What every GEMV kernel starts with: its rows, its column of x and the accumulators. w1 (the
// second weight of a fused kernel) and gr (the norm weight) default to harmless aliases.
#define CLPORT_GEMV_BEGIN(NR)                                                                 \
  const int n0 = get_group_id(0) * GEMV_ROWS, m = get_global_id(1);                          \
  const global float* xr = CLPORT_AT(const global float*, x, x_off) + (size_t)m * K;         \
  const global uchar* w0 = w + w_off;                                                         \
  float acc[NR];                                                                              \
  for (int r = 0; r < (NR); ++r) acc[r] = 0.0f;                                               \
  float ss = 0.0f;                                                                            \
  (void)ss;

#ifndef GEMV_FUSED
// dst = W x.
#define CLPORT_GEMV_KERNEL(T)                                                                 \
  kernel __attribute__((reqd_work_group_size(GEMV_WG, 1, 1))) void mul_mat_gemv_##T(        \
      CLPORT_GEMV_ARGS) {                                                                     \
    CLPORT_GEMV_LOCALS                                                                        \
    CLPORT_GEMV_BEGIN(GEMV_ROWS)                                                              \
    const global uchar* w1 = w0;                                                              \
    const global float* gr = xr;                                                              \
    (void)w1;                                                                                 \
    (void)gr;                                                                                 \
    CLPORT_GEMV_ACC_##T(GEMV_ROWS, 0)                                                         \
    CLPORT_GEMV_FINISH()                                                                      \
  }
CLPORT_FOR_EACH_QUANT(CLPORT_GEMV_KERNEL)
#if CLPORT_WANT(f32)
CLPORT_GEMV_KERNEL(f32)
#endif
#if CLPORT_WANT(f16)
CLPORT_GEMV_KERNEL(f16)
#endif
#if CLPORT_WANT(bf16)
CLPORT_GEMV_KERNEL(bf16)
#endif
#else
// The fused GEMVs (GEMV_FUSED builds them as their own program). Each work-group reduces NR
// rows (plus the norm's sum of squares as one more) and its first GEMV_ROWS work-items store.
#if GEMV_WG == 1
#define CLPORT_GEMV_TOTALS(NR, NORM)                                                          \
  if (NORM) acc[NR] = ss;
#define CLPORT_GEMV_ROW_TOTAL(r) acc[r]
#else
#define CLPORT_GEMV_TOTALS(NR, NORM)                                                          \
  local float red[((NR) + 1) * GEMV_WG];                                                      \
  if (NORM) acc[NR] = ss;                                                                     \
  gemv_fold_rows(acc, (NR) + (NORM), red);
#define CLPORT_GEMV_ROW_TOTAL(r) gemv_row_total(red, r)
#endif

// Folds the work-group's partial sums of nr rows: afterwards gemv_row_total(red, r) is row r's
// total, for any work-item (same two passes as gemv_reduce).
inline void gemv_fold_rows(const float* acc, const uint nr, local float* red) {
  const uint lid = get_local_id(0);
  for (uint r = 0; r < nr; ++r) red[r * GEMV_WG + lid] = acc[r];
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint items = nr * GEMV_RED_PER_ROW;
  float part[(2 * GEMV_ROWS + 1) * GEMV_RED_PER_ROW / GEMV_WG + 1];
  for (uint k = 0; k * GEMV_WG < items; ++k) {
    const uint t = lid + k * GEMV_WG, r = t / GEMV_RED_PER_ROW, c = t % GEMV_RED_PER_ROW;
    float sum = 0.0f;
    if (t < items) {
      for (uint i = 0; i < GEMV_RED_CHUNK; ++i) sum += red[r * GEMV_WG + c + i * GEMV_RED_PER_ROW];
    }
    part[k] = sum;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = 0; k * GEMV_WG < items; ++k) {
    const uint t = lid + k * GEMV_WG;
    if (t < items) red[t] = part[k];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}
inline float gemv_row_total(local const float* red, uint r) {
  float total = 0.0f;
  for (uint c = 0; c < GEMV_RED_PER_ROW; ++c) total += red[r * GEMV_RED_PER_ROW + c];
  return total;
}

// The norm's scale of this column: 1 / sqrt(mean(x^2) + eps), from the total in row NR.
#define CLPORT_GEMV_NORM_SCALE(NR) (1.0f / sqrt(CLPORT_GEMV_ROW_TOTAL(NR) / (float)K + eps))

// Work-item r < GEMV_ROWS stores output row n0 + r (all rows when GEMV_WG is 1).
#if GEMV_WG == 1
#define CLPORT_GEMV_FOR_STORED_ROWS for (int r = 0; r < GEMV_ROWS; ++r)
#else
#define CLPORT_GEMV_FOR_STORED_ROWS for (int r = get_local_id(0); r < GEMV_ROWS; r += GEMV_ROWS)
#endif

#define CLPORT_GEMV_FUSED_KERNELS(T)                                                          \
  /* dst = W x + res (res may be dst itself: each element is read, then written, by one item) */ \
  kernel __attribute__((reqd_work_group_size(GEMV_WG, 1, 1))) void mul_mat_gemv_add_##T(    \
      CLPORT_GEMV_ARGS, const global uchar* res, ulong res_off) {                             \
    CLPORT_GEMV_BEGIN(GEMV_ROWS + 1)                                                          \
    const global uchar* w1 = w0;                                                              \
    const global float* gr = xr;                                                              \
    (void)w1;                                                                                 \
    (void)gr;                                                                                 \
    CLPORT_GEMV_ACC_##T(GEMV_ROWS, 0)                                                         \
    CLPORT_GEMV_TOTALS(GEMV_ROWS, 0)                                                          \
    global float* y = CLPORT_AT(global float*, dst, dst_off) + (size_t)m * N;                \
    const global float* rv = CLPORT_AT(const global float*, res, res_off) + (size_t)m * N;   \
    CLPORT_GEMV_FOR_STORED_ROWS {                                                             \
      if (n0 + r < N) y[n0 + r] = CLPORT_GEMV_ROW_TOTAL(r) + rv[n0 + r];                      \
    }                                                                                         \
  }                                                                                           \
  /* dst = W (rms_norm(x) * g) */                                                             \
  kernel __attribute__((reqd_work_group_size(GEMV_WG, 1, 1))) void mul_mat_gemv_norm_##T(   \
      CLPORT_GEMV_ARGS, const global uchar* g, ulong g_off, float eps) {                      \
    CLPORT_GEMV_BEGIN(GEMV_ROWS + 1)                                                          \
    const global uchar* w1 = w0;                                                              \
    const global float* gr = CLPORT_AT(const global float*, g, g_off);                       \
    (void)w1;                                                                                 \
    CLPORT_GEMV_ACC_##T(GEMV_ROWS, 1)                                                         \
    CLPORT_GEMV_TOTALS(GEMV_ROWS, 1)                                                          \
    const float inv = CLPORT_GEMV_NORM_SCALE(GEMV_ROWS);                                      \
    global float* y = CLPORT_AT(global float*, dst, dst_off) + (size_t)m * N;                \
    CLPORT_GEMV_FOR_STORED_ROWS {                                                             \
      if (n0 + r < N) y[n0 + r] = CLPORT_GEMV_ROW_TOTAL(r) * inv;                             \
    }                                                                                         \
  }                                                                                           \
  /* dst = silu(Wg n) * (Wu n), n = rms_norm(x) * g: rows r < GEMV_ROWS of the accumulation   \
     are the gate's, the next GEMV_ROWS the up projection's */                                \
  kernel __attribute__((reqd_work_group_size(GEMV_WG, 1, 1))) void mul_mat_gemv_norm_swiglu_##T( \
      CLPORT_GEMV_ARGS, const global uchar* g, ulong g_off, float eps, const global uchar* u,  \
      ulong u_off) {                                                                          \
    CLPORT_GEMV_BEGIN(2 * GEMV_ROWS + 1)                                                      \
    const global uchar* w1 = u + u_off;                                                       \
    const global float* gr = CLPORT_AT(const global float*, g, g_off);                       \
    CLPORT_GEMV_ACC_##T(2 * GEMV_ROWS, 1)                                                     \
    CLPORT_GEMV_TOTALS(2 * GEMV_ROWS, 1)                                                      \
    const float inv = CLPORT_GEMV_NORM_SCALE(2 * GEMV_ROWS);                                  \
    global float* y = CLPORT_AT(global float*, dst, dst_off) + (size_t)m * N;                \
    CLPORT_GEMV_FOR_STORED_ROWS {                                                             \
      const float gate = CLPORT_GEMV_ROW_TOTAL(r) * inv;                                      \
      const float up = CLPORT_GEMV_ROW_TOTAL(GEMV_ROWS + r) * inv;                            \
      if (n0 + r < N) y[n0 + r] = gate / (1.0f + exp(-gate)) * up;                            \
    }                                                                                         \
  }
CLPORT_FOR_EACH_QUANT(CLPORT_GEMV_FUSED_KERNELS)
#if CLPORT_WANT(f32)
CLPORT_GEMV_FUSED_KERNELS(f32)
#endif
#if CLPORT_WANT(f16)
CLPORT_GEMV_FUSED_KERNELS(f16)
#endif
#if CLPORT_WANT(bf16)
CLPORT_GEMV_FUSED_KERNELS(bf16)
#endif
#endif
