// The GEMV of nv_gemv.cl for several activation rows at once (decode of a few sequences):
// dst[N, M] = x[K, M] . W[K, N]^T with M = 2 .. NV_MR per work-group.
//
// nv_gemv.cl gives each activation row work-groups of its own, so M rows read every weight M
// times (from the L2 cache after the first, whose bandwidth is not much above the memory's on a
// big GPU): M = 4 cost three times M = 1. Here a work-group quantizes NV_MR rows into local memory
// and each lane's weight load (one 16-byte word, two for Q8_0) serves every row: the weights are
// read once per group of NV_MR rows. The host picks NV_MR per launch so that its rows fit the
// local memory (a long K takes fewer rows a group); rows past M repeat the last row and are never
// stored. The per-block arithmetic and its order are nv_gemv.cl's, so a row gets the same sums
// whichever kernel computed it.
//
// Built after nv_gemv.cl (its quantization, block decoding and reductions) in the GEMV program;
// the kernels are named nv_gemv_r{NV_MR}_<dtype> (and nv_gemv_swiglu_r..) for NV_MR = 2, 4, 8.
// clport-requires: nv_gemv.cl

// Float4s of the NV_MR rows that one pass of the quantization loads at once.
#define NV_QPASS 4

// Blocks of 32 weights per lane and loop trip of this row walk (the build sets it; nv_gemv.cl's
// NV_BPT when not).
#ifndef NV_RBPT
#define NV_RBPT NV_BPT
#endif

// The most activation rows a group takes (NV_MR).
#define NV_MR_MAX 8

// Step 1 for the group's mr rows (m0 .. m0 + mr - 1; past `rows` the last row again): each
// row's numbers exactly as nv_quantize_row makes them, the same sums in the same order. Quantized
// one after another, the rows kept the group from its first weight load for about three rounds of
// memory latency per row at K = 4096 and eight at 14336; here the loads of all the rows go out
// together: the norms' squares in one sweep, then NV_QPASS of the (row, pass) float4s at a time.
// (mr is each kernel's constant NV_MR, so the loops over rows unroll.)
inline void nv_quantize_rows_mr(const int mr, const global float* x, int rows, int m0, const global float* g,
                                int norm, float eps, int K, local int4* xq, local float2* xds, local float* red,
                                local float* row_scale) {
  const int lid = get_local_id(0), nb = K / 32, n4 = K / 4, passes = (n4 + NV_WG - 1) / NV_WG;
  if (norm) {
    float ss[NV_MR_MAX];
    for (int m = 0; m < mr; ++m) ss[m] = 0.0f;
    for (int i = lid; i < n4; i += NV_WG)
      for (int m = 0; m < mr; ++m) {
        const float4 v = vload4(i, x + (size_t)min(m0 + m, rows - 1) * K);
        ss[m] += dot(v, v);
      }
#if NV_FAST_REDUCE
    // nv_group_sum for every row with one pair of barriers: the same warp sums, added in the same
    // order.
    for (int m = 0; m < mr; ++m) {
      const float w = nv_warp_sum(ss[m]);
      if (lid % 32 == 0) red[m * NV_WARPS + lid / 32] = w;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < mr) {
      float total = 0.0f;
      for (int w = 0; w < NV_WARPS; ++w) total += red[lid * NV_WARPS + w];
      row_scale[lid] = 1.0f / sqrt(total / (float)K + eps);
    }
#else
    for (int m = 0; m < mr; ++m) {
      const float total = nv_group_sum(ss[m], red);
      if (lid == 0) row_scale[m] = 1.0f / sqrt(total / (float)K + eps);
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const int items = mr * passes;
  for (int p0 = 0; p0 < items; p0 += NV_QPASS) {
    float4 v[NV_QPASS];
    for (int u = 0; u < NV_QPASS; ++u) {
      const int p = p0 + u, m = p / passes, i = (p % passes) * NV_WG + lid;
      v[u] = (float4)(0.0f);
      if (p < items && i < n4) {
        const global float* xr = x + (size_t)min(m0 + m, rows - 1) * K;
        v[u] = norm ? vload4(i, xr) * row_scale[m] * vload4(i, g) : vload4(i, xr);
      }
    }
    for (int u = 0; u < NV_QPASS; ++u) {
      const int p = p0 + u, m = p / passes, i = (p % passes) * NV_WG + lid;
      if (p >= items) break;  // the same for the whole group
      nv_quantize_float4(v[u], i, i < n4, nb, (local int*)(xq + 2 * m * nb), xds + m * nb, red, 0, red);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// A block's 32 weight codes as 8 words of 4 signed bytes into lo (elements 0..15, which meet the
// activation codes xa) and hi (16..31, xb). The 4-bit formats' nibbles are taken apart once here
// for every activation row. (Macros: oclgrind cannot run the noalias-scope intrinsic that
// inlining a function returning a struct leaves, and crashes checking a uint8 shuffled from two
// uint4s.)
#define NV_WCODES_q4_0(WQ, i, lo, hi) \
  {                                   \
    const uint4 v_ = (WQ)[i];         \
    lo = NV_LO(v_);                   \
    hi = NV_HI(v_);                   \
  }
#define NV_WCODES_q4_1(WQ, i, lo, hi) NV_WCODES_q4_0(WQ, i, lo, hi)
#define NV_WCODES_q8_0(WQ, i, lo, hi) \
  {                                   \
    lo = (WQ)[2 * (i)];               \
    hi = (WQ)[2 * (i) + 1];           \
  }

// A block's scale (and Q4_1's minimum) as (d, m).
inline float2 nv_wscale_q4_0(const global ushort* ws, size_t i) {
  return (float2)(vload_half(i, (const global half*)ws), 0.0f);
}
inline float2 nv_wscale_q4_1(const global ushort* ws, size_t i) { return vload_half2(i, (const global half*)ws); }
inline float2 nv_wscale_q8_0(const global ushort* ws, size_t i) { return nv_wscale_q4_0(ws, i); }

// The block's contribution from its integer dot product with one activation row, as
// nv_block_q4_0 / q4_1 / q8_0 compute it.
inline float nv_wblock_q4_0(float2 sc, int dot, float2 ds) { return sc.x * (ds.x * (float)dot - 8.0f * ds.y); }
inline float nv_wblock_q4_1(float2 sc, int dot, float2 ds) { return sc.x * ds.x * (float)dot + sc.y * ds.y; }
inline float nv_wblock_q8_0(float2 sc, int dot, float2 ds) { return sc.x * ds.x * (float)dot; }

// The row walk for NV_MR activation rows, row m's codes at xq + m * 2 nb and scales at
// xds + m * nb. ACC(r, m) names the accumulator of weight row r and activation row m; ONE_WEIGHT
// (W, S, ACC) adds one weight's block for every (r, m). Blocks per trip and their clamping as
// NV_GEMV_LOOP's, with NV_RBPT blocks a trip.
#define NV_MR_LOOP(DT, STEP)                                                                    \
  for (int b0 = lane; b0 < nb; b0 += 32 * NV_RBPT) {                                            \
    for (int u = 0; u < NV_RBPT; ++u) {                                                         \
      const int bu = min(b0 + 32 * u, nb - 1);                                                  \
      const bool live = b0 + 32 * u < nb;                                                       \
      for (int r = 0; r < NV_RPW; ++r) {                                                        \
        /* rows past N repeat the last row; their sums are never stored */                      \
        const size_t i = (size_t)min(first + r, N - 1) * nb + bu;                               \
        STEP(DT, r, i, bu, live);                                                               \
      }                                                                                         \
    }                                                                                           \
  }
#define NV_MR_ONE(DT, WQ, WS, ACC, r, i, bu, live)                                              \
  {                                                                                             \
    uint4 lo_, hi_;                                                                             \
    NV_WCODES_##DT(WQ, i, lo_, hi_)                                                             \
    const float2 sc_ = nv_wscale_##DT(WS, i);                                                   \
    for (int m = 0; m < NV_MR; ++m) {                                                           \
      const float2 ds_ = live ? xds[m * nb + bu] : (float2)(0.0f);                              \
      ACC[r][m] += nv_wblock_##DT(sc_, nv_dot_codes(lo_, hi_, xq[2 * m * nb + bu], xq[(2 * m + 1) * nb + bu]), ds_); \
    }                                                                                           \
  }
#define NV_MR_STEP(DT, r, i, bu, live) NV_MR_ONE(DT, wq, ws, acc, r, i, bu, live)
#define NV_MR_SWIGLU_STEP(DT, r, i, bu, live) \
  NV_MR_ONE(DT, gq, gs, acc_g, r, i, bu, live) NV_MR_ONE(DT, uq, us, acc_u, r, i, bu, live)

// The warp's (or, without fast reductions, the work-group's chunk's) sums of row r for
// activation row m, then STORE(n, m, total) for the output rows n < N; `rows` is the launch's M:
// activation rows past it are not stored.
#if NV_FAST_REDUCE
#define NV_MR_WALK(DT, STEP, DECLARE, STORE)                                                    \
  const int lane = get_local_id(0) % 32, nb = K / 32, warps = groups * NV_WARPS;                \
  for (int first = (group * NV_WARPS + get_local_id(0) / 32) * NV_RPW; first < N; first += warps * NV_RPW) { \
    DECLARE                                                                                     \
    NV_MR_LOOP(DT, STEP)                                                                        \
    for (int r = 0; r < NV_RPW; ++r)                                                            \
      for (int m = 0; m < NV_MR; ++m) STORE(first + r, m, nv_warp_sum, r, m)                    \
  }
#define NV_MR_SUM(ACC, SUM, r, m) SUM(ACC[r][m])
#define NV_MR_STORE_IF(n, m, body) \
  if (get_local_id(0) % 32 == 0 && (n) < N && m0 + (m) < rows) body
#else
// Chunks of NV_ROWS rows shared out over the work-groups, as nv_gemv.cl's; the lanes' partial
// sums meet in `red` one activation row at a time.
#define NV_MR_WALK(DT, STEP, DECLARE, STORE)                                                    \
  const int lid = get_local_id(0), lane = lid % 32, nb = K / 32;                                \
  for (int chunk = group; chunk < (N + NV_ROWS - 1) / NV_ROWS; chunk += groups) {              \
    const int first = chunk * NV_ROWS + (lid / 32) * NV_RPW;                                    \
    DECLARE                                                                                     \
    NV_MR_LOOP(DT, STEP)                                                                        \
    for (int m = 0; m < NV_MR; ++m) {                                                           \
      for (int r = 0; r < NV_RPW; ++r) NV_MR_PARK(r, m)                                         \
      barrier(CLK_LOCAL_MEM_FENCE);                                                             \
      if (lid < NV_ROWS) STORE(chunk * NV_ROWS + lid, m, nv_row_total, red, lid)                \
      barrier(CLK_LOCAL_MEM_FENCE); /* red is written again for the next row */                 \
    }                                                                                           \
  }
#define NV_MR_STORE_IF(n, m, body) \
  if ((n) < N && m0 + (m) < rows) body
#endif

#define NV_MR_GEMV_KERNEL(DT)                                                                   \
  kernel __attribute__((reqd_work_group_size(NV_WG, 1, 1))) void NV_MR_NAME(nv_gemv_r, DT)(      \
      const global uint4* wq, const global ushort* ws, const global uchar* x, ulong x_off,      \
      const global uchar* g, ulong g_off, int norm, float eps, const global uchar* res,         \
      ulong res_off, int has_res, global uchar* dst, ulong dst_off, int K, int N, int rows,     \
      local int4* xq, local float2* xds) {                                                      \
    local float red[NV_ROWS * NV_RED_STRIDE];                                                   \
    local float row_scale[NV_MR];                                                               \
    const int m0 = get_group_id(0) * NV_MR, group = get_group_id(1), groups = get_num_groups(1); \
    nv_quantize_rows_mr(NV_MR, (const global float*)(x + x_off), rows, m0, (const global float*)(g + g_off), norm, eps, \
                        K, xq, xds, red, row_scale);                                            \
    const global float* res_f = (const global float*)(res + res_off);                          \
    global float* dst_f = (global float*)(dst + dst_off);                                       \
    NV_MR_WALK(DT, NV_MR_STEP, NV_MR_DECLARE, NV_MR_STORE)                                     \
  }
#define NV_MR_DECLARE                                                                           \
  float acc[NV_RPW][NV_MR];                                                                     \
  for (int r = 0; r < NV_RPW; ++r)                                                              \
    for (int m = 0; m < NV_MR; ++m) acc[r][m] = 0.0f;
#define NV_MR_PARK(r, m) red[((lid / 32) * NV_RPW + r) * NV_RED_STRIDE + lane] = acc[r][m];
#if NV_FAST_REDUCE
#define NV_MR_STORE(n, m, SUM, r, mm)                                                           \
  {                                                                                             \
    float total = SUM(acc[r][mm]);                                                              \
    NV_MR_STORE_IF(n, m, {                                                                      \
      const size_t o = (size_t)(m0 + (m)) * N + (n);                                            \
      dst_f[o] = has_res ? total + res_f[o] : total;                                            \
    })                                                                                          \
  }
#else
#define NV_MR_STORE(n, m, SUM, red_, slot)                                                      \
  NV_MR_STORE_IF(n, m, {                                                                        \
    const float total = SUM(red_, slot);                                                        \
    const size_t o = (size_t)(m0 + (m)) * N + (n);                                              \
    dst_f[o] = has_res ? total + res_f[o] : total;                                              \
  })
#endif

#define NV_MR_SWIGLU_KERNEL(DT)                                                                 \
  kernel __attribute__((reqd_work_group_size(NV_WG, 1, 1))) void NV_MR_NAME(nv_gemv_swiglu_r, DT)( \
      const global uint4* gq, const global ushort* gs, const global uint4* uq, const global ushort* us, \
      const global uchar* x, ulong x_off, const global uchar* g, ulong g_off, float eps,        \
      global uchar* dst, ulong dst_off, int K, int N, int rows, local int4* xq, local float2* xds) { \
    local float red[2 * NV_ROWS * NV_RED_STRIDE];                                               \
    local float row_scale[NV_MR];                                                               \
    const int m0 = get_group_id(0) * NV_MR, group = get_group_id(1), groups = get_num_groups(1); \
    nv_quantize_rows_mr(NV_MR, (const global float*)(x + x_off), rows, m0, (const global float*)(g + g_off), 1, eps, K, \
                        xq, xds, red, row_scale);                                               \
    global float* dst_f = (global float*)(dst + dst_off);                                       \
    NV_MR_WALK(DT, NV_MR_SWIGLU_STEP, NV_MR_SWIGLU_DECLARE, NV_MR_SWIGLU_STORE)                \
  }
#define NV_MR_SWIGLU_DECLARE                                                                    \
  float acc_g[NV_RPW][NV_MR], acc_u[NV_RPW][NV_MR];                                             \
  for (int r = 0; r < NV_RPW; ++r)                                                              \
    for (int m = 0; m < NV_MR; ++m) acc_g[r][m] = acc_u[r][m] = 0.0f;
#if NV_FAST_REDUCE
#define NV_MR_SWIGLU_STORE(n, m, SUM, r, mm)                                                    \
  {                                                                                             \
    const float gate = SUM(acc_g[r][mm]);                                                       \
    const float up = SUM(acc_u[r][mm]);                                                         \
    NV_MR_STORE_IF(n, m, { dst_f[(size_t)(m0 + (m)) * N + (n)] = gate / (1.0f + exp(-gate)) * up; }) \
  }
#else
#define NV_MR_SWIGLU_PARK(r, m)                                                                 \
  {                                                                                             \
    red[((lid / 32) * NV_RPW + r) * NV_RED_STRIDE + lane] = acc_g[r][m];                        \
    red[(NV_ROWS + (lid / 32) * NV_RPW + r) * NV_RED_STRIDE + lane] = acc_u[r][m];              \
  }
#define NV_MR_SWIGLU_STORE(n, m, SUM, red_, slot)                                               \
  NV_MR_STORE_IF(n, m, {                                                                        \
    const float gate = SUM(red_, slot);                                                         \
    const float up = SUM(red_, NV_ROWS + (slot));                                               \
    dst_f[(size_t)(m0 + (m)) * N + (n)] = gate / (1.0f + exp(-gate)) * up;                      \
  })
#endif

#define NV_MR_NAME_(PREFIX, MR, DT) PREFIX##MR##_##DT
#define NV_MR_NAME__(PREFIX, MR, DT) NV_MR_NAME_(PREFIX, MR, DT)
#define NV_MR_NAME(PREFIX, DT) NV_MR_NAME__(PREFIX, NV_MR, DT)

// The kernels for NV_MR = 2, 4 and 8 activation rows a group (the SwiGLU form parks its two sums
// where the plain form parks one).
#define NV_MR_KERNELS                        \
  NV_MR_GEMV_KERNEL(q4_0)                    \
  NV_MR_GEMV_KERNEL(q4_1)                    \
  NV_MR_GEMV_KERNEL(q8_0)
#define NV_MR_SWIGLU_KERNELS                 \
  NV_MR_SWIGLU_KERNEL(q4_0)                  \
  NV_MR_SWIGLU_KERNEL(q4_1)                  \
  NV_MR_SWIGLU_KERNEL(q8_0)

#define NV_MR 2
NV_MR_KERNELS
#undef NV_MR
#define NV_MR 4
NV_MR_KERNELS
#undef NV_MR
#define NV_MR 8
NV_MR_KERNELS
#undef NV_MR

#if !NV_FAST_REDUCE
#undef NV_MR_PARK
#define NV_MR_PARK(r, m) NV_MR_SWIGLU_PARK(r, m)
#endif
#define NV_MR 2
NV_MR_SWIGLU_KERNELS
#undef NV_MR
#define NV_MR 4
NV_MR_SWIGLU_KERNELS
#undef NV_MR
#define NV_MR 8
NV_MR_SWIGLU_KERNELS
#undef NV_MR
