// Matrix-matrix product (prefill path): dst[N, M] = x[K, M] . W[K, N]^T.
// Needs blocks.cl in front. A work-group computes a GEMM_TN x GEMM_TM tile of dst (GEMM_TN
// weight rows n, GEMM_TM activation rows m); each work-item a GEMM_RN x GEMM_RM micro-tile,
// strided by the work-group width so that neighbouring work-items write neighbouring n.
// Work-group size: (GEMM_TN / GEMM_RN, GEMM_TM / GEMM_RM); global size:
// (ceil(N / GEMM_TN) * wg.x, ceil(M / GEMM_TM) * wg.y). Edges are zero-padded.
//
// K advances GEMM_TK = 32 at a time (one quantized run per weight row). Both tiles sit in local
// memory; on GPUs k-major (tile[k][n], padded to an odd row length) so that the inner loop reads
// consecutive words across work-items (no bank conflicts) and one value per row for the
// broadcast operand; on CPUs row-major (see GEMM_KMAJOR). The next K step is fetched from global memory into registers while the
// current one is multiplied (software double buffering): the loads' latency hides behind the
// FMAs instead of stalling every work-item at the barrier. Activations and F32 weights are
// fetched as float4 when the rows are 16-byte aligned (checked once per launch).
//
// CLPORT_NO_PRIVATE_VECTOR_ARRAYS (a driver quirk: private arrays of vectors such as float4 a[4]
// are partly not written on some mobile GPUs): no double buffering, each K step is staged
// straight from global into local memory through one named vector at a time, so the kernels
// declare no private array of vectors. The tiles hold the same values and the inner loop is the
// same, so the results are identical.

#ifndef GEMM_TN
#define GEMM_TN 32
#endif
#ifndef GEMM_TM
#define GEMM_TM 32
#endif
#ifndef GEMM_RN
#define GEMM_RN 4
#endif
#ifndef GEMM_RM
#define GEMM_RM 4
#endif

#define GEMM_WGX (GEMM_TN / GEMM_RN)
#define GEMM_WGY (GEMM_TM / GEMM_RM)
#define GEMM_NT (GEMM_WGX * GEMM_WGY)
#define GEMM_TK 32
// Local tile layout. GEMM_KMAJOR 1 (GPUs): tile[k][n], rows padded to TN + 1, so the inner
// loop's reads are consecutive across work-items. 0 (CPUs, PoCL): tile[n][k], rows padded to
// TK + 1, which PoCL runs 1.9x faster (12.8 vs 6.8 GFLOP/s, 2 cores, K=2048 N=8192 M=64).
// GEMM_LDW / GEMM_LDX: padded row lengths. GEMM_WT(kk, r) / GEMM_XT(kk, c): the inner loop's
// operands. The k-major index is written base + tx + r * WGX on purpose: NVIDIA's compiler
// turns that into one base address with immediate offsets, and (kk * ld) + (tx + r * WGX)
// into per-r address arithmetic that made the F32 GEMM 1.5-2x slower on an H200.
#ifndef GEMM_KMAJOR
#define GEMM_KMAJOR 1
#endif
#if GEMM_KMAJOR
#define GEMM_LDW (GEMM_TN + 1)
#define GEMM_LDX (GEMM_TM + 1)
#define GEMM_AT(t, ld, row, k) t[(k) * (ld) + (row)]
#define GEMM_WT(kk, r) wt[(kk) * GEMM_LDW + tx + (r) * GEMM_WGX]
#define GEMM_XT(kk, c) xt[(kk) * GEMM_LDX + ty + (c) * GEMM_WGY]
#else
#define GEMM_LDW (GEMM_TK + 1)
#define GEMM_LDX (GEMM_TK + 1)
#define GEMM_AT(t, ld, row, k) t[(row) * (ld) + (k)]
#define GEMM_WT(kk, r) wt[(tx + (r) * GEMM_WGX) * GEMM_LDW + (kk)]
#define GEMM_XT(kk, c) xt[(ty + (c) * GEMM_WGY) * GEMM_LDX + (kk)]
#endif
// Both layouts hold GEMM_TK x rows values plus one padding column.
#define GEMM_W_SIZE (GEMM_KMAJOR ? GEMM_TK * GEMM_LDW : GEMM_TN * GEMM_LDW)
#define GEMM_X_SIZE (GEMM_KMAJOR ? GEMM_TK * GEMM_LDX : GEMM_TM * GEMM_LDX)
// float4 fetches per work-item for a TM x TK (x) or TN x TK (plain W) tile.
#define GEMM_XV ((GEMM_TM * GEMM_TK / 4 + GEMM_NT - 1) / GEMM_NT)
#define GEMM_WV ((GEMM_TN * GEMM_TK / 4 + GEMM_NT - 1) / GEMM_NT)
// Quantized W: one 32-element run per weight row, (GEMM_TN + NT - 1) / NT runs per work-item.
#define GEMM_QV ((GEMM_TN + GEMM_NT - 1) / GEMM_NT)

#define CLPORT_GEMM_ARGS                                                                       \
  const global uchar *w, ulong w_off, ulong w_row_bytes, const global uchar *x, ulong x_off,  \
      global uchar *dst, ulong dst_off, int K, int N, int M

// Four floats of row `row` (K floats long) from column k, zeros past K. `aligned`: the row
// start is 16-byte aligned and K % 4 == 0, so one vector load is legal.
inline float4 gemm_fetch4(const global float* row, int k, int K, bool aligned) {
  if (aligned && k < K) return *(const global float4*)(row + k);
  float4 v = (float4)(0.0f);
  if (k < K) v.x = row[k];
  if (k + 1 < K) v.y = row[k + 1];
  if (k + 2 < K) v.z = row[k + 2];
  if (k + 3 < K) v.w = row[k + 3];
  return v;
}

// Four consecutive k of tile row `row` into a local tile of padded row length ld.
inline void gemm_put4(local float* t, int ld, int row, int k, float4 v) {
  GEMM_AT(t, ld, row, k + 0) = v.x;
  GEMM_AT(t, ld, row, k + 1) = v.y;
  GEMM_AT(t, ld, row, k + 2) = v.z;
  GEMM_AT(t, ld, row, k + 3) = v.w;
}

inline void gemm_put16(local float* t, int ld, int row, int k, float16 v) {
  gemm_put4(t, ld, row, k, v.s0123);
  gemm_put4(t, ld, row, k + 4, v.s4567);
  gemm_put4(t, ld, row, k + 8, (float4)(v.s8, v.s9, v.sa, v.sb));  // not v.s89ab: see hsum16
  gemm_put4(t, ld, row, k + 12, v.scdef);
}

#ifndef CLPORT_NO_PRIVATE_VECTOR_ARRAYS
// x rows m0.. (GEMM_TM of them), columns k0..k0+31, as float4 per work-item.
inline void gemm_fetch_x(float4* r, const global float* xg, int m0, int k0, int K, int M, int tid,
                         bool aligned) {
  for (int i = 0; i < GEMM_XV; ++i) {
    const int e = tid + i * GEMM_NT, mm = e / (GEMM_TK / 4), kq = e % (GEMM_TK / 4);
    r[i] = (e < GEMM_TM * GEMM_TK / 4 && m0 + mm < M)
               ? gemm_fetch4(xg + (size_t)(m0 + mm) * K, k0 + 4 * kq, K, aligned) : (float4)(0.0f);
  }
}

inline void gemm_store_x(local float* xt, const float4* r, int tid) {
  for (int i = 0; i < GEMM_XV; ++i) {
    const int e = tid + i * GEMM_NT;
    if (e < GEMM_TM * GEMM_TK / 4) gemm_put4(xt, GEMM_LDX, e / (GEMM_TK / 4), 4 * (e % (GEMM_TK / 4)), r[i]);
  }
}
#else
// The same x tile as gemm_fetch_x + gemm_store_x, straight into local memory.
inline void gemm_stage_x(local float* xt, const global float* xg, int m0, int k0, int K, int M, int tid,
                         bool aligned) {
  for (int i = 0; i < GEMM_XV; ++i) {
    const int e = tid + i * GEMM_NT, mm = e / (GEMM_TK / 4), kq = e % (GEMM_TK / 4);
    if (e < GEMM_TM * GEMM_TK / 4)
      gemm_put4(xt, GEMM_LDX, mm, 4 * kq,
                m0 + mm < M ? gemm_fetch4(xg + (size_t)(m0 + mm) * K, k0 + 4 * kq, K, aligned) : (float4)(0.0f));
  }
}
#endif

// The shared inner loop and store, after wt / xt are staged.
#define CLPORT_GEMM_MAC()                                                                     \
  for (int kk = 0; kk < GEMM_TK; ++kk) {                                                      \
    float a[GEMM_RN], b[GEMM_RM];                                                             \
    for (int r = 0; r < GEMM_RN; ++r) a[r] = GEMM_WT(kk, r);                                  \
    for (int c = 0; c < GEMM_RM; ++c) b[c] = GEMM_XT(kk, c);                                  \
    for (int r = 0; r < GEMM_RN; ++r)                                                         \
      for (int c = 0; c < GEMM_RM; ++c) acc[r][c] = fma(a[r], b[c], acc[r][c]);              \
  }

// The K loop: FETCH_W(k0) fetches the weight tile of step k0, STORE_W() writes it into wt;
// passed by name because OpenCL C 1.2 has no variadic macros (NVIDIA rejects them).
#ifndef CLPORT_NO_PRIVATE_VECTOR_ARRAYS
// Double buffered: FETCH_W fills registers, STORE_W writes them into wt at the next step.
#define CLPORT_GEMM_XREGS float4 xr[GEMM_XV];
#define CLPORT_GEMM_K_LOOP(FETCH_W, STORE_W)                                                  \
  FETCH_W(0)                                                                                  \
  gemm_fetch_x(xr, xg, m0, 0, K, M, tid, x_aligned);                                          \
  for (int k0 = 0; k0 < K; k0 += GEMM_TK) {                                                   \
    STORE_W()                                                                                 \
    gemm_store_x(xt, xr, tid);                                                                \
    barrier(CLK_LOCAL_MEM_FENCE);                                                             \
    if (k0 + GEMM_TK < K) {                                                                   \
      FETCH_W(k0 + GEMM_TK)                                                                   \
      gemm_fetch_x(xr, xg, m0, k0 + GEMM_TK, K, M, tid, x_aligned);                           \
    }                                                                                         \
    CLPORT_GEMM_MAC()                                                                         \
    barrier(CLK_LOCAL_MEM_FENCE);                                                             \
  }
#else
// Staged: FETCH_W writes the tile into wt itself (STORE_W is empty), after the previous step's
// multiply is done with it.
#define CLPORT_GEMM_XREGS
#define CLPORT_GEMM_K_LOOP(FETCH_W, STORE_W)                                                  \
  for (int k0 = 0; k0 < K; k0 += GEMM_TK) {                                                   \
    FETCH_W(k0)                                                                               \
    gemm_stage_x(xt, xg, m0, k0, K, M, tid, x_aligned);                                       \
    barrier(CLK_LOCAL_MEM_FENCE);                                                             \
    CLPORT_GEMM_MAC()                                                                         \
    barrier(CLK_LOCAL_MEM_FENCE);                                                             \
  }
#endif

// WREGS declares what the weight fetch needs (its registers when double buffered).
#define CLPORT_GEMM_BODY(WREGS, FETCH_W, STORE_W)                                             \
  local float wt[GEMM_W_SIZE];                                                                \
  local float xt[GEMM_X_SIZE];                                                                \
  const int tx = get_local_id(0), ty = get_local_id(1), tid = ty * GEMM_WGX + tx;             \
  const int n0 = get_group_id(0) * GEMM_TN, m0 = get_group_id(1) * GEMM_TM;                  \
  const global float* xg = CLPORT_AT(const global float*, x, x_off);                         \
  const bool x_aligned = (K % 4) == 0 && ((ulong)xg % 16) == 0;                               \
  float acc[GEMM_RN][GEMM_RM];                                                                \
  for (int r = 0; r < GEMM_RN; ++r)                                                           \
    for (int c = 0; c < GEMM_RM; ++c) acc[r][c] = 0.0f;                                       \
  CLPORT_GEMM_XREGS                                                                           \
  WREGS                                                                                       \
  CLPORT_GEMM_K_LOOP(FETCH_W, STORE_W)                                                        \
  global float* yg = CLPORT_AT(global float*, dst, dst_off);                                 \
  for (int r = 0; r < GEMM_RN; ++r) {                                                         \
    const int n = n0 + tx + r * GEMM_WGX;                                                     \
    for (int c = 0; c < GEMM_RM; ++c) {                                                       \
      const int m = m0 + ty + c * GEMM_WGY;                                                   \
      if (n < N && m < M) yg[(size_t)m * N + n] = acc[r][c];                                  \
    }                                                                                         \
  }

// Quantized: one 32-element run per weight row of the tile (rows past N are zero), decoded
// straight into registers (double buffered) or into wt (staged).
#ifndef CLPORT_NO_PRIVATE_VECTOR_ARRAYS
#define CLPORT_GEMM_QREGS float16 wlo[GEMM_QV], whi[GEMM_QV];
#define CLPORT_GEMM_Q_FETCH(T, K0)                                                            \
  for (int i = 0; i < GEMM_QV; ++i) {                                                         \
    const int nn = tid + i * GEMM_NT;                                                         \
    wlo[i] = whi[i] = (float16)(0.0f);                                                        \
    if (nn < GEMM_TN && n0 + nn < N)                                                          \
      dq32_##T(w + w_off + (size_t)(n0 + nn) * w_row_bytes, (K0) / 32, &wlo[i], &whi[i]);     \
  }
#define CLPORT_GEMM_Q_STORE()                                                                 \
  for (int i = 0; i < GEMM_QV; ++i) {                                                         \
    const int nn = tid + i * GEMM_NT;                                                         \
    if (nn < GEMM_TN) {                                                                       \
      gemm_put16(wt, GEMM_LDW, nn, 0, wlo[i]);                                                \
      gemm_put16(wt, GEMM_LDW, nn, 16, whi[i]);                                               \
    }                                                                                         \
  }
#else
#define CLPORT_GEMM_QREGS
#define CLPORT_GEMM_Q_FETCH(T, K0)                                                            \
  for (int i = 0; i < GEMM_QV; ++i) {                                                         \
    const int nn = tid + i * GEMM_NT;                                                         \
    if (nn < GEMM_TN) {                                                                       \
      float16 lo = (float16)(0.0f), hi = (float16)(0.0f);                                     \
      if (n0 + nn < N) dq32_##T(w + w_off + (size_t)(n0 + nn) * w_row_bytes, (K0) / 32, &lo, &hi); \
      gemm_put16(wt, GEMM_LDW, nn, 0, lo);                                                    \
      gemm_put16(wt, GEMM_LDW, nn, 16, hi);                                                   \
    }                                                                                         \
  }
#define CLPORT_GEMM_Q_STORE()
#endif
#define CLPORT_GEMM_Q(T)                                                                      \
  kernel __attribute__((reqd_work_group_size(GEMM_WGX, GEMM_WGY, 1))) void mul_mat_gemm_##T( \
      CLPORT_GEMM_ARGS) {                                                                     \
    CLPORT_GEMM_BODY(CLPORT_GEMM_QREGS, CLPORT_GEMM_Q_FETCH_##T, CLPORT_GEMM_Q_STORE)         \
  }
// One fetch macro per type (the body takes a one-argument macro).
#define CLPORT_GEMM_Q_FETCH_q4_0(K0) CLPORT_GEMM_Q_FETCH(q4_0, K0)
#define CLPORT_GEMM_Q_FETCH_q4_1(K0) CLPORT_GEMM_Q_FETCH(q4_1, K0)
#define CLPORT_GEMM_Q_FETCH_q5_0(K0) CLPORT_GEMM_Q_FETCH(q5_0, K0)
#define CLPORT_GEMM_Q_FETCH_q5_1(K0) CLPORT_GEMM_Q_FETCH(q5_1, K0)
#define CLPORT_GEMM_Q_FETCH_q8_0(K0) CLPORT_GEMM_Q_FETCH(q8_0, K0)
#define CLPORT_GEMM_Q_FETCH_q4_k(K0) CLPORT_GEMM_Q_FETCH(q4_k, K0)
#define CLPORT_GEMM_Q_FETCH_q5_k(K0) CLPORT_GEMM_Q_FETCH(q5_k, K0)
#define CLPORT_GEMM_Q_FETCH_q6_k(K0) CLPORT_GEMM_Q_FETCH(q6_k, K0)
#define CLPORT_GEMM_Q_FETCH_q2_k(K0) CLPORT_GEMM_Q_FETCH(q2_k, K0)
#define CLPORT_GEMM_Q_FETCH_q3_k(K0) CLPORT_GEMM_Q_FETCH(q3_k, K0)
#define CLPORT_GEMM_Q_FETCH_iq4_nl(K0) CLPORT_GEMM_Q_FETCH(iq4_nl, K0)
CLPORT_FOR_EACH_QUANT(CLPORT_GEMM_Q)

// Plain (F32, F16, BF16) weights: float4 fetches like x. LOAD4(nn, k) is four values of tile
// row nn from column k, zeros past K; rows past N are zero.
#ifndef CLPORT_NO_PRIVATE_VECTOR_ARRAYS
#define CLPORT_GEMM_PLAIN_REGS float4 wr[GEMM_WV];
#define CLPORT_GEMM_PLAIN_FETCH(LOAD4, K0)                                                    \
  for (int i = 0; i < GEMM_WV; ++i) {                                                         \
    const int e = tid + i * GEMM_NT, nn = e / (GEMM_TK / 4), kq = e % (GEMM_TK / 4);         \
    wr[i] = (e < GEMM_TN * GEMM_TK / 4 && n0 + nn < N) ? LOAD4(nn, (K0) + 4 * kq) : (float4)(0.0f); \
  }
#define CLPORT_GEMM_PLAIN_STORE()                                                             \
  for (int i = 0; i < GEMM_WV; ++i) {                                                         \
    const int e = tid + i * GEMM_NT;                                                          \
    if (e < GEMM_TN * GEMM_TK / 4) gemm_put4(wt, GEMM_LDW, e / (GEMM_TK / 4), 4 * (e % (GEMM_TK / 4)), wr[i]); \
  }
#else
#define CLPORT_GEMM_PLAIN_REGS
#define CLPORT_GEMM_PLAIN_FETCH(LOAD4, K0)                                                    \
  for (int i = 0; i < GEMM_WV; ++i) {                                                         \
    const int e = tid + i * GEMM_NT, nn = e / (GEMM_TK / 4), kq = e % (GEMM_TK / 4);         \
    if (e < GEMM_TN * GEMM_TK / 4)                                                            \
      gemm_put4(wt, GEMM_LDW, nn, 4 * kq, n0 + nn < N ? LOAD4(nn, (K0) + 4 * kq) : (float4)(0.0f)); \
  }
#define CLPORT_GEMM_PLAIN_STORE()
#endif

// F32 weights.
#define CLPORT_GEMM_F32_REGS                                                                  \
  CLPORT_GEMM_PLAIN_REGS                                                                      \
  const global float* wg = CLPORT_AT(const global float*, w, w_off);                         \
  const bool w_aligned = (K % 4) == 0 && (w_row_bytes % 16) == 0 && ((ulong)wg % 16) == 0;
#define CLPORT_GEMM_F32_LOAD4(nn, k) \
  gemm_fetch4(CLPORT_AT(const global float*, w, w_off + (size_t)(n0 + (nn)) * w_row_bytes), (k), K, w_aligned)
#define CLPORT_GEMM_F32_FETCH(K0) CLPORT_GEMM_PLAIN_FETCH(CLPORT_GEMM_F32_LOAD4, K0)
#if CLPORT_WANT(f32)
kernel __attribute__((reqd_work_group_size(GEMM_WGX, GEMM_WGY, 1))) void mul_mat_gemm_f32(
    CLPORT_GEMM_ARGS) {
  CLPORT_GEMM_BODY(CLPORT_GEMM_F32_REGS, CLPORT_GEMM_F32_FETCH, CLPORT_GEMM_PLAIN_STORE)
}
#endif

// F16 weights: four halves at a time through vload_half (2-byte alignment is all it needs).
inline float4 gemm_fetch4_f16(const global half* row, int k, int K) {
  if (k + 3 < K) return vload_half4(0, row + k);
  float4 v = (float4)(0.0f);
  if (k < K) v.x = vload_half(k, row);
  if (k + 1 < K) v.y = vload_half(k + 1, row);
  if (k + 2 < K) v.z = vload_half(k + 2, row);
  return v;
}
#define CLPORT_GEMM_F16_LOAD4(nn, k) \
  gemm_fetch4_f16(CLPORT_AT(const global half*, w, w_off + (size_t)(n0 + (nn)) * w_row_bytes), (k), K)
#define CLPORT_GEMM_F16_FETCH(K0) CLPORT_GEMM_PLAIN_FETCH(CLPORT_GEMM_F16_LOAD4, K0)
#if CLPORT_WANT(f16)
kernel __attribute__((reqd_work_group_size(GEMM_WGX, GEMM_WGY, 1))) void mul_mat_gemm_f16(
    CLPORT_GEMM_ARGS) {
  CLPORT_GEMM_BODY(CLPORT_GEMM_PLAIN_REGS, CLPORT_GEMM_F16_FETCH, CLPORT_GEMM_PLAIN_STORE)
}
#endif

// BF16 weights: four values at a time, widened by a shift (as F16, with the tail zero-padded).
inline float4 gemm_fetch4_bf16(const global ushort* row, int k, int K) {
  if (k + 3 < K) return ld_bf16_4(0, row + k);
  float4 v = (float4)(0.0f);
  if (k < K) v.x = ld_bf16(k, row);
  if (k + 1 < K) v.y = ld_bf16(k + 1, row);
  if (k + 2 < K) v.z = ld_bf16(k + 2, row);
  return v;
}
#define CLPORT_GEMM_BF16_LOAD4(nn, k) \
  gemm_fetch4_bf16(CLPORT_AT(const global ushort*, w, w_off + (size_t)(n0 + (nn)) * w_row_bytes), (k), K)
#define CLPORT_GEMM_BF16_FETCH(K0) CLPORT_GEMM_PLAIN_FETCH(CLPORT_GEMM_BF16_LOAD4, K0)
#if CLPORT_WANT(bf16)
kernel __attribute__((reqd_work_group_size(GEMM_WGX, GEMM_WGY, 1))) void mul_mat_gemm_bf16(
    CLPORT_GEMM_ARGS) {
  CLPORT_GEMM_BODY(CLPORT_GEMM_PLAIN_REGS, CLPORT_GEMM_BF16_FETCH, CLPORT_GEMM_PLAIN_STORE)
}
#endif
