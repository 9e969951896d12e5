// GEMV on 8-bit activations for NVIDIA GPUs (decode): dst[N, M] = x[K, M] . W[K, N]^T, M small,
// for a Q4_0 / Q4_1 / Q8_0 weight in the packed layout of plugins/common (packed_weight.hpp:
// each block's quants are aligned 16-byte words, the scales a separate array), so that a lane
// fetches a block with one 16-byte load where the GGUF layout allows only 2-byte ones.
//
// One work-group of NV_WG work-items serves NV_ROWS = (NV_WG / 32) * NV_RPW consecutive output
// rows of one activation row m (global size (ceil(N / NV_ROWS) * NV_WG, M)):
//  1. it quantizes row m into local memory (through the RMSNorm when `norm` is set) in the
//     CPU backend's Q8Block32 form, so both paths mean the same numbers: d = max|x| / 127 per 32
//     values, codes x / d rounded to nearest even, s = d * sum(codes);
//  2. each warp of 32 work-items walks NV_RPW weight rows, its lanes striding over the blocks:
//     per block and row one 16-byte quant load (two for Q8_0), one scale and 8 four-way integer
//     dot products;
//  3. the lanes' partial sums meet in local memory once, at the end.
// Quantizing in every work-group instead of in a launch of its own costs an L2 read of x per
// group and saves a launch per mat-mul, which is what a decode step on a big GPU is short of.
//
// NV_PTX=1 (set by the plugin after a probe kernel built and ran on the driver) makes the dot
// product PTX's dp4a; otherwise it is the same sum in plain OpenCL C, which is what runs under a
// spoofed NVIDIA identity on other devices.

#ifndef NV_WG
#define NV_WG 256
#endif
#ifndef NV_RPW
#define NV_RPW 2
#endif
#define NV_WARPS (NV_WG / 32)
#define NV_ROWS (NV_WARPS * NV_RPW)
// Row stride of the reduction slots: 33 keeps the 32 lanes of one row in 32 different banks.
#define NV_RED_STRIDE 33

#if defined(NV_PTX) && NV_PTX
inline int nv_dp4a(uint a, int b, int c) {
  int d;
  __asm__("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
#else
inline int nv_dp4a(uint a, int b, int c) {
  const char4 x = as_char4(a), y = as_char4(b);
  return c + (int)x.x * y.x + (int)x.y * y.y + (int)x.z * y.z + (int)x.w * y.w;
}
#endif

// Low and high nibbles of the four bytes of v, as bytes.
#define NV_LO(v) ((v) & 0x0F0F0F0Fu)
#define NV_HI(v) (((v) >> 4) & 0x0F0F0F0Fu)

// Block i of a packed weight against activation codes xa (values 0..15) and xb (16..31) with
// ds = (d, d * sum(codes)): the block's contribution to the output row.
inline float nv_block_q4_0(const global uint4* wq, const global ushort* ws, size_t i, int4 xa, int4 xb,
                           float2 ds) {
  const uint4 v = wq[i];
  int s = nv_dp4a(NV_LO(v.x), xa.x, 0);
  s = nv_dp4a(NV_LO(v.y), xa.y, s);
  s = nv_dp4a(NV_LO(v.z), xa.z, s);
  s = nv_dp4a(NV_LO(v.w), xa.w, s);
  s = nv_dp4a(NV_HI(v.x), xb.x, s);
  s = nv_dp4a(NV_HI(v.y), xb.y, s);
  s = nv_dp4a(NV_HI(v.z), xb.z, s);
  s = nv_dp4a(NV_HI(v.w), xb.w, s);
  // Codes q - 8: d (dx sum(q qx) - 8 dx sum(qx)).
  return vload_half(i, (const global half*)ws) * (ds.x * (float)s - 8.0f * ds.y);
}

inline float nv_block_q4_1(const global uint4* wq, const global ushort* ws, size_t i, int4 xa, int4 xb,
                           float2 ds) {
  const uint4 v = wq[i];
  int s = nv_dp4a(NV_LO(v.x), xa.x, 0);
  s = nv_dp4a(NV_LO(v.y), xa.y, s);
  s = nv_dp4a(NV_LO(v.z), xa.z, s);
  s = nv_dp4a(NV_LO(v.w), xa.w, s);
  s = nv_dp4a(NV_HI(v.x), xb.x, s);
  s = nv_dp4a(NV_HI(v.y), xb.y, s);
  s = nv_dp4a(NV_HI(v.z), xb.z, s);
  s = nv_dp4a(NV_HI(v.w), xb.w, s);
  // d q + m: d dx sum(q qx) + m dx sum(qx); the scale words hold d (low half) and m (high).
  const float d = vload_half(2 * i, (const global half*)ws), m = vload_half(2 * i + 1, (const global half*)ws);
  return d * ds.x * (float)s + m * ds.y;
}

inline float nv_block_q8_0(const global uint4* wq, const global ushort* ws, size_t i, int4 xa, int4 xb,
                           float2 ds) {
  const uint4 lo = wq[2 * i], hi = wq[2 * i + 1];
  int s = nv_dp4a(lo.x, xa.x, 0);
  s = nv_dp4a(lo.y, xa.y, s);
  s = nv_dp4a(lo.z, xa.z, s);
  s = nv_dp4a(lo.w, xa.w, s);
  s = nv_dp4a(hi.x, xb.x, s);
  s = nv_dp4a(hi.y, xb.y, s);
  s = nv_dp4a(hi.z, xb.z, s);
  s = nv_dp4a(hi.w, xb.w, s);
  return vload_half(i, (const global half*)ws) * ds.x * (float)s;
}

// The sum of v over the work-group (every work-item gets it); red holds at least NV_WG floats.
inline float nv_group_sum(float v, local float* red) {
  const int lid = get_local_id(0);
  red[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int half_size = NV_WG / 2; half_size > 0; half_size >>= 1) {
    if (lid < half_size) red[lid] += red[lid + half_size];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float total = red[0];
  barrier(CLK_LOCAL_MEM_FENCE);  // red is reused next
  return total;
}

inline float nv_absmax(float16 lo, float16 hi) {
  const float16 a = fmax(fabs(lo), fabs(hi));
  const float8 a8 = fmax(a.lo, a.hi);
  const float4 a4 = fmax(a8.lo, a8.hi);
  return fmax(fmax(a4.x, a4.y), fmax(a4.z, a4.w));
}

inline int nv_hsum(int16 v) {
  const int8 a = v.lo + v.hi;
  const int4 b = a.lo + a.hi;
  return b.x + b.y + b.z + b.w;
}

// Step 1: row x (K values, through the RMSNorm with weight g when norm is set) as K / 32 blocks:
// codes 0..15 of block b at xq[b], 16..31 at xq[nb + b] (consecutive lanes read consecutive
// words), (d, s) at xds[b].
inline void nv_quantize_row(const global float* x, const global float* g, int norm, float eps, int K,
                            local int4* xq, local float2* xds, local float* red) {
  const int lid = get_local_id(0), nb = K / 32;
  float scale = 1.0f;
  if (norm) {
    float ss = 0.0f;
    for (int i = lid; i < K / 4; i += NV_WG) {
      const float4 v = vload4(i, x);
      ss += dot(v, v);
    }
    scale = 1.0f / sqrt(nv_group_sum(ss, red) / (float)K + eps);
  }
  for (int b = lid; b < nb; b += NV_WG) {
    float16 lo = vload16(0, x + 32 * b), hi = vload16(1, x + 32 * b);
    if (norm) {
      lo = lo * scale * vload16(0, g + 32 * b);
      hi = hi * scale * vload16(1, g + 32 * b);
    }
    const float d = nv_absmax(lo, hi) / 127.0f, inv = d != 0.0f ? 1.0f / d : 0.0f;
    const int16 ql = convert_int16_rte(lo * inv), qh = convert_int16_rte(hi * inv);
    xq[b] = as_int4(convert_char16(ql));
    xq[nb + b] = as_int4(convert_char16(qh));
    xds[b] = (float2)(d, d * (float)nv_hsum(ql + qh));
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// Step 3: row r of this work-group (0 .. NV_ROWS - 1) summed over its 32 lanes, for work-item r.
inline float nv_row_total(local const float* red, int r) {
  float t = 0.0f;
  for (int l = 0; l < 32; ++l) t += red[r * NV_RED_STRIDE + l];
  return t;
}

#define NV_GEMV_ARGS                                                                            \
  const global uint4 *wq, const global ushort *ws, const global uchar *x, ulong x_off,          \
      const global uchar *g, ulong g_off, int norm, float eps, const global uchar *res,         \
      ulong res_off, int has_res, global uchar *dst, ulong dst_off, int K, int N, local int4 *xq, \
      local float2 *xds

// MUL_MAT, RMS_NORM_MUL_MAT (norm) and MUL_MAT_ADD (has_res: dst = product + res, res may be dst).
#define NV_GEMV_KERNEL(NAME, BLOCK)                                                             \
  kernel __attribute__((reqd_work_group_size(NV_WG, 1, 1))) void NAME(NV_GEMV_ARGS) {           \
    local float red[NV_ROWS * NV_RED_STRIDE];                                                   \
    const int m = get_group_id(1), lid = get_local_id(0), lane = lid % 32, nb = K / 32;         \
    nv_quantize_row((const global float*)(x + x_off) + (size_t)m * K,                          \
                    (const global float*)(g + g_off), norm, eps, K, xq, xds, red);              \
    const int first = get_group_id(0) * NV_ROWS + (lid / 32) * NV_RPW;                          \
    float acc[NV_RPW];                                                                          \
    for (int r = 0; r < NV_RPW; ++r) acc[r] = 0.0f;                                             \
    for (int b = lane; b < nb; b += 32) {                                                       \
      const int4 xa = xq[b], xb = xq[nb + b];                                                   \
      const float2 ds = xds[b];                                                                 \
      for (int r = 0; r < NV_RPW; ++r) {                                                        \
        /* rows past N repeat the last row; their sums are never stored */                      \
        const size_t n = (size_t)min(first + r, N - 1);                                        \
        acc[r] += BLOCK(wq, ws, n * nb + b, xa, xb, ds);                                        \
      }                                                                                         \
    }                                                                                           \
    for (int r = 0; r < NV_RPW; ++r) red[((lid / 32) * NV_RPW + r) * NV_RED_STRIDE + lane] = acc[r]; \
    barrier(CLK_LOCAL_MEM_FENCE);                                                               \
    const int n = get_group_id(0) * NV_ROWS + lid;                                              \
    if (lid < NV_ROWS && n < N) {                                                               \
      float total = nv_row_total(red, lid);                                                     \
      const size_t at = (size_t)m * N + n;                                                      \
      if (has_res) total += ((const global float*)(res + res_off))[at];                         \
      ((global float*)(dst + dst_off))[at] = total;                                             \
    }                                                                                           \
  }

NV_GEMV_KERNEL(nv_gemv_q4_0, nv_block_q4_0)
NV_GEMV_KERNEL(nv_gemv_q4_1, nv_block_q4_1)
NV_GEMV_KERNEL(nv_gemv_q8_0, nv_block_q8_0)

// RMS_NORM_MUL_MAT_SWIGLU: dst = silu(gate . n) * (up . n), n = rms_norm(x) * g, both weights of
// one dtype; each warp walks NV_RPW rows of each.
#define NV_SWIGLU_ARGS                                                                          \
  const global uint4 *gq, const global ushort *gs, const global uint4 *uq, const global ushort *us, \
      const global uchar *x, ulong x_off, const global uchar *g, ulong g_off, float eps,        \
      global uchar *dst, ulong dst_off, int K, int N, local int4 *xq, local float2 *xds

#define NV_SWIGLU_KERNEL(NAME, BLOCK)                                                           \
  kernel __attribute__((reqd_work_group_size(NV_WG, 1, 1))) void NAME(NV_SWIGLU_ARGS) {         \
    local float red[2 * NV_ROWS * NV_RED_STRIDE];                                               \
    const int m = get_group_id(1), lid = get_local_id(0), lane = lid % 32, nb = K / 32;         \
    nv_quantize_row((const global float*)(x + x_off) + (size_t)m * K,                          \
                    (const global float*)(g + g_off), 1, eps, K, xq, xds, red);                 \
    const int first = get_group_id(0) * NV_ROWS + (lid / 32) * NV_RPW;                          \
    float acc_g[NV_RPW], acc_u[NV_RPW];                                                         \
    for (int r = 0; r < NV_RPW; ++r) acc_g[r] = acc_u[r] = 0.0f;                                \
    for (int b = lane; b < nb; b += 32) {                                                       \
      const int4 xa = xq[b], xb = xq[nb + b];                                                   \
      const float2 ds = xds[b];                                                                 \
      for (int r = 0; r < NV_RPW; ++r) {                                                        \
        const size_t i = (size_t)min(first + r, N - 1) * nb + b;                               \
        acc_g[r] += BLOCK(gq, gs, i, xa, xb, ds);                                               \
        acc_u[r] += BLOCK(uq, us, i, xa, xb, ds);                                               \
      }                                                                                         \
    }                                                                                           \
    for (int r = 0; r < NV_RPW; ++r) {                                                          \
      const int slot = (lid / 32) * NV_RPW + r;                                                 \
      red[slot * NV_RED_STRIDE + lane] = acc_g[r];                                              \
      red[(NV_ROWS + slot) * NV_RED_STRIDE + lane] = acc_u[r];                                  \
    }                                                                                           \
    barrier(CLK_LOCAL_MEM_FENCE);                                                               \
    const int n = get_group_id(0) * NV_ROWS + lid;                                              \
    if (lid < NV_ROWS && n < N) {                                                               \
      const float gate = nv_row_total(red, lid), up = nv_row_total(red, NV_ROWS + lid);         \
      ((global float*)(dst + dst_off))[(size_t)m * N + n] = gate / (1.0f + exp(-gate)) * up;    \
    }                                                                                           \
  }

NV_SWIGLU_KERNEL(nv_gemv_swiglu_q4_0, nv_block_q4_0)
NV_SWIGLU_KERNEL(nv_gemv_swiglu_q4_1, nv_block_q4_1)
NV_SWIGLU_KERNEL(nv_gemv_swiglu_q8_0, nv_block_q8_0)
