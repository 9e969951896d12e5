// GEMV on 8-bit activations for NVIDIA GPUs (decode): dst[N, M] = x[K, M] . W[K, N]^T, M small,
// for a Q4_0 / Q4_1 / Q8_0 weight in the packed layout of plugins/common (packed_weight.hpp:
// each block's quants are aligned 16-byte words, the scales a separate array), so that a lane
// fetches a block with one 16-byte load where the GGUF layout allows only 2-byte ones.
//
// A work-group of NV_WG work-items works for one activation row m (global size (M * NV_WG,
// groups), groups chosen by the host: a few per compute unit, at most one per chunk; the rows are
// the fast dimension, so the groups of every row that walk one chunk run side by side and all but
// the first read its weights from the L2 cache):
//  1. it quantizes row m into local memory (through the RMSNorm when `norm` is set) in the
//     CPU backend's Q8Block32 form, so both paths mean the same numbers: d = max|x| / 127 per 32
//     values, codes x / d rounded to nearest even, s = d * sum(codes);
//  2. it walks chunks of NV_ROWS = (NV_WG / 32) * NV_RPW output rows, chunk g, g + groups, ...:
//     each warp of 32 work-items takes NV_RPW rows, its lanes striding over the blocks, per block
//     and row one 16-byte quant load (two for Q8_0), one scale and 8 four-way integer dot
//     products; the lanes' partial sums meet in local memory once per chunk.
// Quantizing in the work-groups instead of in a launch of its own costs an L2 read of x per group
// and saves a launch per mat-mul, which is what a decode step on a big GPU is short of; walking
// chunks keeps that to a few quantizations per compute unit.
//
// NV_PTX=1 (set by the plugin after a probe kernel built and ran on the driver) makes the dot
// product PTX's dp4a; otherwise it is the same sum in plain OpenCL C, which is what runs under a
// spoofed NVIDIA identity on other devices. Needs reduce.cl and nv_ptx.cl in front.
// clport-requires: nv_ptx.cl

#ifndef NV_WG
#define NV_WG 512
#endif
#ifndef NV_RPW
#define NV_RPW 2
#endif
// Blocks of 32 weights per lane and loop trip of the row walk (step 2).
#ifndef NV_BPT
#define NV_BPT 2
#endif
#define NV_WARPS (NV_WG / 32)
// With PTX each warp sums its own rows with shuffles (no local memory, no barrier) and the
// work-group reductions take two barriers instead of one per halving step.
#ifndef NV_FAST_REDUCE
#if defined(NV_PTX) && NV_PTX
#define NV_FAST_REDUCE 1
#else
#define NV_FAST_REDUCE 0
#endif
#endif
#define NV_ROWS (NV_WARPS * NV_RPW)
// Row stride of the reduction slots: 33 keeps the 32 lanes of one row in 32 different banks.
#define NV_RED_STRIDE 33


// Low and high nibbles of the four bytes of v, as bytes.
#define NV_LO(v) ((v) & 0x0F0F0F0Fu)
#define NV_HI(v) (((v) >> 4) & 0x0F0F0F0Fu)

// The integer dot product of 16 quant bytes (a 4-bit block: byte j holds element j in its low
// nibble and j + 16 in its high one) with activation codes xa (elements 0..15) and xb (16..31).
// The integer dot product of 32 signed codes (lo: k = 0 .. 15, hi: 16 .. 31) with xa / xb.
inline int nv_dot_codes(uint4 lo, uint4 hi, int4 xa, int4 xb) {
  int s = nv_dp4a(lo.x, xa.x, 0);
  s = nv_dp4a(lo.y, xa.y, s);
  s = nv_dp4a(lo.z, xa.z, s);
  s = nv_dp4a(lo.w, xa.w, s);
  s = nv_dp4a(hi.x, xb.x, s);
  s = nv_dp4a(hi.y, xb.y, s);
  s = nv_dp4a(hi.z, xb.z, s);
  return nv_dp4a(hi.w, xb.w, s);
}

inline int nv_dot_q4(uint4 v, int4 xa, int4 xb) {
  return nv_dot_codes(NV_LO(v), NV_HI(v), xa, xb);
}

// Block i of a packed weight against activation codes xa / xb with ds = (d, d * sum(codes)):
// the block's contribution to the output row.
inline float nv_block_q4_0(const global uint4* wq, const global ushort* ws, size_t i, int4 xa, int4 xb,
                           float2 ds) {
  // Codes q - 8: d (dx sum(q qx) - 8 dx sum(qx)).
  return vload_half(i, (const global half*)ws) * (ds.x * (float)nv_dot_q4(wq[i], xa, xb) - 8.0f * ds.y);
}

inline float nv_block_q4_1(const global uint4* wq, const global ushort* ws, size_t i, int4 xa, int4 xb,
                           float2 ds) {
  // d q + m: d dx sum(q qx) + m dx sum(qx); the scale words hold d (low half) and m (high).
  const float d = vload_half(2 * i, (const global half*)ws), m = vload_half(2 * i + 1, (const global half*)ws);
  return d * ds.x * (float)nv_dot_q4(wq[i], xa, xb) + m * ds.y;
}

inline float nv_block_q8_0(const global uint4* wq, const global ushort* ws, size_t i, int4 xa, int4 xb,
                           float2 ds) {
  return vload_half(i, (const global half*)ws) * ds.x * (float)nv_dot_codes(wq[2 * i], wq[2 * i + 1], xa, xb);
}

inline float nv_absmax4(float4 v) { return fmax(fmax(fabs(v.x), fabs(v.y)), fmax(fabs(v.z), fabs(v.w))); }

// The maximum and the sum of v over the 8 consecutive work-items that hold one block of 32
// values (8 float4s). Every work-item of the group calls them the same number of times.
#if defined(NV_PTX) && NV_PTX
inline float nv_block_max(float v, local float* scratch) {
  v = fmax(v, nv_shfl_xor(v, 1));
  v = fmax(v, nv_shfl_xor(v, 2));
  return fmax(v, nv_shfl_xor(v, 4));
}
inline int nv_block_sum(int v, local float* scratch) {
  v += as_int(nv_shfl_xor(as_float(v), 1));
  v += as_int(nv_shfl_xor(as_float(v), 2));
  return v + as_int(nv_shfl_xor(as_float(v), 4));
}
inline float nv_warp_sum(float v) {
  for (int lanes = 16; lanes > 0; lanes >>= 1) v += nv_shfl_xor(v, lanes);
  return v;
}
inline float nv_warp_max(float v) {
  for (int lanes = 16; lanes > 0; lanes >>= 1) v = fmax(v, nv_shfl_xor(v, lanes));
  return v;
}
#else
// Through local memory: the slots of one call are read before the next call writes them.
inline float nv_block_max(float v, local float* scratch) {
  const int lid = get_local_id(0), first = lid & ~7;
  barrier(CLK_LOCAL_MEM_FENCE);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = 0; k < 8; ++k) v = fmax(v, scratch[first + k]);
  return v;
}
inline int nv_block_sum(int v, local float* scratch) {
  const int lid = get_local_id(0), first = lid & ~7;
  barrier(CLK_LOCAL_MEM_FENCE);
  scratch[lid] = as_float(v);
  barrier(CLK_LOCAL_MEM_FENCE);
  int total = 0;
  for (int k = 0; k < 8; ++k) total += as_int(scratch[first + k]);
  return total;
}
#endif

// Sum and maximum over the work-group, for every work-item: each warp's value through shuffles,
// then the NV_WARPS values through `scratch` (at least NV_WARPS floats); without PTX, reduce.cl's.
#if NV_FAST_REDUCE
inline float nv_group_sum(float v, local float* scratch) {
  v = nv_warp_sum(v);
  if (get_local_id(0) % 32 == 0) scratch[get_local_id(0) / 32] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  float total = 0.0f;
  for (int w = 0; w < NV_WARPS; ++w) total += scratch[w];
  barrier(CLK_LOCAL_MEM_FENCE);  // scratch may be reused right away
  return total;
}
inline float nv_group_max(float v, local float* scratch) {
  v = nv_warp_max(v);
  if (get_local_id(0) % 32 == 0) scratch[get_local_id(0) / 32] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  float m = -INFINITY;
  for (int w = 0; w < NV_WARPS; ++w) m = fmax(m, scratch[w]);
  barrier(CLK_LOCAL_MEM_FENCE);
  return m;
}
#else
inline float nv_group_sum(float v, local float* scratch) { return wg_reduce_sum(v, scratch, NV_WG); }
inline float nv_group_max(float v, local float* scratch) { return wg_reduce_max(v, scratch, NV_WG); }
#endif

// The largest of the block maxima of the 8 blocks (64 work-items) that share a 256-value span,
// through `spans` (NV_WG / 8 floats, apart from the block reductions' scratch).
inline float nv_span_max(float block_max, local float* spans) {
  const int lid = get_local_id(0), first = lid / 64 * 8;
  barrier(CLK_LOCAL_MEM_FENCE);  // the previous pass has read its maxima
  if (lid % 8 == 0) spans[lid / 8] = block_max;
  barrier(CLK_LOCAL_MEM_FENCE);
  float m = spans[first];
  for (int k = 1; k < 8; ++k) m = fmax(m, spans[first + k]);
  return m;
}

// One pass's float4 v (number i of the row; live: i < K / 4, the same for a block's 8
// work-items), quantized with its block into the row's codes (as int words) and xds. Every
// work-item of the group calls it the same number of times (the block reductions). With `wide`
// (the K-quants' activations, the CPU path's Q8_K: NV_WG a multiple of 64, K of 256) the 8 blocks
// of 256 values share one scale, the largest magnitude of all of them; `spans` is then
// nv_span_max's.
inline void nv_quantize_float4(float4 v, int i, bool live, int nb, local int* codes, local float2* xds,
                               local float* red, int wide, local float* spans) {
  float amax = nv_block_max(nv_absmax4(v), red);
  if (wide) amax = nv_span_max(amax, spans);
  const float d = nv_div_rn(amax, 127.0f);
  const float inv = d != 0.0f ? nv_div_rn(1.0f, d) : 0.0f;
  const int4 q = convert_int4_rte(v * inv);
  const int sum = nv_block_sum(q.x + q.y + q.z + q.w, red);
  if (live) {
    const int blk = i / 8, j = i % 8;
    codes[4 * (j < 4 ? blk : nb + blk) + (j & 3)] = as_int(convert_char4(q));
    if (j == 0) xds[blk] = (float2)(d, d * (float)sum);
  }
}

// Passes (NV_WG float4s each) whose loads a quantization issues together before quantizing them:
// each pass is a round trip to memory otherwise (a 14336-value row takes 7 at 512 work-items).
// Two: on the H200 the one-launch layer decoded 8B Q4_0 at 460 tok/s with one, 478-480 with two
// and 400 with eight (whose registers slowed every phase of that kernel). One without PTX: there
// the block sums take work-group barriers, and PoCL's work-group compiler (what runs a spoofed
// identity) does not get through unrolled passes of barriers in minutes.
#ifndef NV_QUANT_PASSES
#if defined(NV_PTX) && NV_PTX
#define NV_QUANT_PASSES 2
#else
#define NV_QUANT_PASSES 1
#endif
#endif

// Step 1: an activation row of K values as K / 32 blocks: codes 0..15 of block b at xq[b],
// 16..31 at xq[nb + b] (consecutive lanes read consecutive words), (d, s) at xds[b]. One float4
// per work-item and pass, 8 work-items to a block: the loads coalesce and the row takes
// K / (4 NV_WG) passes, loaded NV_QUANT_PASSES at a time. LOAD4(i) is the row's float4 number i
// (only called for i < K / 4); every work-item of the group runs the body. WIDE and SPANS as
// nv_quantize_float4 takes them.
#define NV_QUANTIZE_BODY(LOAD4, WIDE, SPANS)                                                    \
  {                                                                                             \
    const int lid_ = get_local_id(0), n4_ = K / 4;                                              \
    for (int base_ = 0; base_ < n4_; base_ += NV_QUANT_PASSES * NV_WG) {                        \
      float4 v_[NV_QUANT_PASSES];                                                               \
      _Pragma("unroll") for (int p_ = 0; p_ < NV_QUANT_PASSES; ++p_) {                          \
        const int i = base_ + p_ * NV_WG + lid_;                                                \
        v_[p_] = i < n4_ ? LOAD4(i) : (float4)(0.0f);                                           \
      }                                                                                         \
      _Pragma("unroll") for (int p_ = 0; p_ < NV_QUANT_PASSES; ++p_) {                          \
        /* n4 is a multiple of 8 and NV_WG of 32: a block's 8 work-items are all live or not; */ \
        /* a pass past the row is skipped by every work-item alike */                           \
        const int i = base_ + p_ * NV_WG + lid_;                                                \
        if (base_ + p_ * NV_WG < n4_)                                                           \
          nv_quantize_float4(v_[p_], i, i < n4_, K / 32, (local int*)xq, xds, red, WIDE, SPANS); \
      }                                                                                         \
    }                                                                                           \
    barrier(CLK_LOCAL_MEM_FENCE);                                                               \
  }

// Row x through the RMSNorm with weight g when norm is set, quantized as above. The CPU
// backend's Q8Block32 form, so both paths mean the same numbers: d = max|x| / 127 per 32
// values (per 256 with `wide`), codes x / d rounded to nearest even, s = d * sum(codes). With
// PTX a row of at most NV_QUANT_PASSES passes through the norm is read once, x and g together,
// and kept in registers from the sum of squares to the codes (the same sums in the same order as
// the two reads otherwise). Not without PTX: PoCL 3.1's work-group compiler computes that form
// wrong (NMSE 1 in the spoofed identity's conformance, where oclgrind gives the same case 4e-14).
inline void nv_quantize_row(const global float* x, const global float* g, int norm, float eps, int K,
                            local int4* xq, local float2* xds, local float* red, int wide, local float* spans) {
  const int lid = get_local_id(0), n4 = K / 4;
#if defined(NV_PTX) && NV_PTX
  if (norm && n4 <= NV_QUANT_PASSES * NV_WG) {
    float4 xv[NV_QUANT_PASSES], gv[NV_QUANT_PASSES];
    float ss = 0.0f;
#pragma unroll
    for (int p = 0; p < NV_QUANT_PASSES; ++p) {
      const int i = p * NV_WG + lid;
      xv[p] = i < n4 ? vload4(i, x) : (float4)(0.0f);
      gv[p] = i < n4 ? vload4(i, g) : (float4)(0.0f);
    }
#pragma unroll
    for (int p = 0; p < NV_QUANT_PASSES; ++p)
      if (p * NV_WG + lid < n4) ss += dot(xv[p], xv[p]);
    const float scale = 1.0f / sqrt(nv_group_sum(ss, red) / (float)K + eps);
#pragma unroll
    for (int p = 0; p < NV_QUANT_PASSES; ++p) {
      const int i = p * NV_WG + lid;
      if (p * NV_WG < n4) nv_quantize_float4(xv[p] * scale * gv[p], i, i < n4, K / 32, (local int*)xq, xds, red, wide, spans);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return;
  }
#endif
  float scale = 1.0f;
  if (norm) {
    float ss = 0.0f;
    for (int i = lid; i < n4; i += NV_WG) {
      const float4 v = vload4(i, x);
      ss += dot(v, v);
    }
    scale = 1.0f / sqrt(nv_group_sum(ss, red) / (float)K + eps);
  }
#define NV_LOAD_ROW(i) (norm ? vload4(i, x) * scale * vload4(i, g) : vload4(i, x))
  NV_QUANTIZE_BODY(NV_LOAD_ROW, wide, spans)
#undef NV_LOAD_ROW
}

// Step 3: row r of this work-group (0 .. NV_ROWS - 1) summed over its 32 lanes, for work-item r.
inline float nv_row_total(local const float* red, int r) {
  float t = 0.0f;
  for (int l = 0; l < 32; ++l) t += red[r * NV_RED_STRIDE + l];
  return t;
}

// Step 2, one block b of every row of this warp: acc[r] += the block's contribution. NV_BPT
// blocks per lane and loop trip (b, b + 32, ...; past the row's end clamped to its last block
// and masked by a zero (d, s)): NV_BPT * NV_RPW 16-byte loads (twice that for Q8_0) in flight per
// lane, which is what keeps the memory busy when a launch has few warps per compute unit.
#define NV_GEMV_LOOP(STEP)                                                                      \
  for (int b0 = lane; b0 < nb; b0 += 32 * NV_BPT) {                                             \
    int bu[NV_BPT];                                                                             \
    int4 xa[NV_BPT], xb[NV_BPT];                                                                \
    float2 ds[NV_BPT];                                                                          \
    for (int u = 0; u < NV_BPT; ++u) {                                                          \
      bu[u] = min(b0 + 32 * u, nb - 1);                                                         \
      xa[u] = xq[bu[u]];                                                                        \
      xb[u] = xq[nb + bu[u]];                                                                   \
      ds[u] = b0 + 32 * u < nb ? xds[bu[u]] : (float2)(0.0f);                                   \
    }                                                                                           \
    for (int r = 0; r < NV_RPW; ++r) {                                                          \
      /* rows past N repeat the last row; their sums are never stored */                        \
      const size_t row = (size_t)min(first + r, N - 1) * nb;                                    \
      for (int u = 0; u < NV_BPT; ++u) {                                                        \
        STEP(r, row + bu[u], xa[u], xb[u], ds[u]);                                              \
      }                                                                                         \
    }                                                                                           \
  }

// Step 2 for an activation row quantized in xq / xds: dst[n] = W[n] . x (+ res[n] when has_res;
// res may be dst) for n < N. With NV_FAST_REDUCE every warp of the launch takes NV_RPW rows at a
// time (warp w: rows w NV_RPW.., then w + all warps, ...) and sums them with shuffles; otherwise
// the chunks of NV_ROWS rows are shared out over the work-groups of dimension 0 (chunk g,
// g + groups, ...) and summed in local memory.
#if NV_FAST_REDUCE
#define NV_ROWS_FN_LOOP(NAME, LOOP, STEP)                                                       \
  inline void NAME(const global uint4* wq, const global ushort* ws, int K, int N, int has_res,  \
                   const global float* res, global float* dst, local const int4* xq,            \
                   local const float2* xds, local float* red, int group, int groups) {           \
    const int lid = get_local_id(0), lane = lid % 32, nb = K / 32;                              \
    const int warps = groups * NV_WARPS;                                                        \
    for (int first = (group * NV_WARPS + lid / 32) * NV_RPW; first < N; first += warps * NV_RPW) { \
      float acc[NV_RPW];                                                                        \
      for (int r = 0; r < NV_RPW; ++r) acc[r] = 0.0f;                                           \
      LOOP(STEP)                                                                                \
      for (int r = 0; r < NV_RPW; ++r) {                                                        \
        float total = nv_warp_sum(acc[r]);                                                      \
        if (lane == 0 && first + r < N) {                                                       \
          if (has_res) total += res[first + r];                                                 \
          dst[first + r] = total;                                                               \
        }                                                                                       \
      }                                                                                         \
    }                                                                                           \
  }
#define NV_SWIGLU_ROWS_FN_LOOP(NAME, LOOP, STEP)                                                \
  inline void NAME(const global uint4* gq, const global ushort* gs, const global uint4* uq,     \
                   const global ushort* us, int K, int N, global float* dst, local const int4* xq, \
                   local const float2* xds, local float* red, int group, int groups) {           \
    const int lid = get_local_id(0), lane = lid % 32, nb = K / 32;                              \
    const int warps = groups * NV_WARPS;                                                        \
    for (int first = (group * NV_WARPS + lid / 32) * NV_RPW; first < N; first += warps * NV_RPW) { \
      float acc_g[NV_RPW], acc_u[NV_RPW];                                                       \
      for (int r = 0; r < NV_RPW; ++r) acc_g[r] = acc_u[r] = 0.0f;                              \
      LOOP(STEP)                                                                                \
      for (int r = 0; r < NV_RPW; ++r) {                                                        \
        const float gate = nv_warp_sum(acc_g[r]), up = nv_warp_sum(acc_u[r]);                  \
        if (lane == 0 && first + r < N) dst[first + r] = gate / (1.0f + exp(-gate)) * up;      \
      }                                                                                         \
    }                                                                                           \
  }
#else
#define NV_ROWS_FN_LOOP(NAME, LOOP, STEP)                                                       \
  inline void NAME(const global uint4* wq, const global ushort* ws, int K, int N, int has_res,  \
                   const global float* res, global float* dst, local const int4* xq,            \
                   local const float2* xds, local float* red, int group, int groups) {           \
    const int lid = get_local_id(0), lane = lid % 32, nb = K / 32;                              \
    for (int chunk = group; chunk < (N + NV_ROWS - 1) / NV_ROWS; chunk += groups) {            \
      const int first = chunk * NV_ROWS + (lid / 32) * NV_RPW;                                  \
      float acc[NV_RPW];                                                                        \
      for (int r = 0; r < NV_RPW; ++r) acc[r] = 0.0f;                                           \
      LOOP(STEP)                                                                                \
      for (int r = 0; r < NV_RPW; ++r) red[((lid / 32) * NV_RPW + r) * NV_RED_STRIDE + lane] = acc[r]; \
      barrier(CLK_LOCAL_MEM_FENCE);                                                             \
      const int n = chunk * NV_ROWS + lid;                                                      \
      if (lid < NV_ROWS && n < N) {                                                             \
        float total = nv_row_total(red, lid);                                                   \
        if (has_res) total += res[n];                                                           \
        dst[n] = total;                                                                         \
      }                                                                                         \
      barrier(CLK_LOCAL_MEM_FENCE); /* red is written again by the next chunk */               \
    }                                                                                           \
  }

// The same for RMS_NORM_MUL_MAT_SWIGLU: dst[n] = silu(gate[n] . x) * (up[n] . x), both weights of
// one dtype; each warp walks NV_RPW rows of each. red holds 2 * NV_ROWS * NV_RED_STRIDE floats.
#define NV_SWIGLU_ROWS_FN_LOOP(NAME, LOOP, STEP)                                                \
  inline void NAME(const global uint4* gq, const global ushort* gs, const global uint4* uq,     \
                   const global ushort* us, int K, int N, global float* dst, local const int4* xq, \
                   local const float2* xds, local float* red, int group, int groups) {           \
    const int lid = get_local_id(0), lane = lid % 32, nb = K / 32;                              \
    for (int chunk = group; chunk < (N + NV_ROWS - 1) / NV_ROWS; chunk += groups) {            \
      const int first = chunk * NV_ROWS + (lid / 32) * NV_RPW;                                  \
      float acc_g[NV_RPW], acc_u[NV_RPW];                                                       \
      for (int r = 0; r < NV_RPW; ++r) acc_g[r] = acc_u[r] = 0.0f;                              \
      LOOP(STEP)                                                                                \
      for (int r = 0; r < NV_RPW; ++r) {                                                        \
        const int slot = (lid / 32) * NV_RPW + r;                                               \
        red[slot * NV_RED_STRIDE + lane] = acc_g[r];                                            \
        red[(NV_ROWS + slot) * NV_RED_STRIDE + lane] = acc_u[r];                                \
      }                                                                                         \
      barrier(CLK_LOCAL_MEM_FENCE);                                                             \
      const int n = chunk * NV_ROWS + lid;                                                      \
      if (lid < NV_ROWS && n < N) {                                                             \
        const float gate = nv_row_total(red, lid), up = nv_row_total(red, NV_ROWS + lid);       \
        dst[n] = gate / (1.0f + exp(-gate)) * up;                                               \
      }                                                                                         \
      barrier(CLK_LOCAL_MEM_FENCE); /* red is written again by the next chunk */               \
    }                                                                                           \
  }
#endif

// The row walks of the packed layout's blocks of 32 values (a K-quant's own walk: LOOP, STEP).
#define NV_ROWS_FN(NAME, BLOCK) NV_ROWS_FN_LOOP(NAME, NV_GEMV_LOOP, NV_STEP_##BLOCK)
#define NV_SWIGLU_ROWS_FN(NAME, BLOCK) NV_SWIGLU_ROWS_FN_LOOP(NAME, NV_GEMV_LOOP, NV_SWIGLU_STEP_##BLOCK)
#define NV_STEP_nv_block_q4_0(r, i, xa, xb, ds) acc[r] += nv_block_q4_0(wq, ws, i, xa, xb, ds)
#define NV_STEP_nv_block_q4_1(r, i, xa, xb, ds) acc[r] += nv_block_q4_1(wq, ws, i, xa, xb, ds)
#define NV_STEP_nv_block_q8_0(r, i, xa, xb, ds) acc[r] += nv_block_q8_0(wq, ws, i, xa, xb, ds)
#define NV_SWIGLU_STEP(BLOCK, r, i, xa, xb, ds)  \
  acc_g[r] += BLOCK(gq, gs, i, xa, xb, ds);      \
  acc_u[r] += BLOCK(uq, us, i, xa, xb, ds)
#define NV_SWIGLU_STEP_nv_block_q4_0(r, i, xa, xb, ds) NV_SWIGLU_STEP(nv_block_q4_0, r, i, xa, xb, ds)
#define NV_SWIGLU_STEP_nv_block_q4_1(r, i, xa, xb, ds) NV_SWIGLU_STEP(nv_block_q4_1, r, i, xa, xb, ds)
#define NV_SWIGLU_STEP_nv_block_q8_0(r, i, xa, xb, ds) NV_SWIGLU_STEP(nv_block_q8_0, r, i, xa, xb, ds)
NV_ROWS_FN(nv_rows_q4_0, nv_block_q4_0)
NV_ROWS_FN(nv_rows_q4_1, nv_block_q4_1)
NV_ROWS_FN(nv_rows_q8_0, nv_block_q8_0)
NV_SWIGLU_ROWS_FN(nv_swiglu_rows_q4_0, nv_block_q4_0)
NV_SWIGLU_ROWS_FN(nv_swiglu_rows_q4_1, nv_block_q4_1)
NV_SWIGLU_ROWS_FN(nv_swiglu_rows_q8_0, nv_block_q8_0)

#define NV_GEMV_ARGS                                                                            \
  const global uint4 *wq, const global ushort *ws, const global uchar *x, ulong x_off,          \
      const global uchar *g, ulong g_off, int norm, float eps, const global uchar *res,         \
      ulong res_off, int has_res, global uchar *dst, ulong dst_off, int K, int N, local int4 *xq, \
      local float2 *xds

// MUL_MAT, RMS_NORM_MUL_MAT (norm) and MUL_MAT_ADD (has_res: dst = product + res, res may be
// dst); activation row m = get_group_id(0), the chunks shared out over dimension 1.
#define NV_GEMV_KERNEL(NAME, ROWS)                                                              \
  kernel __attribute__((reqd_work_group_size(NV_WG, 1, 1))) void NAME(NV_GEMV_ARGS) {           \
    local float red[NV_ROWS * NV_RED_STRIDE];                                                   \
    const size_t m = get_group_id(0);                                                           \
    nv_quantize_row((const global float*)(x + x_off) + m * K, (const global float*)(g + g_off), \
                    norm, eps, K, xq, xds, red, 0, red);                                        \
    ROWS(wq, ws, K, N, has_res, (const global float*)(res + res_off) + m * N,                   \
         (global float*)(dst + dst_off) + m * N, xq, xds, red, get_group_id(1), get_num_groups(1)); \
  }
NV_GEMV_KERNEL(nv_gemv_q4_0, nv_rows_q4_0)
NV_GEMV_KERNEL(nv_gemv_q4_1, nv_rows_q4_1)
NV_GEMV_KERNEL(nv_gemv_q8_0, nv_rows_q8_0)

// The same for a weight read in place from byte offset w_off of w, the activations taking one
// scale per 256 values (the K-quants'): ROWS gets the weight's first byte as both wq and ws (the
// Q4_K walk loads 16-byte words from wq, the Q6_K walk reads bytes from ws).
#define NV_GEMV_IN_PLACE_KERNEL(NAME, ROWS)                                                     \
  kernel __attribute__((reqd_work_group_size(NV_WG, 1, 1))) void NAME(                          \
      const global uchar* w, ulong w_off, const global uchar* x, ulong x_off, const global uchar* g, \
      ulong g_off, int norm, float eps, const global uchar* res, ulong res_off, int has_res,    \
      global uchar* dst, ulong dst_off, int K, int N, local int4* xq, local float2* xds) {      \
    local float red[NV_ROWS * NV_RED_STRIDE];                                                   \
    local float spans[NV_WG / 8];                                                               \
    const size_t m = get_group_id(0);                                                           \
    nv_quantize_row((const global float*)(x + x_off) + m * K, (const global float*)(g + g_off), \
                    norm, eps, K, xq, xds, red, 1, spans);                                      \
    const global uchar* first_ = w + w_off;                                                     \
    ROWS((const global uint4*)first_, (const global ushort*)first_, K, N, has_res,              \
         (const global float*)(res + res_off) + m * N, (global float*)(dst + dst_off) + m * N, xq, xds, \
         red, get_group_id(1), get_num_groups(1));                                              \
  }

#define NV_SWIGLU_ARGS                                                                          \
  const global uint4 *gq, const global ushort *gs, const global uint4 *uq, const global ushort *us, \
      const global uchar *x, ulong x_off, const global uchar *g, ulong g_off, float eps,        \
      global uchar *dst, ulong dst_off, int K, int N, local int4 *xq, local float2 *xds

#define NV_SWIGLU_KERNEL(NAME, ROWS)                                                            \
  kernel __attribute__((reqd_work_group_size(NV_WG, 1, 1))) void NAME(NV_SWIGLU_ARGS) {         \
    local float red[2 * NV_ROWS * NV_RED_STRIDE];                                               \
    const size_t m = get_group_id(0);                                                           \
    nv_quantize_row((const global float*)(x + x_off) + m * K, (const global float*)(g + g_off), \
                    1, eps, K, xq, xds, red, 0, red);                                           \
    ROWS(gq, gs, uq, us, K, N, (global float*)(dst + dst_off) + m * N, xq, xds, red, get_group_id(1), \
         get_num_groups(1));                                                                    \
  }
NV_SWIGLU_KERNEL(nv_gemv_swiglu_q4_0, nv_swiglu_rows_q4_0)
NV_SWIGLU_KERNEL(nv_gemv_swiglu_q4_1, nv_swiglu_rows_q4_1)
NV_SWIGLU_KERNEL(nv_gemv_swiglu_q8_0, nv_swiglu_rows_q8_0)
