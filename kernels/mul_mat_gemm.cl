// Matrix-matrix product (prefill path): dst[N, M] = x[K, M] . W[K, N]^T.
// Needs blocks.cl in front. A work-group computes a GEMM_TN x GEMM_TM tile of dst (GEMM_TN
// weight rows n, GEMM_TM activation rows m); each work-item a GEMM_RN x GEMM_RM micro-tile,
// strided by the work-group width so that neighbouring work-items write neighbouring n.
// K advances 32 at a time: W and x tiles are staged in local memory (quantized weights are
// dequantized once per tile into local memory, one 32-element run per row), padded by one
// column against bank conflicts. Work-group size: (GEMM_TN / GEMM_RN, GEMM_TM / GEMM_RM);
// global size: (ceil(N / GEMM_TN) * wg.x, ceil(M / GEMM_TM) * wg.y). Edges are zero-padded.

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
#define GEMM_LD (GEMM_TK + 1)

#define CLPORT_GEMM_ARGS                                                                       \
  const global uchar *w, ulong w_off, ulong w_row_bytes, const global uchar *x, ulong x_off,  \
      global uchar *dst, ulong dst_off, int K, int N, int M

// Stages x[m0 .. m0 + TM, k0 .. k0 + 32] into xt (zeros outside).
inline void gemm_load_x(local float* xt, const global float* xg, int m0, int k0, int K, int M,
                        int tid) {
  // Unsigned index math: a power-of-two TK turns / and % into shift and mask.
  for (uint i = tid; i < GEMM_TM * GEMM_TK; i += GEMM_NT) {
    const int mm = i / GEMM_TK, kk = i % GEMM_TK;
    const int m = m0 + mm, k = k0 + kk;
    xt[mm * GEMM_LD + kk] = (m < M && k < K) ? xg[(size_t)m * K + k] : 0.0f;
  }
}

// The shared inner loop and store, after wt / xt are staged.
#define CLPORT_GEMM_MAC()                                                                     \
  for (int kk = 0; kk < GEMM_TK; ++kk) {                                                      \
    float a[GEMM_RN], b[GEMM_RM];                                                             \
    for (int r = 0; r < GEMM_RN; ++r) a[r] = wt[(tx + r * GEMM_WGX) * GEMM_LD + kk];          \
    for (int c = 0; c < GEMM_RM; ++c) b[c] = xt[(ty + c * GEMM_WGY) * GEMM_LD + kk];          \
    for (int r = 0; r < GEMM_RN; ++r)                                                         \
      for (int c = 0; c < GEMM_RM; ++c) acc[r][c] = fma(a[r], b[c], acc[r][c]);              \
  }

// LOAD_W(A, B) stages the weight tile; passed by name because OpenCL C 1.2 has no variadic
// macros (NVIDIA's compiler rejects them).
#define CLPORT_GEMM_BODY(LOAD_W, A, B)                                                        \
  local float wt[GEMM_TN * GEMM_LD];                                                          \
  local float xt[GEMM_TM * GEMM_LD];                                                          \
  const int tx = get_local_id(0), ty = get_local_id(1), tid = ty * GEMM_WGX + tx;             \
  const int n0 = get_group_id(0) * GEMM_TN, m0 = get_group_id(1) * GEMM_TM;                  \
  const global float* xg = CLPORT_AT(const global float*, x, x_off);                         \
  float acc[GEMM_RN][GEMM_RM];                                                                \
  for (int r = 0; r < GEMM_RN; ++r)                                                           \
    for (int c = 0; c < GEMM_RM; ++c) acc[r][c] = 0.0f;                                       \
  for (int k0 = 0; k0 < K; k0 += GEMM_TK) {                                                   \
    LOAD_W(A, B)                                                                              \
    gemm_load_x(xt, xg, m0, k0, K, M, tid);                                                   \
    barrier(CLK_LOCAL_MEM_FENCE);                                                             \
    CLPORT_GEMM_MAC()                                                                         \
    barrier(CLK_LOCAL_MEM_FENCE);                                                             \
  }                                                                                           \
  global float* yg = CLPORT_AT(global float*, dst, dst_off);                                 \
  for (int r = 0; r < GEMM_RN; ++r) {                                                         \
    const int n = n0 + tx + r * GEMM_WGX;                                                     \
    for (int c = 0; c < GEMM_RM; ++c) {                                                       \
      const int m = m0 + ty + c * GEMM_WGY;                                                   \
      if (n < N && m < M) yg[(size_t)m * N + n] = acc[r][c];                                  \
    }                                                                                         \
  }

// Quantized: one 32-element run per weight row of the tile (rows past N are zero).
#define CLPORT_GEMM_LOAD_Q(T, UNUSED)                                                         \
  for (int i = tid; i < GEMM_TN; i += GEMM_NT) {                                              \
    float16 lo = (float16)(0.0f), hi = (float16)(0.0f);                                       \
    if (n0 + i < N) dq32_##T(w + w_off + (size_t)(n0 + i) * w_row_bytes, k0 / 32, &lo, &hi);  \
    vstore16(lo, 0, wt + i * GEMM_LD);                                                        \
    vstore16(hi, 0, wt + i * GEMM_LD + 16);                                                   \
  }
#define CLPORT_GEMM_Q(T)                                                                      \
  kernel __attribute__((reqd_work_group_size(GEMM_WGX, GEMM_WGY, 1))) void mul_mat_gemm_##T( \
      CLPORT_GEMM_ARGS) {                                                                     \
    CLPORT_GEMM_BODY(CLPORT_GEMM_LOAD_Q, T, 0)                                                \
  }
CLPORT_FOR_EACH_QUANT(CLPORT_GEMM_Q)

// Plain weights: element by element, zero outside N x K.
#define CLPORT_GEMM_LOAD_PLAIN(WT, LOAD1)                                                     \
  for (uint i = tid; i < GEMM_TN * GEMM_TK; i += GEMM_NT) {                                   \
    const int nn = i / GEMM_TK, kk = i % GEMM_TK;                                             \
    const int n = n0 + nn, k = k0 + kk;                                                       \
    wt[nn * GEMM_LD + kk] = (n < N && k < K)                                                  \
        ? LOAD1(k, CLPORT_AT(const global WT*, w, w_off + (size_t)n * w_row_bytes)) : 0.0f;   \
  }
#define CLPORT_GEMM_PLAIN(NAME, WT, LOAD1)                                                    \
  kernel __attribute__((reqd_work_group_size(GEMM_WGX, GEMM_WGY, 1))) void NAME(            \
      CLPORT_GEMM_ARGS) {                                                                     \
    CLPORT_GEMM_BODY(CLPORT_GEMM_LOAD_PLAIN, WT, LOAD1)                                       \
  }

#define CLPORT_GEMM_LOAD_F32(i, p) ((p)[i])
CLPORT_GEMM_PLAIN(mul_mat_gemm_f32, float, CLPORT_GEMM_LOAD_F32)
CLPORT_GEMM_PLAIN(mul_mat_gemm_f16, half, vload_half)
