// GEMM on 8-bit activations for NVIDIA GPUs (prompt): dst[M, N] = x[M, K] . W[N, K]^T (plus a
// residual, or gate and up weights through SwiGLU) for Q4_0 / Q4_1 / Q8_0 weights in the packed
// layout of plugins/common (packed_weight.hpp), M beyond the GEMV's few rows.
//
// Two launches. nv_quantize_rows writes every activation row (through the RMSNorm when asked) as
// 8-bit codes in the CPU backend's Q8Block32 numbers, the same ones nv_gemv.cl makes: d = max|x| /
// 127 per 32 values, codes x / d rounded to nearest even, s = d * sum(codes). Then nv_gemm_<dtype>
// multiplies codes by weight quants block by block.
//
// A work-group of 128 work-items (4 warps) computes a 64 x 64 tile of dst (64 activation rows by
// 64 weight rows), warp w a 32 x 32 quarter of it. The K loop stages NV_GEMM_KB blocks of 32
// values of both operands in local memory; per block a warp computes 2 x 4 integer products of
// 16 x 8 tiles with k = 32, exactly one quant block, and scales each into float accumulators by
// the two operands' block scales at once:
//   Q4_0  d_w (d_x sum(q_w q_x) - 8 s_x)   (weight codes 0..15 stand for q - 8)
//   Q4_1  d_w d_x sum(q_w q_x) + m_w s_x
//   Q8_0  d_w d_x sum(q_w q_x)
// With NV_PTX the integer product is the tensor cores' mma.sync m16n8k32 (s8 x s8 -> s32), in the
// PTX ISA's fragment layout: lane l of the warp, g = l / 4, t = l % 4 holds A rows g and g + 8,
// k = 4t..4t+3 and 16 + 4t..; B column g with the same k; C rows g and g + 8, columns 2t and
// 2t + 1. A 4-bit block's quant word t holds k = 4t..4t+3 in its low nibbles and 16 + 4t.. in its
// high ones: the two B registers a lane needs come out of one local load. Without PTX every
// work-item computes the same four outputs from local memory in plain OpenCL C, which is what runs
// under a spoofed NVIDIA identity elsewhere. Needs reduce.cl in front.

#ifndef NV_GEMM_KB
#define NV_GEMM_KB 4
#endif
#define NV_GEMM_BM 64  // activation rows per tile
#define NV_GEMM_BN 64  // weight rows per tile
#define NV_GEMM_WG 128
#define NV_QWG 256     // nv_quantize_rows' work-group
// Local row strides in 32-bit words: 4 words of padding put the 32 lanes of one fragment load in
// 32 different banks (row g at bank 4g mod 32 for strides of 36, at 20g mod 32 for 20).
#define NV_XS_STRIDE (NV_GEMM_KB * 8 + 4)

#if defined(NV_PTX) && NV_PTX
inline int4 nv_mma_s8(uint4 a, uint b0, uint b1) {
  int c0, c1, c2, c3;
  const int z = 0;
  __asm__ volatile(
      "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%10,%11,%12,%13};"
      : "=r"(c0), "=r"(c1), "=r"(c2), "=r"(c3)
      : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b0), "r"(b1), "r"(z), "r"(z), "r"(z), "r"(z));
  return (int4)(c0, c1, c2, c3);
}
#endif

inline int nv_gemm_dp4a(uint a, uint b, int c) {
  const char4 x = as_char4(a), y = as_char4(b);
  return c + (int)x.x * y.x + (int)x.y * y.y + (int)x.z * y.z + (int)x.w * y.w;
}

// The integer dot product of one block: activation codes (8 words, k order) with weight quants
// (4 words of nibbles, or 8 words of bytes).
inline int nv_gemm_block_dot_q4(local const uint* xw, local const uint* ww) {
  int s = 0;
  for (int w = 0; w < 4; ++w) {
    s = nv_gemm_dp4a(ww[w] & 0x0F0F0F0Fu, xw[w], s);
    s = nv_gemm_dp4a((ww[w] >> 4) & 0x0F0F0F0Fu, xw[4 + w], s);
  }
  return s;
}

inline int nv_gemm_block_dot_q8(local const uint* xw, local const uint* ww) {
  int s = 0;
  for (int w = 0; w < 8; ++w) s = nv_gemm_dp4a(ww[w], xw[w], s);
  return s;
}

// Step 1: one work-group per activation row m. Codes of block b at bytes 32 b .. 32 b + 31 of the
// row (k order), (d, s) at xds[m * nb + b].
kernel __attribute__((reqd_work_group_size(NV_QWG, 1, 1))) void nv_quantize_rows(
    const global uchar* x, ulong x_off, const global uchar* g, ulong g_off, int norm, float eps, int K,
    global uint4* xq, global float2* xds) {
  local float red[NV_QWG];
  const int m = get_group_id(0), lid = get_local_id(0), nb = K / 32;
  const global float* xr = (const global float*)(x + x_off) + (size_t)m * K;
  const global float* gr = (const global float*)(g + g_off);
  float scale = 1.0f;
  if (norm) {
    float ss = 0.0f;
    for (int i = lid; i < K / 4; i += NV_QWG) {
      const float4 v = vload4(i, xr);
      ss += dot(v, v);
    }
    scale = 1.0f / sqrt(wg_reduce_sum(ss, red, NV_QWG) / (float)K + eps);
  }
  for (int b = lid; b < nb; b += NV_QWG) {
    float4 v[8];
    float amax = 0.0f;
    for (int j = 0; j < 8; ++j) {
      v[j] = norm ? vload4(8 * b + j, xr) * scale * vload4(8 * b + j, gr) : vload4(8 * b + j, xr);
      amax = fmax(amax, fmax(fmax(fabs(v[j].x), fabs(v[j].y)), fmax(fabs(v[j].z), fabs(v[j].w))));
    }
    const float d = amax / 127.0f, inv = d != 0.0f ? 1.0f / d : 0.0f;
    uint words[8];
    int sum = 0;
    for (int j = 0; j < 8; ++j) {
      const int4 q = convert_int4_rte(v[j] * inv);
      sum += q.x + q.y + q.z + q.w;
      words[j] = as_uint(convert_char4(q));
    }
    const size_t at = (size_t)m * nb + b;
    xq[2 * at] = (uint4)(words[0], words[1], words[2], words[3]);
    xq[2 * at + 1] = (uint4)(words[4], words[5], words[6], words[7]);
    xds[at] = (float2)(d, d * (float)sum);
  }
}

// Stages blocks kb0 .. kb0 + nblk - 1 of the tile's activation rows (rows past M repeat row M - 1;
// their outputs are never stored).
inline void nv_gemm_stage_x(const global uint4* xq, const global float2* xds, int m0, int M, int nb, int kb0,
                            int nblk, local uint* xs, local float2* xs_ds) {
  const int lid = get_local_id(0);
  for (int e = lid; e < NV_GEMM_BM * NV_GEMM_KB * 2; e += NV_GEMM_WG) {
    const int r = e / (NV_GEMM_KB * 2), j = (e / 2) % NV_GEMM_KB, part = e % 2;
    if (j < nblk) {
      const size_t at = (size_t)min(m0 + r, M - 1) * nb + kb0 + j;
      *(local uint4*)(xs + r * NV_XS_STRIDE + j * 8 + part * 4) = xq[2 * at + part];
    }
  }
  for (int e = lid; e < NV_GEMM_BM * NV_GEMM_KB; e += NV_GEMM_WG) {
    const int r = e / NV_GEMM_KB, j = e % NV_GEMM_KB;
    if (j < nblk) xs_ds[e] = xds[(size_t)min(m0 + r, M - 1) * nb + kb0 + j];
  }
}

// Stages the same blocks of the tile's weight rows: WORDS quant words per block (4 for the
// 4-bit formats, 8 for Q8_0) and (d, m) per block (m = 0 where the format has none).
#define NV_WS_STRIDE(WORDS) (NV_GEMM_KB * (WORDS) + 4)
inline void nv_gemm_stage_w(const global uint4* wq, const global ushort* wsc, int dtype_words, int has_min,
                            int n0, int N, int nb, int kb0, int nblk, local uint* ws, local float2* ws_dm) {
  const int lid = get_local_id(0), parts = dtype_words / 4, stride = NV_GEMM_KB * dtype_words + 4;
  for (int e = lid; e < NV_GEMM_BN * NV_GEMM_KB * parts; e += NV_GEMM_WG) {
    const int r = e / (NV_GEMM_KB * parts), j = (e / parts) % NV_GEMM_KB, part = e % parts;
    if (j < nblk) {
      const size_t at = (size_t)min(n0 + r, N - 1) * nb + kb0 + j;
      *(local uint4*)(ws + r * stride + j * dtype_words + part * 4) = wq[parts * at + part];
    }
  }
  for (int e = lid; e < NV_GEMM_BN * NV_GEMM_KB; e += NV_GEMM_WG) {
    const int r = e / NV_GEMM_KB, j = e % NV_GEMM_KB;
    if (j < nblk) {
      const size_t at = (size_t)min(n0 + r, N - 1) * nb + kb0 + j;
      const global half* h = (const global half*)wsc;
      ws_dm[e] = has_min ? (float2)(vload_half(2 * at, h), vload_half(2 * at + 1, h)) : (float2)(vload_half(at, h), 0.0f);
    }
  }
}

// The integer products of block blk for one 16 x 8 tile: C[g][2t], C[g][2t + 1], C[g + 8][2t],
// C[g + 8][2t + 1] of activation rows xr0.. and weight rows wr0.. (tile-local).
inline int4 nv_gemm_tile(local const uint* xs, local const uint* ws, int words, int blk, int xr0, int wr0, int g,
                         int t) {
  const int ws_stride = NV_GEMM_KB * words + 4;
#if defined(NV_PTX) && NV_PTX
  local const uint* xa = xs + (xr0 + g) * NV_XS_STRIDE + blk * 8 + t;
  const uint4 a = (uint4)(xa[0], xa[8 * NV_XS_STRIDE], xa[4], xa[8 * NV_XS_STRIDE + 4]);
  local const uint* wb = ws + (wr0 + g) * ws_stride + blk * words + t;
  if (words == 4) return nv_mma_s8(a, wb[0] & 0x0F0F0F0Fu, (wb[0] >> 4) & 0x0F0F0F0Fu);
  return nv_mma_s8(a, wb[0], wb[4]);
#else
  local const uint* x0 = xs + (xr0 + g) * NV_XS_STRIDE + blk * 8;
  local const uint* x1 = x0 + 8 * NV_XS_STRIDE;
  local const uint* w0 = ws + (wr0 + 2 * t) * ws_stride + blk * words;
  local const uint* w1 = w0 + ws_stride;
  if (words == 4)
    return (int4)(nv_gemm_block_dot_q4(x0, w0), nv_gemm_block_dot_q4(x0, w1), nv_gemm_block_dot_q4(x1, w0),
                  nv_gemm_block_dot_q4(x1, w1));
  return (int4)(nv_gemm_block_dot_q8(x0, w0), nv_gemm_block_dot_q8(x0, w1), nv_gemm_block_dot_q8(x1, w0),
                nv_gemm_block_dot_q8(x1, w1));
#endif
}

// Output (activation row, weight row) of one integer block product, scaled: x = (d_x, s_x),
// w = (d_w, m_w).
inline float nv_gemm_scale(int dtype_id, int c, float2 x, float2 w) {
  if (dtype_id == 0) return w.x * (x.x * (float)c - 8.0f * x.y);
  if (dtype_id == 1) return w.x * x.x * (float)c + w.y * x.y;
  return w.x * x.x * (float)c;
}

// Accumulates block blk of the staged operands into acc (2 x 4 tiles of 4 outputs).
inline void nv_gemm_block(local const uint* xs, local const float2* xs_ds, local const uint* ws,
                          local const float2* ws_dm, int dtype_id, int words, int blk, int wm, int wn, int g,
                          int t, float acc[2][4][4]) {
  float2 xd[2][2];
  for (int i = 0; i < 2; ++i) {
    xd[i][0] = xs_ds[(wm + 16 * i + g) * NV_GEMM_KB + blk];
    xd[i][1] = xs_ds[(wm + 16 * i + g + 8) * NV_GEMM_KB + blk];
  }
  for (int j = 0; j < 4; ++j) {
    const float2 w0 = ws_dm[(wn + 8 * j + 2 * t) * NV_GEMM_KB + blk];
    const float2 w1 = ws_dm[(wn + 8 * j + 2 * t + 1) * NV_GEMM_KB + blk];
    for (int i = 0; i < 2; ++i) {
      const int4 c = nv_gemm_tile(xs, ws, words, blk, wm + 16 * i, wn + 8 * j, g, t);
      acc[i][j][0] += nv_gemm_scale(dtype_id, c.x, xd[i][0], w0);
      acc[i][j][1] += nv_gemm_scale(dtype_id, c.y, xd[i][0], w1);
      acc[i][j][2] += nv_gemm_scale(dtype_id, c.z, xd[i][1], w0);
      acc[i][j][3] += nv_gemm_scale(dtype_id, c.w, xd[i][1], w1);
    }
  }
}

// The K loop of one operand pair: acc += x rows m0.. times weight rows n0.. over every block.
inline void nv_gemm_accumulate(const global uint4* xq, const global float2* xds, const global uint4* wq,
                               const global ushort* wsc, int dtype_id, int words, int m0, int n0, int M, int N,
                               int K, local uint* xs, local float2* xs_ds, local uint* ws, local float2* ws_dm,
                               float acc[2][4][4]) {
  const int lid = get_local_id(0), lane = lid % 32, warp = lid / 32, g = lane / 4, t = lane % 4;
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32, nb = K / 32;
  for (int kb0 = 0; kb0 < nb; kb0 += NV_GEMM_KB) {
    const int nblk = min(NV_GEMM_KB, nb - kb0);
    nv_gemm_stage_x(xq, xds, m0, M, nb, kb0, nblk, xs, xs_ds);
    nv_gemm_stage_w(wq, wsc, words, dtype_id == 1, n0, N, nb, kb0, nblk, ws, ws_dm);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int blk = 0; blk < nblk; ++blk) nv_gemm_block(xs, xs_ds, ws, ws_dm, dtype_id, words, blk, wm, wn, g, t, acc);
    barrier(CLK_LOCAL_MEM_FENCE);  // the next stage overwrites the tiles
  }
}

// The (activation row, weight row) of accumulator [i][j][e] in dst, tile-local.
#define NV_GEMM_ROW(i, e) (wm + 16 * (i) + g + ((e) >= 2 ? 8 : 0))
#define NV_GEMM_COL(j, e) (wn + 8 * (j) + 2 * t + ((e) & 1))

// The tiles are declared as uint4 so that the staging's 16-byte stores are aligned (a uint array
// is only 4-byte aligned, and NVIDIA GPUs fault on a misaligned vector store).
#define NV_GEMM_LOCALS(WORDS)                                          \
  local uint4 xs4[NV_GEMM_BM * NV_XS_STRIDE / 4];                      \
  local float2 xs_ds[NV_GEMM_BM * NV_GEMM_KB];                         \
  local uint4 ws4[NV_GEMM_BN * NV_WS_STRIDE(WORDS) / 4];               \
  local float2 ws_dm[NV_GEMM_BN * NV_GEMM_KB];                         \
  local uint* xs = (local uint*)xs4;                                   \
  local uint* ws = (local uint*)ws4;                                   \
  const int lid = get_local_id(0), lane = lid % 32, warp = lid / 32;   \
  const int g = lane / 4, t = lane % 4, wm = (warp / 2) * 32, wn = (warp % 2) * 32; \
  const int n0 = get_group_id(0) * NV_GEMM_BN, m0 = get_group_id(1) * NV_GEMM_BM

// MUL_MAT, and MUL_MAT_ADD with has_res (dst = product + res; res may be dst: each output is read
// and written by the same work-item). Global size (ceil(N / 64) * 128, ceil(M / 64)).
#define NV_GEMM_KERNEL(NAME, DTYPE_ID, WORDS)                                                       \
  kernel __attribute__((reqd_work_group_size(NV_GEMM_WG, 1, 1))) void NAME(                        \
      const global uint4* wq, const global ushort* wsc, const global uint4* xq, const global float2* xds, \
      const global uchar* res, ulong res_off, int has_res, global uchar* dst, ulong dst_off, int M, int N, \
      int K) {                                                                                      \
    NV_GEMM_LOCALS(WORDS);                                                                          \
    float acc[2][4][4];                                                                             \
    for (int i = 0; i < 2; ++i)                                                                     \
      for (int j = 0; j < 4; ++j)                                                                   \
        for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;                                            \
    nv_gemm_accumulate(xq, xds, wq, wsc, DTYPE_ID, WORDS, m0, n0, M, N, K, xs, xs_ds, ws, ws_dm, acc); \
    global float* out = (global float*)(dst + dst_off);                                            \
    const global float* r = (const global float*)(res + res_off);                                  \
    for (int i = 0; i < 2; ++i)                                                                     \
      for (int j = 0; j < 4; ++j)                                                                   \
        for (int e = 0; e < 4; ++e) {                                                               \
          const int m = m0 + NV_GEMM_ROW(i, e), n = n0 + NV_GEMM_COL(j, e);                         \
          if (m < M && n < N) {                                                                     \
            const size_t at = (size_t)m * N + n;                                                    \
            out[at] = has_res ? acc[i][j][e] + r[at] : acc[i][j][e];                                \
          }                                                                                         \
        }                                                                                           \
  }

NV_GEMM_KERNEL(nv_gemm_q4_0, 0, 4)
NV_GEMM_KERNEL(nv_gemm_q4_1, 1, 4)
NV_GEMM_KERNEL(nv_gemm_q8_0, 2, 8)

// RMS_NORM_MUL_MAT_SWIGLU's product: dst = silu(gate . n) * (up . n) on the quantized normed rows,
// gate and up of one dtype, one tile of each per work-group.
#define NV_GEMM_SWIGLU_KERNEL(NAME, DTYPE_ID, WORDS)                                                \
  kernel __attribute__((reqd_work_group_size(NV_GEMM_WG, 1, 1))) void NAME(                        \
      const global uint4* gq, const global ushort* gsc, const global uint4* uq, const global ushort* usc, \
      const global uint4* xq, const global float2* xds, global uchar* dst, ulong dst_off, int M, int N, int K) { \
    NV_GEMM_LOCALS(WORDS);                                                                          \
    float gate[2][4][4], up[2][4][4];                                                               \
    for (int i = 0; i < 2; ++i)                                                                     \
      for (int j = 0; j < 4; ++j)                                                                   \
        for (int e = 0; e < 4; ++e) gate[i][j][e] = up[i][j][e] = 0.0f;                             \
    nv_gemm_accumulate(xq, xds, gq, gsc, DTYPE_ID, WORDS, m0, n0, M, N, K, xs, xs_ds, ws, ws_dm, gate); \
    nv_gemm_accumulate(xq, xds, uq, usc, DTYPE_ID, WORDS, m0, n0, M, N, K, xs, xs_ds, ws, ws_dm, up); \
    global float* out = (global float*)(dst + dst_off);                                            \
    for (int i = 0; i < 2; ++i)                                                                     \
      for (int j = 0; j < 4; ++j)                                                                   \
        for (int e = 0; e < 4; ++e) {                                                               \
          const int m = m0 + NV_GEMM_ROW(i, e), n = n0 + NV_GEMM_COL(j, e);                         \
          const float a = gate[i][j][e];                                                            \
          if (m < M && n < N) out[(size_t)m * N + n] = a / (1.0f + exp(-a)) * up[i][j][e];          \
        }                                                                                           \
  }

NV_GEMM_SWIGLU_KERNEL(nv_gemm_swiglu_q4_0, 0, 4)
NV_GEMM_SWIGLU_KERNEL(nv_gemm_swiglu_q4_1, 1, 4)
NV_GEMM_SWIGLU_KERNEL(nv_gemm_swiglu_q8_0, 2, 8)
