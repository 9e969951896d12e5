// GEMM on 8-bit activations for NVIDIA GPUs (prompt): dst[M, N] = x[M, K] . W[N, K]^T (plus a
// residual, or gate and up weights through SwiGLU) for Q4_0 / Q4_1 / Q8_0 weights in the packed
// layout of plugins/common (packed_weight.hpp), and Q4_K weights in the file's own layout (staged
// as the Q4_1 blocks they are per 32 values), M beyond the GEMV's few rows.
//
// Two launches. nv_quantize_rows writes every activation row (through the RMSNorm when asked) as
// 8-bit codes in the CPU backend's Q8Block32 numbers, the same ones nv_gemv.cl makes: d = max|x| /
// 127 per 32 values, codes x / d rounded to nearest even, s = d * sum(codes). Then nv_gemm_<dtype>
// multiplies codes by weight quants block by block.
//
// The codes are written in the order the tensor cores take them, so that the GEMM stages them with
// straight 16-byte copies and a lane reads its whole A operand with one 16-byte local load: rows in
// tiles of 16, and per (tile, block of 32 values) 32 uint4 in lane order, lane l = 4 g + t holding
// (row g word t, row g + 8 word t, row g word t + 4, row g + 8 word t + 4), then per (tile, block)
// 8 float4 (d, s of row g, d, s of row g + 8). Rows past M (up to the next 16) are zero.
//
// A work-group of 128 work-items (4 warps) computes a tile of 32 I activation rows by 64 weight
// rows: warp w takes I tiles of 16 rows (half w / 2) by 4 tiles of 8 weight rows (half w % 2).
// The K loop stages NV_GEMM_KB blocks of both operands per step in local memory, double-buffered:
// the next step's global loads are in flight (in registers) while this step multiplies, one
// barrier a step (the split kernels of a few rows keep more steps in flight: nv_gemm_loop_deep).
// The weights keep the packed layout (the GEMV reads it too), so their staging
// scatters each row's quant words into the order a lane reads: for one block, one 16-byte load
// gives a lane its B operands of all 4 weight tiles (two for Q8_0); each store instruction's lanes
// start at different words so that no two of them meet in a bank. Per block a warp computes I x 4
// integer products of 16 x 8 tiles with k = 32, exactly one quant block, and scales each into
// float accumulators by the two operands' block scales at once:
//   Q4_0  d_w (d_x sum(q_w q_x) - 8 s_x)   (weight codes 0..15 stand for q - 8)
//   Q4_1  d_w d_x sum(q_w q_x) + m_w s_x
//   Q8_0  d_w d_x sum(q_w q_x)
// With NV_PTX the integer product is the tensor cores' mma.sync m16n8k32 (s8 x s8 -> s32), in the
// PTX ISA's fragment layout: lane l, g = l / 4, t = l % 4 holds A rows g and g + 8, k = 4t..4t+3
// and 16 + 4t..; B column g with the same k; C rows g and g + 8, columns 2t and 2t + 1. A 4-bit
// block's quant word t holds k = 4t..4t+3 in its low nibbles and 16 + 4t.. in its high ones.
// Without PTX every work-item computes the same outputs from local memory in plain OpenCL C,
// which is what runs under a spoofed NVIDIA identity elsewhere. Needs nv_ptx.cl in front.
// clport-requires: nv_ptx.cl
// clport-requires: nv_q4_k.cl

// With NV_GEMM_HELPERS_ONLY the file gives only its functions and macros (the program of
// nv_gemm_split_async.cl is built behind it without compiling these kernels a second time).
#ifndef NV_GEMM_HELPERS_ONLY
#define NV_GEMM_HELPERS_ONLY 0
#endif

#define NV_GEMM_KB 2    // blocks of 32 values per step of the K loop (the staging maps assume 2)
#define NV_GEMM_BN 64   // weight rows per tile
#define NV_GEMM_WG 128  // 4 warps
#define NV_QWG 256      // nv_quantize_rows' work-group

// Blocks of 32 values along K the split kernels have loads in flight for: NV_GEMM_SPLIT_BLOCKS /
// NV_GEMM_KB steps (the host's nv_gemm_split_blocks setting).
#ifndef NV_GEMM_SPLIT_BLOCKS
#define NV_GEMM_SPLIT_BLOCKS 2
#endif
#define NV_GEMM_SPLIT_DEPTH (NV_GEMM_SPLIT_BLOCKS / NV_GEMM_KB)
#if NV_GEMM_SPLIT_BLOCKS != 2 && NV_GEMM_SPLIT_BLOCKS != 4 && NV_GEMM_SPLIT_BLOCKS != 8
#error "NV_GEMM_SPLIT_BLOCKS must be 2, 4 or 8"
#endif

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

// The K-quants' activations (`wide`) take one scale per 256 values, the CPU path's Q8_K blocks,
// as the codes of 8 blocks: the largest of their maxima, over the `span` work-items that share it
// (a barrier all of the group reaches; red free for it).
inline float nv_wide_max(local float* red, float amax, int span) {
  const int lid = get_local_id(0), first = lid / span * span;
  red[lid] = amax;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = 0; k < span; k += span / 8) amax = fmax(amax, red[first + k]);
  barrier(CLK_LOCAL_MEM_FENCE);
  return amax;
}

#if !NV_GEMM_HELPERS_ONLY
// Step 1: one work-group per tile of 16 activation rows (rows M .. the next multiple of 16 write
// zeros) and 16 blocks of them (global size (16 * 16 * tiles, ceil(K / 512))), a work-item per row
// and block. The codes and scales are put in order in local memory, then copied out as whole
// 16-byte words. With the norm, every group of a tile sums the squares of its 16 whole rows: one
// group per tile alone left most of the GPU idle (32 groups for 512 rows).
kernel __attribute__((reqd_work_group_size(NV_QWG, 1, 1))) void nv_quantize_rows(
    const global uchar* x, ulong x_off, const global uchar* g, ulong g_off, int norm, float eps, int M, int K,
    global uint4* xq, global float4* xds, int wide) {
  local float red[NV_QWG];
  local uint4 codes[16 * 32];
  local float4 scales[16 * 8];
  const int tile = get_group_id(0), lid = get_local_id(0), nb = K / 32;
  const int r = lid / 16, part = lid % 16, m = tile * 16 + r, row = r % 8, half_of_tile = r / 8;
  const bool live = m < M;
  const global float* xr = (const global float*)(x + x_off) + (size_t)min(m, M - 1) * K;
  const global float* gr = (const global float*)(g + g_off);
  float scale = 1.0f;
  if (norm) {
    float ss = 0.0f;
    for (int i = part; i < K / 4; i += 16) {
      const float4 v = vload4(i, xr);
      ss += dot(v, v);
    }
    red[lid] = ss;
    barrier(CLK_LOCAL_MEM_FENCE);
    float total = 0.0f;
    for (int k = 0; k < 16; ++k) total += red[r * 16 + k];
    scale = 1.0f / sqrt(total / (float)K + eps);
  }
  local uint* code_words = (local uint*)codes;
  local float2* scale_pairs = (local float2*)scales;
  const int b0 = get_group_id(1) * 16, b = b0 + part;
  float4 v[8];
  float amax = 0.0f;
  for (int j = 0; j < 8; ++j) {
    v[j] = !live || b >= nb ? (float4)(0.0f)
           : norm ? vload4(8 * b + j, xr) * scale * vload4(8 * b + j, gr) : vload4(8 * b + j, xr);
    amax = fmax(amax, fmax(fmax(fabs(v[j].x), fabs(v[j].y)), fmax(fabs(v[j].z), fabs(v[j].w))));
  }
  if (wide) {  // one scale for the 8 blocks of 256 values: the norm's sums are read by now
    barrier(CLK_LOCAL_MEM_FENCE);
    amax = nv_wide_max(red, amax, 8);
  }
  if (b < nb) {
    const float d = nv_div_rn(amax, 127.0f), inv = d != 0.0f ? nv_div_rn(1.0f, d) : 0.0f;
    int sum = 0;
    for (int j = 0; j < 8; ++j) {
      const int4 q = convert_int4_rte(v[j] * inv);
      sum += q.x + q.y + q.z + q.w;
      code_words[((part * 8 + row) * 4 + j % 4) * 4 + half_of_tile + 2 * (j / 4)] = as_uint(convert_char4(q));
    }
    scale_pairs[(part * 8 + row) * 2 + half_of_tile] = (float2)(d, d * (float)sum);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int nblk = min(16, nb - b0);
  for (int e = lid; e < nblk * 32; e += NV_QWG) xq[((size_t)tile * nb + b0) * 32 + e] = codes[e];
  for (int e = lid; e < nblk * 8; e += NV_QWG) xds[((size_t)tile * nb + b0) * 8 + e] = scales[e];
}

// Step 1 for a decode step's few rows (the host takes it up to 64): the same numbers in the same
// order in memory as nv_quantize_rows, from a grid of (rows M .. the next multiple of 16 write
// zeros) x (groups of NV_QWG / 8 blocks), a float4 a work-item. That kernel's groups each sum the
// squares of 16 whole rows, and 16 rows of 4096 made 8 groups: a launch of latency on a few
// compute units (13.6 us on the H100, 129 launches a step); a group per row walking its blocks
// one after another still took 11.3. Here every group sums its row's squares itself (the row is
// read once from L2 and its slice is then in the cache) and the 8 work-items of a block find
// its maximum and code sum together.
kernel __attribute__((reqd_work_group_size(NV_QWG, 1, 1))) void nv_quantize_rows_small(
    const global uchar* x, ulong x_off, const global uchar* g, ulong g_off, int norm, float eps, int M, int K,
    global uint* xq, global float2* xds, int wide) {
  local float red[NV_QWG];
  const int m = get_group_id(1), lid = get_local_id(0), nb = K / 32;
  const int tile = m / 16, row = m % 8, half_of_tile = (m % 16) / 8;
  const bool live = m < M;
  const global float* xr = (const global float*)(x + x_off) + (size_t)min(m, M - 1) * K;
  const global float* gr = (const global float*)(g + g_off);
  const float scale = norm && live ? nv_row_rms_scale(xr, K, eps, red, NV_QWG) : 1.0f;
  const int b = get_group_id(0) * (NV_QWG / 8) + lid / 8, j = lid % 8, first = lid & ~7;
  const bool has = b < nb;
  const float4 v = !live || !has ? (float4)(0.0f)
                   : norm ? vload4(8 * b + j, xr) * scale * vload4(8 * b + j, gr) : vload4(8 * b + j, xr);
  // The block's largest magnitude, then its code sum, over its 8 work-items.
  red[lid] = fmax(fmax(fabs(v.x), fabs(v.y)), fmax(fabs(v.z), fabs(v.w)));
  barrier(CLK_LOCAL_MEM_FENCE);
  float amax = 0.0f;
  for (int k = 0; k < 8; ++k) amax = fmax(amax, red[first + k]);
  if (wide) {  // one scale for 8 blocks of 256 values, 64 work-items
    barrier(CLK_LOCAL_MEM_FENCE);
    amax = nv_wide_max(red, amax, 64);
  }
  const float d = nv_div_rn(amax, 127.0f), inv = d != 0.0f ? nv_div_rn(1.0f, d) : 0.0f;
  const int4 q = convert_int4_rte(v * inv);
  barrier(CLK_LOCAL_MEM_FENCE);
  red[lid] = as_float(q.x + q.y + q.z + q.w);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!has) return;
  const size_t at = (size_t)tile * nb + b;
  xq[(at * 32 + row * 4 + j % 4) * 4 + half_of_tile + 2 * (j / 4)] = as_uint(convert_char4(q));
  if (j == 0) {
    int sum = 0;
    for (int k = 0; k < 8; ++k) sum += as_int(red[first + k]);
    xds[(at * 8 + row) * 2 + half_of_tile] = (float2)(d, d * (float)sum);
  }
}
#endif  // !NV_GEMM_HELPERS_ONLY

// ---- Staging. A step's operands travel global -> registers (load) -> local memory (store), so that
// the next step's loads are in flight while this one multiplies. Blocks at or past nblk are skipped
// (the last step may hold fewer); activation tiles past the last (Mt) and weight rows past N repeat
// the last one: their outputs are never stored.

// This work-item's share of the activation codes and scales of one step: tiles 16-row tiles from
// tile mt0 on, blocks kb0 ...
inline void nv_gemm_load_x(const global uint4* xq, const global float4* xds, int tiles, int mt0, int Mt, int nb,
                           int kb0, int nblk, uint4 xr[4], float4* xdr) {
  const int lid = get_local_id(0);
  #pragma unroll
  for (int u = 0; u < tiles * NV_GEMM_KB * 32 / NV_GEMM_WG; ++u) {
    const int e = lid + u * NV_GEMM_WG, tile = e / (NV_GEMM_KB * 32), blk = (e / 32) % NV_GEMM_KB;
    if (blk < nblk) xr[u] = xq[((size_t)min(mt0 + tile, Mt - 1) * nb + kb0 + blk) * 32 + e % 32];
  }
  const int tile = lid / (NV_GEMM_KB * 8), blk = (lid / 8) % NV_GEMM_KB;
  if (lid < tiles * NV_GEMM_KB * 8 && blk < nblk)
    *xdr = xds[((size_t)min(mt0 + tile, Mt - 1) * nb + kb0 + blk) * 8 + lid % 8];
}

// Local layout of a step's activations: uint4 [block][tile][lane], float4 [block][tile][g].
inline void nv_gemm_store_x(int tiles, int nblk, const uint4 xr[4], float4 xdr, local uint4* xs, local float4* xd) {
  const int lid = get_local_id(0);
  #pragma unroll
  for (int u = 0; u < tiles * NV_GEMM_KB * 32 / NV_GEMM_WG; ++u) {
    const int e = lid + u * NV_GEMM_WG, tile = e / (NV_GEMM_KB * 32), blk = (e / 32) % NV_GEMM_KB;
    if (blk < nblk) xs[(blk * tiles + tile) * 32 + e % 32] = xr[u];
  }
  const int tile = lid / (NV_GEMM_KB * 8), blk = (lid / 8) % NV_GEMM_KB;
  if (lid < tiles * NV_GEMM_KB * 8 && blk < nblk) xd[(blk * tiles + tile) * 8 + lid % 8] = xdr;
}

// Which (weight row, block, 16-byte part) staging unit u of this work-item is. 4-bit weights (one
// part): warp w takes block w % 2 of rows 32 (w / 2) + lane. Q8_0 (two parts): lane bit 0 is the
// part, bits 1-4 the row's low bits. Either way the 32 lanes of a store differ in the bank bits of
// the local layout below (row parity, weight tile within the quad, the rotated word).
inline int3 nv_gemm_w_unit(int words, int u) {
  const int e = get_local_id(0) + u * NV_GEMM_WG;
  if (words == 4) return (int3)(e % 32 + 32 * (e / 64), (e / 32) % 2, 0);
  const int rest = e >> 5;
  return (int3)(((e >> 1) & 15) + 16 * (rest & 3), rest >> 2, e & 1);
}

// Q4_K weights (dtype_id 3, nv_q4_k.cl) are staged as Q4_1 blocks: the run's low or high nibbles
// as the Q4_1 quant word, the sub-block's scale and minimum as its pair (the f32 products are
// exact: 11 bits by 6).
inline uint4 nv_q4k_word(uint4 lo, uint4 hi, int high_nibbles) {
  // A Q4_1 word holds value i in the low nibble of byte i and value 16 + i in its high nibble.
  return high_nibbles ? ((lo >> 4) & 0x0F0F0F0Fu) | (hi & 0xF0F0F0F0u)
                      : (lo & 0x0F0F0F0Fu) | ((hi & 0x0F0F0F0Fu) << 4);
}

inline void nv_gemm_load_w(const global uint4* wq, const global ushort* wsc, int words, int dtype_id, int n0, int N,
                           int nb, int kb0, int nblk, uint4 wr[2], float2* wdr) {
  const int parts = words / 4;
  #pragma unroll
  for (int u = 0; u < parts; ++u) {
    const int3 unit = nv_gemm_w_unit(words, u);
    if (unit.y >= nblk) continue;
    const int row = min(n0 + unit.x, N - 1), b = kb0 + unit.y;
    if (dtype_id == 3) {
      const global uint4* run = wq + ((size_t)row * (nb / 8) + b / 8) * 9 + 1 + (b % 8) / 2 * 2;
      wr[u] = nv_q4k_word(run[0], run[1], b & 1);
    } else {
      wr[u] = wq[((size_t)row * nb + b) * parts + unit.z];
    }
  }
  const int lid = get_local_id(0), n = lid % NV_GEMM_BN, blk = lid / NV_GEMM_BN;
  if (blk < nblk) {
    const int row = min(n0 + n, N - 1), b = kb0 + blk;
    const size_t at = (size_t)row * nb + b;
    const global half* h = (const global half*)wsc;
    if (dtype_id == 3)
      *wdr = nv_q4k_scale(wq + ((size_t)row * (nb / 8) + b / 8) * 9, b % 8);
    else
      *wdr = dtype_id == 1 ? (float2)(vload_half(2 * at, h), vload_half(2 * at + 1, h))
                           : (float2)(vload_half(at, h), 0.0f);
  }
}

inline uint nv_gemm_word(uint4 v, int t) { return t == 0 ? v.x : t == 1 ? v.y : t == 2 ? v.z : v.w; }

// Local layout of a step's weights, row n of the tile = 8 jt + c, jt = 4 jq + j:
//   4-bit: uint [block][jq][c][t][j]             (lane (c, t) reads word t of its row in all 4 tiles)
//   Q8_0:  uint [block][jq][j / 2][c][t][j % 2][p] (word t + 4p: two 16-byte loads for the 4 tiles)
// and (d, m) as float2 [block][jt][c].
inline int nv_gemm_w_index(int words, int blk, int n, int w) {
  const int jt = n / 8, c = n % 8, jq = jt / 4, j = jt % 4;
  if (words == 4) return ((((blk * 2 + jq) * 8 + c) * 4 + w) * 4) + j;
  return (((((blk * 2 + jq) * 2 + j / 2) * 8 + c) * 4 + w % 4) * 4) + (j % 2) * 2 + w / 4;
}

inline void nv_gemm_store_w(int words, int nblk, const uint4 wr[2], float2 wdr, local uint* ws, local float2* wd) {
  #pragma unroll
  for (int u = 0; u < words / 4; ++u) {
    const int3 unit = nv_gemm_w_unit(words, u);
    if (unit.y >= nblk) continue;
    const int rotate = (unit.x >> 1) & 3;
    #pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int t = (k + rotate) & 3;
      ws[nv_gemm_w_index(words, unit.y, unit.x, t + 4 * unit.z)] = nv_gemm_word(wr[u], t);
    }
  }
  const int lid = get_local_id(0), blk = lid / NV_GEMM_BN;
  if (blk < nblk) wd[blk * NV_GEMM_BN + lid % NV_GEMM_BN] = wdr;
}

// ---- Products.

// Output (activation row, weight row) of one integer block product, scaled: x = (d_x, s_x),
// w = (d_w, m_w).
inline float nv_gemm_scale(int dtype_id, int c, float2 x, float2 w) {
  const float f = (float)c;
  if (dtype_id == 0) return w.x * (x.x * f - 8.0f * x.y);
  if (dtype_id == 1 || dtype_id == 3) return w.x * x.x * f + w.y * x.y;
  return w.x * x.x * f;
}

// acc (a C fragment: rows g, g, g + 8, g + 8, columns 2t, 2t + 1, ...) += the integer block
// product c scaled by the activation rows' (d, s) pairs xsc and the weight columns' (d, m) pairs wsc.
inline void nv_gemm_accumulate(float acc[4], int dtype_id, int4 c, float4 xsc, float4 wsc) {
  acc[0] += nv_gemm_scale(dtype_id, c.x, xsc.xy, wsc.xy);
  acc[1] += nv_gemm_scale(dtype_id, c.y, xsc.xy, wsc.zw);
  acc[2] += nv_gemm_scale(dtype_id, c.z, xsc.zw, wsc.xy);
  acc[3] += nv_gemm_scale(dtype_id, c.w, xsc.zw, wsc.zw);
}

// The products of block blk of a stage, added into acc: each of the warp's I activation tiles
// (codes at xs, scales at xd, `tiles` tiles a block) against its jn weight tiles jt0 .. (scales
// wsc). With PTX one tensor-core product a pair of tiles, from the A words of the tile and the
// B words b0 / b1 the caller loaded; without, DOT(tile, r, n) is the integer dot product of row r
// of an activation tile with weight row n in the caller's local layout.
#if defined(NV_PTX) && NV_PTX
#define NV_GEMM_A_WORDS(a, tile) const uint4 a = xs[(blk * tiles + (tile)) * 32 + lane];
#define NV_GEMM_TILE_PRODUCT(DOT, tile, a, j) nv_mma_s8(a, b0[j], b1[j])
#else
#define NV_GEMM_A_WORDS(a, tile)
#define NV_GEMM_TILE_PRODUCT(DOT, tile, a, j)                                                         \
  (int4)(DOT(tile, g, (jt0 + (j)) * 8 + 2 * t), DOT(tile, g, (jt0 + (j)) * 8 + 2 * t + 1),            \
         DOT(tile, g + 8, (jt0 + (j)) * 8 + 2 * t), DOT(tile, g + 8, (jt0 + (j)) * 8 + 2 * t + 1))
#endif
#define NV_GEMM_BLOCK_PRODUCTS(DOT)                                                                   \
  _Pragma("unroll") for (int i = 0; i < I; ++i) {                                                     \
    const int tile = wm * I + i;                                                                      \
    const float4 xsc = xd[(blk * tiles + tile) * 8 + g];                                              \
    NV_GEMM_A_WORDS(a, tile)                                                                          \
    _Pragma("unroll") for (int j = 0; j < jn; ++j)                                                    \
      nv_gemm_accumulate(acc[i][j], dtype_id, NV_GEMM_TILE_PRODUCT(DOT, tile, a, j), xsc, wsc[j]);     \
  }

#if !(defined(NV_PTX) && NV_PTX)
// Word w (k order) of tile-local activation row r (of 16) in tile `tile`, block blk.
inline uint nv_gemm_x_word(local const uint4* xs, int tiles, int blk, int tile, int r, int w) {
  const uint4 v = xs[(blk * tiles + tile) * 32 + (r % 8) * 4 + w % 4];
  return nv_gemm_word(v, r / 8 + 2 * (w / 4));
}

inline int nv_gemm_dot(local const uint4* xs, local const uint* ws, int words, int tiles, int blk, int tile, int r,
                       int n) {
  int s = 0;
  if (words == 4) {
    for (int w = 0; w < 4; ++w) {
      const uint q = ws[nv_gemm_w_index(4, blk, n, w)];
      s = nv_dp4a(q & 0x0F0F0F0Fu, as_int(nv_gemm_x_word(xs, tiles, blk, tile, r, w)), s);
      s = nv_dp4a((q >> 4) & 0x0F0F0F0Fu, as_int(nv_gemm_x_word(xs, tiles, blk, tile, r, w + 4)), s);
    }
  } else {
    for (int w = 0; w < 8; ++w)
      s = nv_dp4a(ws[nv_gemm_w_index(8, blk, n, w)], as_int(nv_gemm_x_word(xs, tiles, blk, tile, r, w)), s);
  }
  return s;
}
#endif

// Accumulates blocks 0 .. nblk - 1 of a staged step into acc[i][j][e] (i < I activation tiles of
// warp row wm, j < 8 / wn_warps weight tiles of warp column wn; e as the C fragment: rows g, g,
// g + 8, g + 8, columns 2t, 2t + 1, 2t, 2t + 1). The 4 warps are 2 x 2 (wn_warps 2: 4 weight
// tiles each) or 1 x 4 (wn_warps 4: one activation tile, 2 weight tiles each).
inline void nv_gemm_step(local const uint4* xs, local const float4* xd, local const uint* ws,
                         local const float2* wd, int dtype_id, int words, int I, int nblk, int wm, int wn,
                         int wn_warps, float acc[4][4][4]) {
  const int lane = get_local_id(0) % 32, g = lane / 4, t = lane % 4, tiles = 2 * I;
  // This warp's weight tiles: jt0 .. jt0 + jn - 1, in quad jq of the local layout from word jw.
  const int jn = 8 / wn_warps, jt0 = wn * jn, jq = jt0 / 4, jw = jt0 % 4;
  local const uint4* ws4 = (local const uint4*)ws;
  local const float4* wd4 = (local const float4*)wd;
  for (int blk = 0; blk < nblk; ++blk) {
    float4 wsc[4];
    #pragma unroll
    for (int j = 0; j < jn; ++j) wsc[j] = wd4[(blk * 8 + jt0 + j) * 4 + t];
#if defined(NV_PTX) && NV_PTX
    uint b0[4], b1[4];
    if (words == 4) {
      const uint4 q = ws4[((blk * 2 + jq) * 8 + g) * 4 + t];
      #pragma unroll
      for (int j = 0; j < jn; ++j) {
        const uint word = nv_gemm_word(q, jw + j);
        b0[j] = word & 0x0F0F0F0Fu;
        b1[j] = (word >> 4) & 0x0F0F0F0Fu;
      }
    } else if (jn == 4) {
      const uint4 q01 = ws4[(((blk * 2 + jq) * 2) * 8 + g) * 4 + t];
      const uint4 q23 = ws4[(((blk * 2 + jq) * 2 + 1) * 8 + g) * 4 + t];
      b0[0] = q01.x, b1[0] = q01.y, b0[1] = q01.z, b1[1] = q01.w;
      b0[2] = q23.x, b1[2] = q23.y, b0[3] = q23.z, b1[3] = q23.w;
    } else {
      const uint4 q = ws4[(((blk * 2 + jq) * 2 + jw / 2) * 8 + g) * 4 + t];
      b0[0] = q.x, b1[0] = q.y, b0[1] = q.z, b1[1] = q.w;
    }
#endif
#define NV_GEMM_STAGED_DOT(tile, r, n) nv_gemm_dot(xs, ws, words, tiles, blk, tile, r, n)
    NV_GEMM_BLOCK_PRODUCTS(NV_GEMM_STAGED_DOT)
#undef NV_GEMM_STAGED_DOT
  }
}

// The K loop over blocks kb_begin .. kb_end - 1 (a multiple of NV_GEMM_KB apart from the end):
// acc += activation rows of tiles mt0 .. mt0 + 2I - 1 times weight rows n0 .. n0 + 63; with dual,
// acc2 += the same rows times the second weight (SwiGLU's up), staged beside the first. xs / xd /
// ws / wd hold two steps (double buffering); ws / wd two weights' worth when dual.
inline void nv_gemm_loop(const global uint4* xq, const global float4* xds, const global uint4* wq,
                         const global ushort* wsc, const global uint4* wq2, const global ushort* wsc2, int dual,
                         int dtype_id, int words, int I, int mt0, int Mt, int n0, int N, int K, int kb_begin,
                         int kb_end, local uint4* xs, local float4* xd, local uint* ws, local float2* wd,
                         float acc[4][4][4], float acc2[4][4][4], int wn_warps) {
  const int warp = get_local_id(0) / 32, wm = warp / wn_warps, wn = warp % wn_warps, tiles = 2 * I, nb = K / 32;
  const int xs_step = NV_GEMM_KB * tiles * 32, xd_step = NV_GEMM_KB * tiles * 8;
  const int ws_set = NV_GEMM_KB * NV_GEMM_BN * words, wd_set = NV_GEMM_KB * NV_GEMM_BN;
  const int sets = dual ? 2 : 1, steps = (kb_end - kb_begin + NV_GEMM_KB - 1) / NV_GEMM_KB;
  uint4 xr[4], wr[2], wr2[2];
  float4 xdr = (float4)(0.0f);
  float2 wdr = (float2)(0.0f), wdr2 = (float2)(0.0f);

  int nblk = min(NV_GEMM_KB, kb_end - kb_begin);
  nv_gemm_load_x(xq, xds, tiles, mt0, Mt, nb, kb_begin, nblk, xr, &xdr);
  nv_gemm_load_w(wq, wsc, words, dtype_id, n0, N, nb, kb_begin, nblk, wr, &wdr);
  if (dual) nv_gemm_load_w(wq2, wsc2, words, dtype_id, n0, N, nb, kb_begin, nblk, wr2, &wdr2);
  nv_gemm_store_x(tiles, nblk, xr, xdr, xs, xd);
  nv_gemm_store_w(words, nblk, wr, wdr, ws, wd);
  if (dual) nv_gemm_store_w(words, nblk, wr2, wdr2, ws + ws_set, wd + wd_set);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 0; s < steps; ++s) {
    const int cur = s & 1, nxt = cur ^ 1, kb1 = kb_begin + (s + 1) * NV_GEMM_KB;
    const int nblk1 = min(NV_GEMM_KB, kb_end - kb1);
    if (s + 1 < steps) {
      nv_gemm_load_x(xq, xds, tiles, mt0, Mt, nb, kb1, nblk1, xr, &xdr);
      nv_gemm_load_w(wq, wsc, words, dtype_id, n0, N, nb, kb1, nblk1, wr, &wdr);
      if (dual) nv_gemm_load_w(wq2, wsc2, words, dtype_id, n0, N, nb, kb1, nblk1, wr2, &wdr2);
    }
    nv_gemm_step(xs + cur * xs_step, xd + cur * xd_step, ws + cur * sets * ws_set, wd + cur * sets * wd_set,
                 dtype_id, words, I, nblk, wm, wn, wn_warps, acc);
    if (dual)
      nv_gemm_step(xs + cur * xs_step, xd + cur * xd_step, ws + (cur * sets + 1) * ws_set,
                   wd + (cur * sets + 1) * wd_set, dtype_id, words, I, nblk, wm, wn, wn_warps, acc2);
    if (s + 1 < steps) {
      nv_gemm_store_x(tiles, nblk1, xr, xdr, xs + nxt * xs_step, xd + nxt * xd_step);
      nv_gemm_store_w(words, nblk1, wr, wdr, ws + nxt * sets * ws_set, wd + nxt * sets * wd_set);
      if (dual)
        nv_gemm_store_w(words, nblk1, wr2, wdr2, ws + (nxt * sets + 1) * ws_set, wd + (nxt * sets + 1) * wd_set);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    nblk = nblk1;
  }
}

// nv_gemm_loop with the global loads of `depth` (D, at most NV_GEMM_SPLIT_DEPTH, a constant of the
// caller) steps in flight instead of one, for the split kernels. A few rows leave a group little
// to multiply per step, so with one step ahead each step waits out a whole memory latency for ~2 KiB
// of weights (0.58 TB/s on the H200 at 16 rows); D steps ahead keep D times the bytes on the way.
// Deeper steps, not wider ones: more blocks per step would grow the double-buffered local memory
// with them, past the 48 KiB an NVIDIA work-group gets for the SwiGLU's two weights (Q8_0 at 4
// blocks, every dtype at 8), and fewer groups would fit a compute unit; here the local memory and
// its bank-conflict-free maps stay those of 2 blocks and the price is D sets of staging registers.
// Set d holds the step s with s % D == d: it is stored to local memory at the end of step s - 1, so
// at the start of step s it takes the loads of step s + D. The loop is unrolled by D so that every
// set is named at compile time (an array indexed at run time would live in memory, not registers).
inline void nv_gemm_loop_deep(const global uint4* xq, const global float4* xds, const global uint4* wq,
                              const global ushort* wsc, const global uint4* wq2, const global ushort* wsc2,
                              int dual, int dtype_id, int words, int I, int mt0, int Mt, int n0, int N, int K,
                              int kb_begin, int kb_end, local uint4* xs, local float4* xd, local uint* ws,
                              local float2* wd, float acc[4][4][4], float acc2[4][4][4], int wn_warps,
                              int depth) {
  const int warp = get_local_id(0) / 32, wm = warp / wn_warps, wn = warp % wn_warps, tiles = 2 * I, nb = K / 32;
  const int xs_step = NV_GEMM_KB * tiles * 32, xd_step = NV_GEMM_KB * tiles * 8;
  const int ws_set = NV_GEMM_KB * NV_GEMM_BN * words, wd_set = NV_GEMM_KB * NV_GEMM_BN;
  const int sets = dual ? 2 : 1, steps = (kb_end - kb_begin + NV_GEMM_KB - 1) / NV_GEMM_KB;
  uint4 xr[NV_GEMM_SPLIT_DEPTH][4], wr[NV_GEMM_SPLIT_DEPTH][2], wr2[NV_GEMM_SPLIT_DEPTH][2];
  float4 xdr[NV_GEMM_SPLIT_DEPTH];
  float2 wdr[NV_GEMM_SPLIT_DEPTH], wdr2[NV_GEMM_SPLIT_DEPTH];

  #pragma unroll
  for (int d = 0; d < depth; ++d) {
    xdr[d] = (float4)(0.0f);
    wdr[d] = wdr2[d] = (float2)(0.0f);
    const int kb = kb_begin + d * NV_GEMM_KB, n = min(NV_GEMM_KB, kb_end - kb);
    if (d < steps) {
      nv_gemm_load_x(xq, xds, tiles, mt0, Mt, nb, kb, n, xr[d], &xdr[d]);
      nv_gemm_load_w(wq, wsc, words, dtype_id, n0, N, nb, kb, n, wr[d], &wdr[d]);
      if (dual) nv_gemm_load_w(wq2, wsc2, words, dtype_id, n0, N, nb, kb, n, wr2[d], &wdr2[d]);
    }
  }
  int nblk = min(NV_GEMM_KB, kb_end - kb_begin);
  nv_gemm_store_x(tiles, nblk, xr[0], xdr[0], xs, xd);
  nv_gemm_store_w(words, nblk, wr[0], wdr[0], ws, wd);
  if (dual) nv_gemm_store_w(words, nblk, wr2[0], wdr2[0], ws + ws_set, wd + wd_set);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s0 = 0; s0 < steps; s0 += depth) {
    #pragma unroll
    for (int d = 0; d < depth; ++d) {
      const int s = s0 + d, cur = s & 1, nxt = cur ^ 1, next = (d + 1) % depth;
      if (s >= steps) break;  // the same for the whole group: no work-item skips a barrier alone
      const int kb_far = kb_begin + (s + depth) * NV_GEMM_KB;
      if (s + depth < steps) {
        const int n = min(NV_GEMM_KB, kb_end - kb_far);
        nv_gemm_load_x(xq, xds, tiles, mt0, Mt, nb, kb_far, n, xr[d], &xdr[d]);
        nv_gemm_load_w(wq, wsc, words, dtype_id, n0, N, nb, kb_far, n, wr[d], &wdr[d]);
        if (dual) nv_gemm_load_w(wq2, wsc2, words, dtype_id, n0, N, nb, kb_far, n, wr2[d], &wdr2[d]);
      }
      nv_gemm_step(xs + cur * xs_step, xd + cur * xd_step, ws + cur * sets * ws_set, wd + cur * sets * wd_set,
                   dtype_id, words, I, nblk, wm, wn, wn_warps, acc);
      if (dual)
        nv_gemm_step(xs + cur * xs_step, xd + cur * xd_step, ws + (cur * sets + 1) * ws_set,
                     wd + (cur * sets + 1) * wd_set, dtype_id, words, I, nblk, wm, wn, wn_warps, acc2);
      const int nblk1 = min(NV_GEMM_KB, kb_end - (kb_begin + (s + 1) * NV_GEMM_KB));
      if (s + 1 < steps) {
        nv_gemm_store_x(tiles, nblk1, xr[next], xdr[next], xs + nxt * xs_step, xd + nxt * xd_step);
        nv_gemm_store_w(words, nblk1, wr[next], wdr[next], ws + nxt * sets * ws_set, wd + nxt * sets * wd_set);
        if (dual)
          nv_gemm_store_w(words, nblk1, wr2[next], wdr2[next], ws + (nxt * sets + 1) * ws_set,
                          wd + (nxt * sets + 1) * wd_set);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      nblk = nblk1;
    }
  }
}

// The split kernels' K loop. The kernels of one activation tile a warp (up to 32 rows) keep
// NV_GEMM_SPLIT_DEPTH steps in flight; those of 2 or 4 tiles one step, as nv_gemm_loop: their
// staging per step is 1.5 or 2.5 times that of one tile and their accumulators 2 or 4 times, so
// deeper they hold fewer groups a compute unit (64 sequences of the 8B shape on the H100, 2 steps:
// 3292-3308 tok/s against 3399-3501 with one).
inline void nv_gemm_split_loop(const global uint4* xq, const global float4* xds, const global uint4* wq,
                               const global ushort* wsc, const global uint4* wq2, const global ushort* wsc2,
                               int dual, int dtype_id, int words, int I, int mt0, int Mt, int n0, int N, int K,
                               int kb_begin, int kb_end, local uint4* xs, local float4* xd, local uint* ws,
                               local float2* wd, float acc[4][4][4], float acc2[4][4][4], int wn_warps) {
#if NV_GEMM_SPLIT_DEPTH > 1
  if (I == 1) {
    nv_gemm_loop_deep(xq, xds, wq, wsc, wq2, wsc2, dual, dtype_id, words, I, mt0, Mt, n0, N, K, kb_begin, kb_end, xs,
                      xd, ws, wd, acc, acc2, wn_warps, NV_GEMM_SPLIT_DEPTH);
    return;
  }
#endif
  nv_gemm_loop(xq, xds, wq, wsc, wq2, wsc2, dual, dtype_id, words, I, mt0, Mt, n0, N, K, kb_begin, kb_end, xs, xd,
               ws, wd, acc, acc2, wn_warps);
}

// A weight's words from byte offset `off` of its buffer (0 for a packed layout; a Q4_K weight's
// place in the file's buffer, a multiple of 16).
inline const global uint4* nv_gemm_at(const global uint4* w, ulong off) {
  return (const global uint4*)((const global uchar*)w + off);
}

// Local memory of a kernel with I activation tiles per warp and SETS weights, two steps. The
// arrays are uint4 / float4 so that 16-byte accesses are aligned (NVIDIA GPUs fault on a
// misaligned vector access).
#define NV_GEMM_LOCALS(I, SETS, WORDS, WN)                                          \
  local uint4 xs[2 * NV_GEMM_KB * 2 * (I) * 32];                                    \
  local float4 xd[2 * NV_GEMM_KB * 2 * (I) * 8];                                    \
  local uint4 ws4[2 * (SETS) * NV_GEMM_KB * NV_GEMM_BN * (WORDS) / 4];             \
  local float4 wd4[2 * (SETS) * NV_GEMM_KB * NV_GEMM_BN / 2];                       \
  NV_GEMM_GROUP(I, WN)

// A work-item's place in a group of I activation tiles a warp and WN warps along the weight rows
// (its lane's fragment coordinates g and t, its warp's tile row wm and column wn, the group's
// first weight row n0 and activation tile mt0), and its accumulators acc, zeroed.
#define NV_GEMM_GROUP(I, WN)                                                        \
  const int lid = get_local_id(0), lane = lid % 32, warp = lid / 32;                \
  const int g = lane / 4, t = lane % 4, wm = warp / (WN), wn = warp % (WN);         \
  const int n0 = get_group_id(0) * NV_GEMM_BN, mt0 = get_group_id(1) * (4 / (WN)) * (I); \
  const int Mt = (M + 15) / 16;                                                     \
  NV_GEMM_ACC(acc)

// float NAME[4][4][4], zeroed: the C fragments of a warp's activation and weight tiles.
#define NV_GEMM_ACC(NAME)                                                           \
  float NAME[4][4][4];                                                              \
  _Pragma("unroll")                                                                 \
  for (int i = 0; i < 4; ++i)                                                       \
    _Pragma("unroll")                                                               \
    for (int j = 0; j < 4; ++j)                                                     \
      _Pragma("unroll")                                                             \
      for (int e = 0; e < 4; ++e) NAME[i][j][e] = 0.0f

// The (activation row, weight row) of accumulator [i][j][e] in dst, WN warps along the weight rows.
#define NV_GEMM_ROW(I, i, e) ((mt0 + wm * (I) + (i)) * 16 + g + ((e) >= 2 ? 8 : 0))
#define NV_GEMM_COL(WN, j, e) (n0 + (wn * (8 / (WN)) + (j)) * 8 + 2 * t + ((e) & 1))

// MUL_MAT, and MUL_MAT_ADD with has_res (dst = product + res; res may be dst: each output is read
// and written by the same work-item). Global size (ceil(N / 64) * 128, ceil(M / (32 I))).
#define NV_GEMM_KERNEL(NAME, DTYPE_ID, WORDS, I)                                                         \
  kernel __attribute__((reqd_work_group_size(NV_GEMM_WG, 1, 1))) void NAME(                             \
      const global uint4* wq, const global ushort* wsc, ulong w_off, const global uint4* xq,              \
      const global float4* xds, const global uchar* res, ulong res_off, int has_res, global uchar* dst,   \
      ulong dst_off, int M, int N, int K) {                                                              \
    NV_GEMM_LOCALS(I, 1, WORDS, 2);                                                                      \
    const global uint4* w = nv_gemm_at(wq, w_off);                                                       \
    nv_gemm_loop(xq, xds, w, wsc, w, wsc, 0, DTYPE_ID, WORDS, I, mt0, Mt, n0, N, K, 0, K / 32, xs, xd,   \
                 (local uint*)ws4, (local float2*)wd4, acc, acc, 2);                                     \
    global float* out = (global float*)(dst + dst_off);                                                 \
    const global float* r = (const global float*)(res + res_off);                                       \
    _Pragma("unroll")                                                                                    \
    for (int i = 0; i < (I); ++i)                                                                        \
      _Pragma("unroll")                                                                                  \
      for (int j = 0; j < 4; ++j)                                                                        \
        _Pragma("unroll")                                                                                \
        for (int e = 0; e < 4; ++e) {                                                                    \
          const int m = NV_GEMM_ROW(I, i, e), n = NV_GEMM_COL(2, j, e);                                  \
          if (m < M && n < N) {                                                                          \
            const size_t at = (size_t)m * N + n;                                                         \
            out[at] = has_res ? acc[i][j][e] + r[at] : acc[i][j][e];                                     \
          }                                                                                              \
        }                                                                                                \
  }

#if !NV_GEMM_HELPERS_ONLY
NV_GEMM_KERNEL(nv_gemm_q4_0, 0, 4, 4)
NV_GEMM_KERNEL(nv_gemm_q4_1, 1, 4, 4)
NV_GEMM_KERNEL(nv_gemm_q8_0, 2, 8, 4)
NV_GEMM_KERNEL(nv_gemm_q4_0_m64, 0, 4, 2)
NV_GEMM_KERNEL(nv_gemm_q4_1_m64, 1, 4, 2)
NV_GEMM_KERNEL(nv_gemm_q8_0_m64, 2, 8, 2)
NV_GEMM_KERNEL(nv_gemm_q4_k, 3, 4, 4)
NV_GEMM_KERNEL(nv_gemm_q4_k_m64, 3, 4, 2)
#endif

// RMS_NORM_MUL_MAT_SWIGLU's product: dst = silu(gate . n) * (up . n) on the quantized normed rows,
// gate and up of one dtype staged side by side, so each activation step serves both.
#define NV_GEMM_SWIGLU_KERNEL(NAME, DTYPE_ID, WORDS, I)                                                  \
  kernel __attribute__((reqd_work_group_size(NV_GEMM_WG, 1, 1))) void NAME(                             \
      const global uint4* gq, const global ushort* gsc, ulong g_off, const global uint4* uq,              \
      const global ushort* usc, ulong u_off, const global uint4* xq, const global float4* xds,           \
      global uchar* dst, ulong dst_off, int M, int N, int K) {                                           \
    NV_GEMM_LOCALS(I, 2, WORDS, 2);                                                                      \
    NV_GEMM_ACC(up);                                                                                     \
    nv_gemm_loop(xq, xds, nv_gemm_at(gq, g_off), gsc, nv_gemm_at(uq, u_off), usc, 1, DTYPE_ID, WORDS, I,  \
                 mt0, Mt, n0, N, K, 0, K / 32, xs, xd,                                                   \
                 (local uint*)ws4, (local float2*)wd4, acc, up, 2);                                      \
    global float* out = (global float*)(dst + dst_off);                                                 \
    _Pragma("unroll")                                                                                    \
    for (int i = 0; i < (I); ++i)                                                                        \
      _Pragma("unroll")                                                                                  \
      for (int j = 0; j < 4; ++j)                                                                        \
        _Pragma("unroll")                                                                                \
        for (int e = 0; e < 4; ++e) {                                                                    \
          const int m = NV_GEMM_ROW(I, i, e), n = NV_GEMM_COL(2, j, e);                                  \
          const float a = acc[i][j][e];                                                                  \
          if (m < M && n < N) out[(size_t)m * N + n] = a / (1.0f + exp(-a)) * up[i][j][e];               \
        }                                                                                                \
  }

#if !NV_GEMM_HELPERS_ONLY
NV_GEMM_SWIGLU_KERNEL(nv_gemm_swiglu_q4_0, 0, 4, 2)
NV_GEMM_SWIGLU_KERNEL(nv_gemm_swiglu_q4_1, 1, 4, 2)
NV_GEMM_SWIGLU_KERNEL(nv_gemm_swiglu_q8_0, 2, 8, 2)
NV_GEMM_SWIGLU_KERNEL(nv_gemm_swiglu_q4_k, 3, 4, 2)
#endif

// A split kernel's arguments: the weight (and the SwiGLU's up weight) as packed, the activation
// codes and scales, the ranges' sums and the tiles' arrival counts, the shape and range length, the
// residual added to the result and the destination.
#define NV_GEMM_SPLIT_PARAMS                                                                             \
  const global uint4 *wq, const global ushort *wsc, ulong w_off, const global uint4 *wq2,                \
      const global ushort *wsc2, ulong w2_off, const global uint4 *xq, const global float4 *xds,         \
      global float *part, volatile global int *arrivals, int M, int N, int K, int per_split,            \
      const global uchar *res, ulong res_off, int has_res, global uchar *dst, ulong dst_off

// The end of a split kernel: its range's sums (acc, and acc2 for the SwiGLU's up weight) to part
// ([split][SETS][M][N]), then the last range of the tile to finish adds them up (nv_split_finish).
#define NV_GEMM_SPLIT_EPILOGUE(I, SETS, WN)                                                              \
  const size_t mn = (size_t)M * N;                                                                       \
  global float* p = part + (size_t)split * (SETS) * mn;                                                  \
  _Pragma("unroll")                                                                                      \
  for (int i = 0; i < (I); ++i)                                                                          \
    _Pragma("unroll")                                                                                    \
    for (int j = 0; j < 8 / (WN); ++j)                                                                   \
      _Pragma("unroll")                                                                                  \
      for (int e = 0; e < 4; ++e) {                                                                      \
        const int m = NV_GEMM_ROW(I, i, e), n = NV_GEMM_COL(WN, j, e);                                   \
        if (m < M && n < N) {                                                                            \
          p[(size_t)m * N + n] = acc[i][j][e];                                                           \
          if ((SETS) == 2) p[mn + (size_t)m * N + n] = acc2[i][j][e];                                    \
        }                                                                                                \
      }                                                                                                  \
  local int last;                                                                                        \
  nv_split_finish(part, arrivals, get_num_groups(2), M, N, (SETS) == 2, res, res_off, has_res, dst, dst_off, \
                  n0, mt0 * 16, 16 * (4 / (WN)) * (I), NV_GEMM_BN, NV_GEMM_WG, &last);

// Split K, for few activation rows: a grid of ceil(N / 64) x ceil(M / 32 I) work-groups walking all
// of K leaves most of a big GPU idle (64 groups for a 4096-row weight on 132 SMs, 131 us at 16 rows
// on the H200), so dimension 2 of the grid cuts K into ranges of per_split blocks (a multiple of
// NV_GEMM_KB), each walked by nv_gemm_split_loop. Each work-group writes its range's sums to part
// ([split][SETS][M][N] floats: the SwiGLU's gate, then up); the last range of a tile to finish adds
// them up (nv_split_finish, nv_ptx.cl).
#define NV_GEMM_SPLIT_KERNEL(NAME, DTYPE_ID, WORDS, I, SETS, WN)                                         \
  kernel __attribute__((reqd_work_group_size(NV_GEMM_WG, 1, 1))) void NAME(                             \
      NV_GEMM_SPLIT_PARAMS) {                                                                            \
    NV_GEMM_LOCALS(I, SETS, WORDS, WN);                                                                  \
    NV_GEMM_ACC(acc2);                                                                                   \
    const int split = get_group_id(2), kb_begin = split * per_split;                                     \
    const int kb_end = min(K / 32, kb_begin + per_split);                                                \
    nv_gemm_split_loop(xq, xds, nv_gemm_at(wq, w_off), wsc, nv_gemm_at(wq2, w2_off), wsc2, (SETS) == 2,   \
                       DTYPE_ID, WORDS, I, mt0, Mt, n0, N, K,                                            \
                       kb_begin, kb_end, xs, xd, (local uint*)ws4, (local float2*)wd4, acc, acc2, WN);    \
    NV_GEMM_SPLIT_EPILOGUE(I, SETS, WN)                                                                  \
  }

#if !NV_GEMM_HELPERS_ONLY
NV_GEMM_SPLIT_KERNEL(nv_gemm_split_q4_0, 0, 4, 4, 1, 2)
NV_GEMM_SPLIT_KERNEL(nv_gemm_split_q4_1, 1, 4, 4, 1, 2)
NV_GEMM_SPLIT_KERNEL(nv_gemm_split_q8_0, 2, 8, 4, 1, 2)
NV_GEMM_SPLIT_KERNEL(nv_gemm_split_q4_0_m64, 0, 4, 2, 1, 2)
NV_GEMM_SPLIT_KERNEL(nv_gemm_split_q4_1_m64, 1, 4, 2, 1, 2)
NV_GEMM_SPLIT_KERNEL(nv_gemm_split_q8_0_m64, 2, 8, 2, 1, 2)
NV_GEMM_SPLIT_KERNEL(nv_gemm_swiglu_split_q4_0, 0, 4, 2, 2, 2)
NV_GEMM_SPLIT_KERNEL(nv_gemm_swiglu_split_q4_1, 1, 4, 2, 2, 2)
NV_GEMM_SPLIT_KERNEL(nv_gemm_swiglu_split_q8_0, 2, 8, 2, 2, 2)
// 32 rows a group (I = 1), for at most 32 activation rows: a decode step of a few sequences pads
// half as many rows as with 64.
NV_GEMM_SPLIT_KERNEL(nv_gemm_split_q4_0_m32, 0, 4, 1, 1, 2)
NV_GEMM_SPLIT_KERNEL(nv_gemm_split_q4_1_m32, 1, 4, 1, 1, 2)
NV_GEMM_SPLIT_KERNEL(nv_gemm_split_q8_0_m32, 2, 8, 1, 1, 2)
NV_GEMM_SPLIT_KERNEL(nv_gemm_swiglu_split_q4_0_m32, 0, 4, 1, 2, 2)
NV_GEMM_SPLIT_KERNEL(nv_gemm_swiglu_split_q4_1_m32, 1, 4, 1, 2, 2)
NV_GEMM_SPLIT_KERNEL(nv_gemm_swiglu_split_q8_0_m32, 2, 8, 1, 2, 2)
// 16 rows a group, for at most 16 activation rows: the 4 warps share one activation tile and take
// 2 weight tiles each, where the 32-row kernels' second warp row multiplies a repeat of the first
// tile (half the products of a 16-row step thrown away).
NV_GEMM_SPLIT_KERNEL(nv_gemm_split_q4_0_m16, 0, 4, 1, 1, 4)
NV_GEMM_SPLIT_KERNEL(nv_gemm_split_q4_1_m16, 1, 4, 1, 1, 4)
NV_GEMM_SPLIT_KERNEL(nv_gemm_split_q8_0_m16, 2, 8, 1, 1, 4)
NV_GEMM_SPLIT_KERNEL(nv_gemm_swiglu_split_q4_0_m16, 0, 4, 1, 2, 4)
NV_GEMM_SPLIT_KERNEL(nv_gemm_swiglu_split_q4_1_m16, 1, 4, 1, 2, 4)
NV_GEMM_SPLIT_KERNEL(nv_gemm_swiglu_split_q8_0_m16, 2, 8, 1, 2, 4)
#endif

