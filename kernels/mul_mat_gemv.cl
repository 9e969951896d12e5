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

#define CLPORT_GEMV_Q(T)                                                                      \
  kernel __attribute__((reqd_work_group_size(GEMV_WG, 1, 1))) void mul_mat_gemv_##T(        \
      CLPORT_GEMV_ARGS) {                                                                     \
    local float red[GEMV_ROWS * GEMV_WG];                                                     \
    const int n0 = get_group_id(0) * GEMV_ROWS, m = get_global_id(1);                        \
    const global float* xr = CLPORT_AT(const global float*, x, x_off) + (size_t)m * K;       \
    float acc[GEMV_ROWS];                                                                     \
    for (int r = 0; r < GEMV_ROWS; ++r) acc[r] = 0.0f;                                        \
    const uint nrun = K / 32;                                                                 \
    for (uint s = get_local_id(0); s < nrun; s += GEMV_WG) {                                  \
      for (int r = 0; r < GEMV_ROWS; ++r) {                                                   \
        const int n = min(n0 + r, N - 1); /* clamped rows are computed, never stored */       \
        acc[r] += dot32_##T(w + w_off + (size_t)n * w_row_bytes, s, xr + 32 * s);              \
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
