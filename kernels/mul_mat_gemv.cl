// Matrix-vector product (decode path): dst[N, M] = x[K, M] . W[K, N]^T for small M.
// Needs blocks.cl in front. One work-group of GEMV_WG work-items computes GEMV_ROWS consecutive
// output rows for one column m (global size: (ceil(N / GEMV_ROWS) * GEMV_WG, M)). Work-items
// stride over the row (32-element runs for quantized weights, float4 chunks otherwise) so reads
// of W are coalesced and each x chunk is reused for all GEMV_ROWS rows; partial sums meet in a
// local-memory tree reduction. GEMV_WG must be a power of two.

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

// Per-type dot product of one 32-element run s of a weight row with the matching x run, which
// the caller loaded once (xl = x[0..15], xh = x[16..31], sl / sh their sums) and shares between
// all GEMV_ROWS rows. Offsets and mins are factored out of the element loop (e.g. Q4_0:
// d * (q . x - 8 * sum x)), so each element costs one nibble extraction, one convert and one
// multiply-add; byte math stays in uchar16 vectors and nothing branches per element.
inline float gv_dot(float16 a, float16 xl, float16 b, float16 xh) { return hsum16(a * xl + b * xh); }

inline float gv_q4_0(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh) {
  const global uchar* b = row + (size_t)s * 18;
  const uchar16 q = vload16(0, b + 2);
  const float dot = gv_dot(convert_float16(q & (uchar)15), xl, convert_float16(q >> (uchar)4), xh);
  return ld_f16(b) * (dot - 8.0f * (sl + sh));
}

inline float gv_q4_1(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh) {
  const global uchar* b = row + (size_t)s * 20;
  const uchar16 q = vload16(0, b + 4);
  const float dot = gv_dot(convert_float16(q & (uchar)15), xl, convert_float16(q >> (uchar)4), xh);
  return ld_f16(b) * dot + ld_f16(b + 2) * (sl + sh);
}

inline float gv_q5_0(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh) {
  const global uchar* b = row + (size_t)s * 22;
  const uint qh = ld_u32(b + 2);
  const uchar16 q = vload16(0, b + 6);
  const float16 lo = convert_float16(q & (uchar)15) + convert_float16(q5_high_bits(qh, 0));
  const float16 hi = convert_float16(q >> (uchar)4) + convert_float16(q5_high_bits(qh, 16));
  return ld_f16(b) * (gv_dot(lo, xl, hi, xh) - 16.0f * (sl + sh));
}

inline float gv_q5_1(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh) {
  const global uchar* b = row + (size_t)s * 24;
  const uint qh = ld_u32(b + 4);
  const uchar16 q = vload16(0, b + 8);
  const float16 lo = convert_float16(q & (uchar)15) + convert_float16(q5_high_bits(qh, 0));
  const float16 hi = convert_float16(q >> (uchar)4) + convert_float16(q5_high_bits(qh, 16));
  return ld_f16(b) * gv_dot(lo, xl, hi, xh) + ld_f16(b + 2) * (sl + sh);
}

inline float gv_q8_0(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh) {
  const global uchar* b = row + (size_t)s * 34;
  const global char* qs = (const global char*)(b + 2);
  return ld_f16(b) * gv_dot(convert_float16(vload16(0, qs)), xl, convert_float16(vload16(1, qs)), xh);
}

// 6-bit scale and min j (0..7) of a Q4_K / Q5_K block without a branch on j (same packing as
// k_scale_min in blocks.cl).
inline float2 gv_scale_min(const global uchar* sc, uint j) {
  const uint jl = j & 3;
  const uint s0 = sc[jl], s4 = sc[jl + 4], s8 = sc[jl + 8];
  const uint a = j < 4 ? (s0 & 63) : ((s8 & 15) | ((s0 >> 6) << 4));
  const uint m = j < 4 ? (s4 & 63) : ((s8 >> 4) | ((s4 >> 6) << 4));
  return (float2)((float)a, (float)m);
}

inline float gv_q4_k(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh) {
  const global uchar* b = row + (size_t)(s / 8) * 144;
  const uint j = s % 8;
  const float2 sm = gv_scale_min(b + 4, j);
  const global uchar* qs = b + 16 + 32 * (j / 2);
  const uchar shift = (uchar)((j & 1) * 4);
  const uchar16 q0 = (vload16(0, qs) >> shift) & (uchar)15;
  const uchar16 q1 = (vload16(1, qs) >> shift) & (uchar)15;
  return ld_f16(b) * sm.x * gv_dot(convert_float16(q0), xl, convert_float16(q1), xh) -
         ld_f16(b + 2) * sm.y * (sl + sh);
}

inline float gv_q5_k(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh) {
  const global uchar* b = row + (size_t)(s / 8) * 176;
  const uint j = s % 8;
  const float2 sm = gv_scale_min(b + 4, j);
  const global uchar* qh = b + 16;
  const global uchar* qs = b + 48 + 32 * (j / 2);
  const uchar shift = (uchar)((j & 1) * 4), bit = (uchar)j;
  const uchar16 q0 = ((vload16(0, qs) >> shift) & (uchar)15) | (((vload16(0, qh) >> bit) & (uchar)1) << (uchar)4);
  const uchar16 q1 = ((vload16(1, qs) >> shift) & (uchar)15) | (((vload16(1, qh) >> bit) & (uchar)1) << (uchar)4);
  return ld_f16(b) * sm.x * gv_dot(convert_float16(q0), xl, convert_float16(q1), xh) -
         ld_f16(b + 2) * sm.y * (sl + sh);
}

inline float gv_q6_k(const global uchar* row, uint s, float16 xl, float16 xh, float sl, float sh) {
  const global uchar* b = row + (size_t)(s / 8) * 210;
  const uint j = s % 8, n = j / 4, g = j % 4;
  const float d = ld_f16(b + 208);
  const global char* sc = (const global char*)(b + 192) + 8 * n + 2 * g;
  const global uchar* ql = b + 64 * n + 32 * (g & 1);
  const global uchar* qh = b + 128 + 32 * n;
  const uchar lshift = (uchar)((g >> 1) * 4), hshift = (uchar)(2 * g);
  const uchar16 q0 = ((vload16(0, ql) >> lshift) & (uchar)15) | (((vload16(0, qh) >> hshift) & (uchar)3) << (uchar)4);
  const uchar16 q1 = ((vload16(1, ql) >> lshift) & (uchar)15) | (((vload16(1, qh) >> hshift) & (uchar)3) << (uchar)4);
  const float lo = hsum16(convert_float16(q0) * xl) - 32.0f * sl;
  const float hi = hsum16(convert_float16(q1) * xh) - 32.0f * sh;
  return d * ((float)sc[0] * lo + (float)sc[1] * hi);
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
    const uint nrun = K / 32;                                                                 \
    for (uint s = get_local_id(0); s < nrun; s += GEMV_WG) {                                  \
      const float16 xl = vload16(0, xr + 32 * s), xh = vload16(1, xr + 32 * s);               \
      const float sl = hsum16(xl), sh = hsum16(xh);                                           \
      for (int r = 0; r < GEMV_ROWS; ++r) {                                                   \
        const int n = min(n0 + r, N - 1); /* clamped rows are computed, never stored */       \
        acc[r] += gv_##T(w0 + (size_t)n * w_row_bytes, s, xl, xh, sl, sh);                    \
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
