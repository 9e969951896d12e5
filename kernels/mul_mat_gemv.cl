// Matrix-vector product (decode path): dst[N, M] = x[K, M] . W[K, N]^T for small M.
// Needs blocks.cl in front. One work-group of GEMV_WG work-items computes GEMV_ROWS consecutive
// output rows for one column m (global size: (ceil(N / GEMV_ROWS) * GEMV_WG, M)); partial sums
// meet in a local-memory tree reduction. GEMV_WG must be a power of two.
//
// Quantized weights are walked in "quarters": quarter t of a row covers elements 4q..4q+3 and
// 16+4q..16+4q+3 of the 32-element run s = t / 4 (q = t % 4). In every GGUF layout those eight
// elements sit in 4 consecutive bytes (plus 4 more for Q8_0 and the Q6_K high bits), so
// consecutive work-items read consecutive 4-byte words of the same block: loads coalesce on
// GPUs, each work-item does little serial work, and a row offers K / 8 parallel items instead of
// K / 32. Plain weights stride over float4 chunks the same way. The x values are loaded once per
// quarter and shared by all GEMV_ROWS rows.

#ifndef GEMV_WG
#define GEMV_WG 64
#endif
#ifndef GEMV_ROWS
#define GEMV_ROWS 4
#endif

// Sums acc[r] over the work-group for every r; the result lands in red[r * GEMV_WG].
inline void gemv_reduce(float* acc, local float* red) {
  const uint lid = get_local_id(0);
  for (int r = 0; r < GEMV_ROWS; ++r) red[r * GEMV_WG + lid] = acc[r];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint half_n = GEMV_WG / 2; half_n > 0; half_n >>= 1) {
    if (lid < half_n) {
      for (int r = 0; r < GEMV_ROWS; ++r) red[r * GEMV_WG + lid] += red[r * GEMV_WG + lid + half_n];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

inline void gemv_store(local const float* red, global float* y, int n0, int N) {
  const uint lid = get_local_id(0);
  if (lid < GEMV_ROWS && n0 + (int)lid < N) y[n0 + lid] = red[lid * GEMV_WG];
}

#define CLPORT_GEMV_ARGS                                                                       \
  const global uchar *w, ulong w_off, ulong w_row_bytes, const global uchar *x, ulong x_off,  \
      global uchar *dst, ulong dst_off, int K, int N

// 4 bytes at an even offset, read as two 16-bit words: rows start at even offsets and every
// block size is even (see blocks.cl), so 2-byte alignment is all that can be relied on.
inline uchar4 gq_bytes(const global uchar* p) {
  const global ushort* h = (const global ushort*)p;
  return as_uchar4((uint)h[0] | ((uint)h[1] << 16));
}

inline float4 gq_lo(uchar4 b) { return convert_float4(b & (uchar)15); }
inline float4 gq_hi(uchar4 b) { return convert_float4(b >> (uchar)4); }

// Bit 4 of elements first..first+3 of a Q5 block from its 32 high bits, as 0 or 16.
inline float4 gq_q5_bits(uint qh, uint first) {
  return convert_float4(((uint4)(qh >> first) >> (uint4)(0, 1, 2, 3)) & 1u) * 16.0f;
}

// Per-type partial dot product of quarter q of run s with xa = x[32s+4q ..], xb = x[32s+16+4q ..]
// (sa, sb their sums, loaded once by the caller). Offsets and mins are factored out of the element
// math, e.g. Q4_0: d * (q . x - 8 * sum x).
inline float gq_q4_0(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) {
  const global uchar* b = row + (size_t)s * 18;
  const uchar4 v = gq_bytes(b + 2 + 4 * q);
  return ld_f16(b) * (dot(gq_lo(v), xa) + dot(gq_hi(v), xb) - 8.0f * (sa + sb));
}

inline float gq_q4_1(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) {
  const global uchar* b = row + (size_t)s * 20;
  const uchar4 v = gq_bytes(b + 4 + 4 * q);
  return ld_f16(b) * (dot(gq_lo(v), xa) + dot(gq_hi(v), xb)) + ld_f16(b + 2) * (sa + sb);
}

inline float gq_q5_0(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) {
  const global uchar* b = row + (size_t)s * 22;
  const uchar4 h = gq_bytes(b + 2);
  const uint qh = as_uint(h);
  const uchar4 v = gq_bytes(b + 6 + 4 * q);
  const float4 lo = gq_lo(v) + gq_q5_bits(qh, 4 * q), hi = gq_hi(v) + gq_q5_bits(qh, 16 + 4 * q);
  return ld_f16(b) * (dot(lo, xa) + dot(hi, xb) - 16.0f * (sa + sb));
}

inline float gq_q5_1(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) {
  const global uchar* b = row + (size_t)s * 24;
  const uint qh = as_uint(gq_bytes(b + 4));
  const uchar4 v = gq_bytes(b + 8 + 4 * q);
  const float4 lo = gq_lo(v) + gq_q5_bits(qh, 4 * q), hi = gq_hi(v) + gq_q5_bits(qh, 16 + 4 * q);
  return ld_f16(b) * (dot(lo, xa) + dot(hi, xb)) + ld_f16(b + 2) * (sa + sb);
}

inline float gq_q8_0(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) {
  const global uchar* b = row + (size_t)s * 34;
  const float4 a = convert_float4(as_char4(gq_bytes(b + 2 + 4 * q)));
  const float4 c = convert_float4(as_char4(gq_bytes(b + 18 + 4 * q)));
  (void)sa;
  (void)sb;
  return ld_f16(b) * (dot(a, xa) + dot(c, xb));
}

// 6-bit scale and min j (0..7) of a Q4_K / Q5_K block without a branch on j (same packing as
// k_scale_min in blocks.cl).
inline float2 gq_scale_min(const global uchar* sc, uint j) {
  const uint jl = j & 3;
  const uint s0 = sc[jl], s4 = sc[jl + 4], s8 = sc[jl + 8];
  const uint a = j < 4 ? (s0 & 63) : ((s8 & 15) | ((s0 >> 6) << 4));
  const uint m = j < 4 ? (s4 & 63) : ((s8 >> 4) | ((s4 >> 6) << 4));
  return (float2)((float)a, (float)m);
}

inline float gq_q4_k(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) {
  const global uchar* b = row + (size_t)(s / 8) * 144;
  const uint j = s % 8;
  const float2 sm = gq_scale_min(b + 4, j);
  const global uchar* qs = b + 16 + 32 * (j / 2) + 4 * q;
  const uchar shift = (uchar)((j & 1) * 4);
  const float4 a = convert_float4((gq_bytes(qs) >> shift) & (uchar)15);
  const float4 c = convert_float4((gq_bytes(qs + 16) >> shift) & (uchar)15);
  return ld_f16(b) * sm.x * (dot(a, xa) + dot(c, xb)) - ld_f16(b + 2) * sm.y * (sa + sb);
}

inline float gq_q5_k(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) {
  const global uchar* b = row + (size_t)(s / 8) * 176;
  const uint j = s % 8;
  const float2 sm = gq_scale_min(b + 4, j);
  const global uchar* qh = b + 16 + 4 * q;
  const global uchar* qs = b + 48 + 32 * (j / 2) + 4 * q;
  const uchar shift = (uchar)((j & 1) * 4), bit = (uchar)j;
  const uchar4 a = ((gq_bytes(qs) >> shift) & (uchar)15) | (((gq_bytes(qh) >> bit) & (uchar)1) << (uchar)4);
  const uchar4 c = ((gq_bytes(qs + 16) >> shift) & (uchar)15) | (((gq_bytes(qh + 16) >> bit) & (uchar)1) << (uchar)4);
  return ld_f16(b) * sm.x * (dot(convert_float4(a), xa) + dot(convert_float4(c), xb)) -
         ld_f16(b + 2) * sm.y * (sa + sb);
}

inline float gq_q6_k(const global uchar* row, uint s, uint q, float4 xa, float4 xb, float sa, float sb) {
  const global uchar* b = row + (size_t)(s / 8) * 210;
  const uint j = s % 8, n = j / 4, g = j % 4;
  const global char* sc = (const global char*)(b + 192) + 8 * n + 2 * g;
  const global uchar* ql = b + 64 * n + 32 * (g & 1) + 4 * q;
  const global uchar* qh = b + 128 + 32 * n + 4 * q;
  const uchar lshift = (uchar)((g >> 1) * 4), hshift = (uchar)(2 * g);
  const uchar4 a = ((gq_bytes(ql) >> lshift) & (uchar)15) | (((gq_bytes(qh) >> hshift) & (uchar)3) << (uchar)4);
  const uchar4 c = ((gq_bytes(ql + 16) >> lshift) & (uchar)15) | (((gq_bytes(qh + 16) >> hshift) & (uchar)3) << (uchar)4);
  const float lo = dot(convert_float4(a), xa) - 32.0f * sa;
  const float hi = dot(convert_float4(c), xb) - 32.0f * sb;
  return ld_f16(b + 208) * ((float)sc[0] * lo + (float)sc[1] * hi);
}

#define CLPORT_GEMV_Q(T)                                                                      \
  kernel __attribute__((reqd_work_group_size(GEMV_WG, 1, 1))) void mul_mat_gemv_##T(        \
      CLPORT_GEMV_ARGS) {                                                                     \
    local float red[GEMV_ROWS * GEMV_WG];                                                     \
    const int n0 = get_group_id(0) * GEMV_ROWS, m = get_global_id(1);                        \
    const global float* xr = CLPORT_AT(const global float*, x, x_off) + (size_t)m * K;       \
    const global uchar* w0 = w + w_off;                                                       \
    float acc[GEMV_ROWS];                                                                     \
    for (int r = 0; r < GEMV_ROWS; ++r) acc[r] = 0.0f;                                        \
    const uint nquarter = (uint)(K / 32) * 4;                                                 \
    for (uint t = get_local_id(0); t < nquarter; t += GEMV_WG) {                              \
      const uint s = t / 4, q = t % 4;                                                        \
      const float4 xa = vload4(0, xr + 32 * s + 4 * q), xb = vload4(0, xr + 32 * s + 16 + 4 * q); \
      const float sa = xa.x + xa.y + xa.z + xa.w, sb = xb.x + xb.y + xb.z + xb.w;              \
      for (int r = 0; r < GEMV_ROWS; ++r) {                                                   \
        const int n = min(n0 + r, N - 1); /* clamped rows are computed, never stored */       \
        acc[r] += gq_##T(w0 + (size_t)n * w_row_bytes, s, q, xa, xb, sa, sb);                 \
      }                                                                                       \
    }                                                                                         \
    gemv_reduce(acc, red);                                                                    \
    gemv_store(red, CLPORT_AT(global float*, dst, dst_off) + (size_t)m * N, n0, N);          \
  }
CLPORT_FOR_EACH_QUANT(CLPORT_GEMV_Q)

// Plain weights: float4 chunks, then a scalar tail for K % 4.
#define CLPORT_GEMV_PLAIN(NAME, WT, LOAD4, LOAD1)                                             \
  kernel __attribute__((reqd_work_group_size(GEMV_WG, 1, 1))) void NAME(CLPORT_GEMV_ARGS) { \
    local float red[GEMV_ROWS * GEMV_WG];                                                     \
    const int n0 = get_group_id(0) * GEMV_ROWS, m = get_global_id(1);                        \
    const global float* xr = CLPORT_AT(const global float*, x, x_off) + (size_t)m * K;       \
    float acc[GEMV_ROWS];                                                                     \
    for (int r = 0; r < GEMV_ROWS; ++r) acc[r] = 0.0f;                                        \
    const uint nvec = K / 4;                                                                  \
    const uint lid = get_local_id(0);                                                         \
    for (uint i = lid; i < nvec; i += GEMV_WG) {                                              \
      const float4 xv = vload4(i, xr);                                                        \
      for (int r = 0; r < GEMV_ROWS; ++r) {                                                   \
        const int n = min(n0 + r, N - 1);                                                     \
        const global WT* wr = CLPORT_AT(const global WT*, w, w_off + (size_t)n * w_row_bytes); \
        acc[r] += dot(LOAD4(i, wr), xv);                                                      \
      }                                                                                       \
    }                                                                                         \
    const uint tail = 4 * nvec + lid;                                                         \
    if (tail < (uint)K) {                                                                     \
      for (int r = 0; r < GEMV_ROWS; ++r) {                                                   \
        const int n = min(n0 + r, N - 1);                                                     \
        const global WT* wr = CLPORT_AT(const global WT*, w, w_off + (size_t)n * w_row_bytes); \
        acc[r] += LOAD1(tail, wr) * xr[tail];                                                 \
      }                                                                                       \
    }                                                                                         \
    gemv_reduce(acc, red);                                                                    \
    gemv_store(red, CLPORT_AT(global float*, dst, dst_off) + (size_t)m * N, n0, N);          \
  }

#define CLPORT_LOAD_F32_1(i, p) ((p)[i])
CLPORT_GEMV_PLAIN(mul_mat_gemv_f32, float, vload4, CLPORT_LOAD_F32_1)
CLPORT_GEMV_PLAIN(mul_mat_gemv_f16, half, vload_half4, vload_half)
