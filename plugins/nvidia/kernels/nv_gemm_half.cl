// GEMM on f16 operands for NVIDIA GPUs (prompt): dst[M, N] = x[M, K] . W[N, K]^T (plus a residual,
// or gate and up weights through SwiGLU) for Q4_0 / Q4_1 / Q8_0 weights in the packed layout of
// plugins/common (packed_weight.hpp), or Q4_K weights in the file's own super-blocks read in place
// (dtype_id 3: nv_q4_k.cl), for batches beyond a few dozen rows.
//
// The 8-bit GEMM (nv_gemm.cl) must scale every 16 x 8 integer product by its two block scales
// before it can add it up: a dozen float instructions per tensor-core instruction, which bound it
// to a fraction of the tensor cores' rate. Here the weights are decoded to f16 as they are staged
// (value = quant times scale, rounded once) and the activations are rounded to f16 once per row, so
// the products of a whole row accumulate in the tensor cores' f32 registers with nothing between
// them. f16 keeps 11 bits of each operand where the 8-bit path keeps 8 of the activations.
//
// Two launches. nv_half_rows writes every activation row (through the RMSNorm when asked) as f16.
// Then a work-group of 2 x NW warps computes 32 I activation rows by 64 NW staged weight rows,
// stepping through K one quant block (32 values) at a time, double-buffered: the next block's
// loads are in flight while this one multiplies, one barrier a step. Both operands sit in local
// memory as rows of 32 halves padded to 40, so that the 8 rows of a fragment load fall in
// different banks. Warp w takes rows 16 I (w / NW) .. by staged rows 64 (w % NW) ..: per block
// I x 8 tiles of 16 x 8, two k-steps of 16 each (mma.sync m16n8k16, f16 in, f32 accumulate; the
// PTX ISA's fragment layout: lane l, g = l / 4, t = l % 4 holds A rows g and g + 8 at k = 2t,
// 2t + 1 and 2t + 8, 2t + 9, B column g at the same k, C rows g and g + 8 at columns 2t, 2t + 1).
// A warp tile of 64 x 64 reads 128 bytes of local memory per tensor-core instruction where one of
// 64 x 32 read 192: the fragment reads, not the arithmetic, bound the smaller tile (one SM's local
// memory moves 128 bytes a cycle). The activation rows are loaded a block ahead into registers and
// the fragments read by 32-bit loads. Built with NV_ASYNC=1, the activation rows (which need no
// decoding) would go to local memory by cp.async and the fragments come by ldmatrix (one
// instruction for four 8 x 8 matrices instead of four 32-bit loads each); the host does not build
// it so yet (nv_gemm_half.cpp: NV_PTX only), so that form is checked by the strict compiles alone,
// never run on a GPU.
//
// The kernels: _m128 (I = 4, NW = 2) for prompts; _n64_m128 (NW = 1: half the weight rows, so
// twice the groups with the same weight decoding per product; the host's option, slower than
// splitting K where it was measured); _m64 and _m32 (I = 2, 1) for a few dozen rows. Where even those leave the
// GPU idle the host splits K into ranges summed by the last group of a tile to finish
// (nv_split_finish). The SwiGLU kernel stages 32 gate and the same 32 up rows per warp, so that
// each warp holds both products of its 32 output columns. Without PTX every work-item computes
// the same outputs from local memory in plain OpenCL C (a spoofed NVIDIA identity elsewhere). The
// loops over tiles are unrolled (#pragma unroll) so that every accumulator is indexed by a
// constant and lives in a register: a rolled loop puts the arrays in local memory (clang's NVPTX
// back end, with ptxas -v, shows 352 bytes of stack and no unrolling without the pragmas).
// clport-requires: nv_ptx.cl
// clport-requires: nv_q4_k.cl

// A work-group is 2 x NW warps (NW = 1 or 2 along the weight rows): 64 NW work-items, 64 NW staged
// weight rows, 32 I activation rows (I = 1, 2 or 4 row tiles of 16 a warp).
#define NV_HG_WG(NW) (64 * (NW))
#define NV_HG_RS 40   // halves a staged row: one block of 32, 8 of padding
#define NV_HG_RW (NV_HG_RS / 2)   // the same in 32-bit words
#define NV_HG_RV (NV_HG_RS / 8)   // and in 16-byte words
#define NV_HG_ROWS_WG 256         // nv_half_rows' work-group

// Step 1: one work-group per activation row: y = x (or RMSNorm(x) * g) rounded to f16, rows of K.
kernel __attribute__((reqd_work_group_size(NV_HG_ROWS_WG, 1, 1))) void nv_half_rows(
    const global uchar* x, ulong x_off, const global uchar* g, ulong g_off, int norm, float eps, int K,
    global half* xh) {
  local float red[NV_HG_ROWS_WG];
  const int m = get_group_id(0), lid = get_local_id(0);
  const global float* xr = (const global float*)(x + x_off) + (size_t)m * K;
  const global float* gr = (const global float*)(g + g_off);
  const float scale = norm ? nv_row_rms_scale(xr, K, eps, red, NV_HG_ROWS_WG) : 1.0f;
  global half* out = xh + (size_t)m * K;
  for (int i = lid; i < K / 4; i += NV_HG_ROWS_WG) {
    const float4 v = norm ? vload4(i, xr) * scale * vload4(i, gr) : vload4(i, xr);
    vstore_half4_rte(v, i, out);
  }
}

// The global row of staged weight row n of a group whose first output column is n0: with one
// weight, row n0 + n; with SwiGLU's two, warp half n / 64 holds 32 gate rows, then the same 32
// rows of up (*set 0 or 1) for output columns n0 + 32 (n / 64) ...
inline int nv_hg_weight_row(int sets, int n0, int n, int* set) {
  if (sets == 1) {
    *set = 0;
    return n0 + n;
  }
  const int j = (n % 64) / 8;
  *set = j / 4;
  return n0 + 32 * (n / 64) + 8 * (j % 4) + n % 8;
}

// This work-item's share of one block of activations of a tile of 32 I rows: rows e / 4 of
// e = lid + 64 NW u (u < 2 I / NW), 16 bytes (8 values) at part e % 4, bound for the stage xs. Under NV_ASYNC cp.async copies them
// there (they land by the next nv_async_wait); otherwise they are loaded into xr now and stored by
// nv_hg_land_x after this step's products. Rows past M repeat the last one: their outputs are never
// stored.
inline void nv_hg_fetch_x(const global uint4* xh, int I, int NW, int m0, int M, int K, int kb, local uint4* xs,
                          uint4 xr[8]) {
  const int lid = get_local_id(0);
  #pragma unroll
  for (int u = 0; u < 2 * I / NW; ++u) {
    const int e = lid + u * NV_HG_WG(NW), row = min(m0 + e / 4, M - 1);
    const global uint4* src = xh + (size_t)row * (K / 8) + kb * 4 + e % 4;
#if defined(NV_ASYNC) && NV_ASYNC
    nv_copy16_async(xs + (e / 4) * NV_HG_RV + e % 4, src);
#else
    xr[u] = *src;
#endif
  }
  nv_async_commit();
}

inline void nv_hg_land_x(const uint4 xr[8], int I, int NW, local uint4* xs) {
#if !(defined(NV_ASYNC) && NV_ASYNC)
  const int lid = get_local_id(0);
  #pragma unroll
  for (int u = 0; u < 2 * I / NW; ++u) {
    const int e = lid + u * NV_HG_WG(NW);
    xs[(e / 4) * NV_HG_RV + e % 4] = xr[u];
  }
#endif
}

// (lo, hi) as f16x2 bits, lo in the low half, each rounded to nearest.
#if defined(NV_PTX) && NV_PTX
inline uint nv_hg_pack(float lo, float hi) {
  uint d;
  __asm__("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));  // the first source goes high
  return d;
}
#else
inline uint nv_hg_pack(float lo, float hi) {
  ushort p[2];
  vstore_half_rte(lo, 0, (half*)p);
  vstore_half_rte(hi, 1, (half*)p);
  return (uint)p[0] | ((uint)p[1] << 16);
}
#endif

// Share u (0 or 1) of this work-item's weights: staged row e / 2 of e = lid + 64 NW u and half h =
// e % 2 of its block (values 16 h .. 16 h + 15): the quant words (all 16 bytes of a 4-bit block, the half's 16 of Q8_0) and the
// scales (wd.x: the f16 bits of d, and m above them for Q4_1). Rows past N repeat the last one.
// Q4_K: the half's 16 values in the low nibbles of the word, wd the f32 bits of the sub-block's
// scale d sc and minimum -dmin m: each value is rounded to f16 once. (Rounding the pair to f16
// instead put one error on all 32 values of a block, which add up: 8 times Q4_0's NMSE.)
inline void nv_hg_load_w(const global uint4* wq, const global ushort* wsc, const global uint4* wq2,
                         const global ushort* wsc2, int dtype_id, int sets, int NW, int n0, int N, int nb, int kb,
                         int u, uint4* wr, uint2* wd) {
  const int e = get_local_id(0) + u * NV_HG_WG(NW);
  int set;
  const int row = min(nv_hg_weight_row(sets, n0, e / 2, &set), N - 1);
  const global uint4* q = set == 0 ? wq : wq2;
  const global ushort* s = set == 0 ? wsc : wsc2;
  if (dtype_id == 3) {
    // Values 16 h .. of block kb are word h of its super-block's run kb % 8 / 2, in the low
    // nibbles for an even block, the high ones for an odd one.
    const global uint4* super_block = q + ((size_t)row * (nb / 8) + kb / 8) * 9;
    const uint4 run_word = super_block[1 + (kb % 8) / 2 * 2 + e % 2];
    *wr = (kb & 1 ? run_word >> 4 : run_word) & 0x0F0F0F0Fu;
    *wd = as_uint2(nv_q4k_scale(super_block, kb % 8));
    return;
  }
  const size_t at = (size_t)row * nb + kb;
  *wr = dtype_id == 2 ? q[at * 2 + e % 2] : q[at];
  *wd = (uint2)(dtype_id == 1 ? (uint)s[2 * at] | ((uint)s[2 * at + 1] << 16) : (uint)s[at], 0u);
}

inline uint nv_hg_word(uint4 v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

#if defined(NV_PTX) && NV_PTX
inline uint nv_prmt(uint a, uint b, uint select) {
  uint d;
  __asm__("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(select));
  return d;
}
inline uint nv_hsub2(uint a, uint b) {
  uint d;
  __asm__("sub.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
inline uint nv_hmul2(uint a, uint b) {
  uint d;
  __asm__("mul.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
inline uint nv_hfma2(uint a, uint b, uint c) {
  uint d;
  __asm__("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

// Quant bytes 2i, 2i + 1 as the f16x2 of their values, on f16 pairs: a byte's code c (0 .. 255)
// becomes the f16 1024 + c by taking it as the mantissa of 0x6400, an exact integer, from which
// the code's offset subtracts exactly; one rounding, in the scale's product, as in float.
inline uint nv_hg_pair(int dtype_id, uint4 wr, int i, int high, uint d2, uint m2) {
  // Bytes 2i and 2i + 1 into the low bytes of the two halves.
  const uint x = nv_prmt(nv_hg_word(wr, i / 2), 0u, i % 2 == 0 ? 0x4140u : 0x4342u);
  if (dtype_id == 2) return nv_hmul2(nv_hsub2((x ^ 0x00800080u) | 0x64006400u, 0x64806480u), d2);  // 1024 + 128
  const uint q = ((high ? x >> 4 : x) & 0x000F000Fu) | 0x64006400u;
  if (dtype_id == 0) return nv_hmul2(nv_hsub2(q, 0x64086408u), d2);  // 1024 + 8
  return nv_hfma2(nv_hsub2(q, 0x64006400u), d2, m2);
}
#else

// f16 bits as a float.
inline float nv_hg_half(uint bits) {
  const ushort b = (ushort)bits;
  return vload_half(0, (const half*)&b);
}

// The weight value of quant byte b (its low or high nibble for 4 bits: k = b or 16 + b).
inline float nv_hg_value(int dtype_id, uint b, int high, uint wd) {
  const float d = nv_hg_half(wd);
  if (dtype_id == 2) return (float)(char)b * d;
  const float q = (float)(high ? b >> 4 : b & 0x0Fu);
  return dtype_id == 0 ? (q - 8.0f) * d : q * d + nv_hg_half(wd >> 16);
}

inline uint nv_hg_pair(int dtype_id, uint4 wr, int i, int high, uint wd) {
  const uint w = nv_hg_word(wr, i / 2), b0 = (w >> (16 * (i % 2))) & 0xFFu, b1 = (w >> (16 * (i % 2) + 8)) & 0xFFu;
  return nv_hg_pack(nv_hg_value(dtype_id, b0, high, wd), nv_hg_value(dtype_id, b1, high, wd));
}
#endif

// Decodes share u's 16 values to f16 and stores them at k = 16 h .. of its staged row.
// 4-bit: bytes 0 .. 15 carry k = 0 .. 15 (low nibbles) and 16 .. 31 (high); Q8_0: the half's bytes;
// Q4_K: its half's values in the low nibbles (nv_hg_load_w), each d sc q - dmin m in f32.
inline void nv_hg_store_w(int dtype_id, int NW, int u, uint4 wr, uint2 wd, local uint4* ws) {
  const int e = get_local_id(0) + u * NV_HG_WG(NW), h = e % 2;
  uint p[8];
  if (dtype_id == 3) {
    const float2 sm = as_float2(wd);
    #pragma unroll
    for (int i = 0; i < 8; ++i) {
      const uint w = nv_hg_word(wr, i / 2) >> (16 * (i % 2));
      p[i] = nv_hg_pack(fma((float)(w & 0xFu), sm.x, sm.y), fma((float)((w >> 8) & 0xFu), sm.x, sm.y));
    }
  } else {
    const uint bits = wd.x;
#if defined(NV_PTX) && NV_PTX
    const uint d2 = (bits & 0xFFFFu) * 0x10001u, m2 = (bits >> 16) * 0x10001u;
#endif
    #pragma unroll
    for (int i = 0; i < 8; ++i) {
#if defined(NV_PTX) && NV_PTX
      p[i] = nv_hg_pair(dtype_id, wr, i, h, d2, m2);
#else
      p[i] = nv_hg_pair(dtype_id, wr, i, h, bits);
#endif
    }
  }
  local uint4* row = ws + (e / 2) * NV_HG_RV + 2 * h;
  row[0] = (uint4)(p[0], p[1], p[2], p[3]);
  row[1] = (uint4)(p[4], p[5], p[6], p[7]);
}

// acc[i][j] += the staged block's product for warp tile (wm, wn) of I row tiles: activation rows
// 16 (I wm + i) .., staged weight rows 64 wn + 8 j ...
inline void nv_hg_step(local const uint4* xs, local const uint4* ws, int I, int wm, int wn, float4 acc[4][8]) {
  const int lane = get_local_id(0) % 32, g = lane / 4, t = lane % 4;
  #pragma unroll
  for (int ks = 0; ks < 2; ++ks) {
#if defined(NV_PTX) && NV_PTX
    uint b0[8], b1[8];
#if defined(NV_ASYNC) && NV_ASYNC
    // Lane l gives the row of matrix q = l / 8: B tiles j, j + 1 at k halves 0 and 1; A's rows
    // 0-7 and 8-15 at k halves 0 and 1.
    const int q = lane / 8;
    #pragma unroll
    for (int j = 0; j < 8; j += 2) {
      const uint4 b = nv_ldmatrix_x4(ws + (64 * wn + 8 * (j + q / 2) + lane % 8) * NV_HG_RV + 2 * ks + q % 2);
      b0[j] = b.x;
      b1[j] = b.y;
      b0[j + 1] = b.z;
      b1[j + 1] = b.w;
    }
#else
    local const uint* ww = (local const uint*)ws;
    #pragma unroll
    for (int j = 0; j < 8; ++j) {
      local const uint* wrow = ww + (64 * wn + 8 * j + g) * NV_HG_RW + 8 * ks + t;
      b0[j] = wrow[0];
      b1[j] = wrow[4];
    }
#endif
    #pragma unroll
    for (int i = 0; i < I; ++i) {
#if defined(NV_ASYNC) && NV_ASYNC
      const uint4 a = nv_ldmatrix_x4(xs + (16 * (I * wm + i) + 8 * (q % 2) + lane % 8) * NV_HG_RV + 2 * ks + q / 2);
#else
      local const uint* r0 = (local const uint*)xs + (16 * (I * wm + i) + g) * NV_HG_RW + 8 * ks + t;
      local const uint* r1 = r0 + 8 * NV_HG_RW;
      const uint4 a = (uint4)(r0[0], r1[0], r0[4], r1[4]);
#endif
      #pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = nv_mma_f16(a, b0[j], b1[j], acc[i][j]);
    }
#else
    local const half* xh = (local const half*)xs;
    local const half* wh = (local const half*)ws;
    #pragma unroll
    for (int i = 0; i < I; ++i)
      #pragma unroll
      for (int j = 0; j < 8; ++j)
        #pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int r = 16 * (I * wm + i) + g + (e >= 2 ? 8 : 0), n = 64 * wn + 8 * j + 2 * t + (e & 1);
          float s = 0.0f;
          for (int k = 16 * ks; k < 16 * ks + 16; ++k) s += vload_half(r * NV_HG_RS + k, xh) * vload_half(n * NV_HG_RS + k, wh);
          if (e == 0) acc[i][j].x += s;
          else if (e == 1) acc[i][j].y += s;
          else if (e == 2) acc[i][j].z += s;
          else acc[i][j].w += s;
        }
#endif
  }
}

// The K loop over blocks kb_begin .. kb_end - 1: acc = activation rows m0 .. m0 + 32 I - 1 times the
// group's 64 NW staged weight rows.
inline void nv_hg_loop(const global uint4* wq, const global ushort* wsc, const global uint4* wq2,
                       const global ushort* wsc2, const global uint4* xh, int dtype_id, int sets, int I, int NW,
                       int m0, int M, int n0, int N, int K, int kb_begin, int kb_end, local uint4* xs,
                       local uint4* ws, float4 acc[4][8]) {
  const int warp = get_local_id(0) / 32, wm = warp / NW, wn = warp % NW, nb = K / 32;
  const int x_stage = 32 * I * NV_HG_RV, w_stage = 64 * NW * NV_HG_RV;
  #pragma unroll
  for (int i = 0; i < 4; ++i)
    #pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = (float4)(0.0f);
  uint4 xr[8], wr[2];
  uint2 wd[2];
  nv_hg_fetch_x(xh, I, NW, m0, M, K, kb_begin, xs, xr);
  nv_hg_land_x(xr, I, NW, xs);
  #pragma unroll
  for (int u = 0; u < 2; ++u) {
    nv_hg_load_w(wq, wsc, wq2, wsc2, dtype_id, sets, NW, n0, N, nb, kb_begin, u, &wr[u], &wd[u]);
    nv_hg_store_w(dtype_id, NW, u, wr[u], wd[u], ws);
  }
  nv_async_wait(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int kb = kb_begin; kb < kb_end; ++kb) {
    const int cur = (kb - kb_begin) & 1, nxt = cur ^ 1;
    if (kb + 1 < kb_end) {
      nv_hg_fetch_x(xh, I, NW, m0, M, K, kb + 1, xs + nxt * x_stage, xr);
      #pragma unroll
      for (int u = 0; u < 2; ++u)
        nv_hg_load_w(wq, wsc, wq2, wsc2, dtype_id, sets, NW, n0, N, nb, kb + 1, u, &wr[u], &wd[u]);
    }
    nv_hg_step(xs + cur * x_stage, ws + cur * w_stage, I, wm, wn, acc);
    if (kb + 1 < kb_end) {
      nv_hg_land_x(xr, I, NW, xs + nxt * x_stage);
      #pragma unroll
      for (int u = 0; u < 2; ++u) nv_hg_store_w(dtype_id, NW, u, wr[u], wd[u], ws + nxt * w_stage);
    }
    nv_async_wait(0);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

inline float nv_hg_elem(float4 v, int e) { return e == 0 ? v.x : e == 1 ? v.y : e == 2 ? v.z : v.w; }

#define NV_HG_LOCALS(I, NW)                                                 \
  local uint4 xs[2 * 32 * (I) * NV_HG_RV];                                  \
  local uint4 ws[2 * 64 * (NW) * NV_HG_RV];                                 \
  local int last;                                                           \
  const int lid = get_local_id(0), lane = lid % 32, warp = lid / 32;        \
  const int g = lane / 4, t = lane % 4, wm = warp / (NW), wn = warp % (NW); \
  const int m0 = get_group_id(0) * 32 * (I);                                \
  const int splits = get_num_groups(2), kb_begin = get_group_id(2) * per_split; \
  const int kb_end = min(K / 32, kb_begin + per_split);                     \
  float4 acc[4][8]

// Output element e of tile (i, j) of this work-item, and the row and column it goes to.
#define NV_HG_ROW(I, i, e) (m0 + 16 * ((I) * wm + (i)) + g + ((e) >= 2 ? 8 : 0))

// A weight's words from byte offset `off` of its buffer (0 for a packed layout; a Q4_K weight's
// own offset).
#define NV_WORDS_AT(w, off) ((const global uint4*)((const global uchar*)(w) + (off)))

// MUL_MAT, and MUL_MAT_ADD with has_res (dst = product + res; res may be dst: each output is read
// and written by the same work-item), on tiles of 32 I activation rows by 64 NW weight rows. Global
// size (ceil(M / 32 I) * 64 NW, ceil(N / 64 NW), splits): the groups of one weight tile run side by
// side and share it through the L2 cache. With splits > 1 (too few tiles for the GPU), group z walks K blocks
// z per_split .. and writes its sums to part ([split][M][N] floats); the last of a tile's ranges to
// finish adds them up (nv_split_finish).
#define NV_HG_KERNEL(NAME, DTYPE_ID, I, NW)                                                               \
  kernel __attribute__((reqd_work_group_size(NV_HG_WG(NW), 1, 1))) void NAME(                           \
      const global uint4* w, const global ushort* wsc, ulong w_off, const global uint4* xh,              \
      const global uchar* res, ulong res_off, int has_res, global uchar* dst, ulong dst_off, int M, int N, \
      int K, global float* part, volatile global int* arrivals, int per_split) {                         \
    NV_HG_LOCALS(I, NW);                                                                                  \
    const int n0 = get_group_id(1) * 64 * (NW);                                                          \
    const global uint4* wq = NV_WORDS_AT(w, w_off);                                                      \
    nv_hg_loop(wq, wsc, wq, wsc, xh, DTYPE_ID, 1, I, NW, m0, M, n0, N, K, kb_begin, kb_end, xs, ws, acc); \
    global float* out = splits > 1 ? part + (size_t)get_group_id(2) * M * N : (global float*)(dst + dst_off); \
    const global float* r = (const global float*)(res + res_off);                                       \
    _Pragma("unroll")                                                                                    \
    for (int i = 0; i < (I); ++i)                                                                        \
      _Pragma("unroll")                                                                                  \
      for (int j = 0; j < 8; ++j)                                                                        \
        _Pragma("unroll")                                                                                \
        for (int e = 0; e < 4; ++e) {                                                                    \
          const int m = NV_HG_ROW(I, i, e), n = n0 + 64 * wn + 8 * j + 2 * t + (e & 1);                  \
          if (m < M && n < N) {                                                                          \
            const size_t at = (size_t)m * N + n;                                                         \
            const float v = nv_hg_elem(acc[i][j], e);                                                    \
            out[at] = has_res && splits == 1 ? v + r[at] : v;                                            \
          }                                                                                              \
        }                                                                                                \
    if (splits > 1)                                                                                      \
      nv_split_finish(part, arrivals, splits, M, N, 0, res, res_off, has_res, dst, dst_off, n0, m0, 32 * (I), \
                      64 * (NW), NV_HG_WG(NW), &last);                                                   \
  }

NV_HG_KERNEL(nv_gemm_half_q4_0_m128, 0, 4, 2)
NV_HG_KERNEL(nv_gemm_half_q4_1_m128, 1, 4, 2)
NV_HG_KERNEL(nv_gemm_half_q8_0_m128, 2, 4, 2)
NV_HG_KERNEL(nv_gemm_half_q4_k_m128, 3, 4, 2)
NV_HG_KERNEL(nv_gemm_half_q4_0_m64, 0, 2, 2)
NV_HG_KERNEL(nv_gemm_half_q4_1_m64, 1, 2, 2)
NV_HG_KERNEL(nv_gemm_half_q8_0_m64, 2, 2, 2)
NV_HG_KERNEL(nv_gemm_half_q4_k_m64, 3, 2, 2)
NV_HG_KERNEL(nv_gemm_half_q4_0_m32, 0, 1, 2)
NV_HG_KERNEL(nv_gemm_half_q4_1_m32, 1, 1, 2)
NV_HG_KERNEL(nv_gemm_half_q8_0_m32, 2, 1, 2)
NV_HG_KERNEL(nv_gemm_half_q4_k_m32, 3, 1, 2)
NV_HG_KERNEL(nv_gemm_half_q4_0_n64_m128, 0, 4, 1)
NV_HG_KERNEL(nv_gemm_half_q4_1_n64_m128, 1, 4, 1)
NV_HG_KERNEL(nv_gemm_half_q8_0_n64_m128, 2, 4, 1)
NV_HG_KERNEL(nv_gemm_half_q4_k_n64_m128, 3, 4, 1)

// RMS_NORM_MUL_MAT_SWIGLU's product: dst = silu(gate . n) * (up . n), 32 NW output columns a group
// (tiles j = 0 .. 3 of a warp are gate, 4 .. 7 the same columns of up). Global size
// (ceil(M / 32 I) * 64 NW, ceil(N / 32 NW), splits); split as above, part holding [split][2][M][N].
#define NV_HG_SWIGLU_KERNEL(NAME, DTYPE_ID, I, NW)                                                        \
  kernel __attribute__((reqd_work_group_size(NV_HG_WG(NW), 1, 1))) void NAME(                           \
      const global uint4* gate, const global ushort* gsc, ulong gate_off, const global uint4* up,         \
      const global ushort* usc, ulong up_off, const global uint4* xh, global uchar* dst, ulong dst_off,   \
      int M, int N, int K, global float* part, volatile global int* arrivals, int per_split) {           \
    NV_HG_LOCALS(I, NW);                                                                                  \
    const int n0 = get_group_id(1) * 32 * (NW);                                                          \
    nv_hg_loop(NV_WORDS_AT(gate, gate_off), gsc, NV_WORDS_AT(up, up_off), usc, xh, DTYPE_ID, 2, I, NW, m0, M, \
               n0, N, K, kb_begin, kb_end, xs, ws, acc);                                                  \
    const size_t mn = (size_t)M * N;                                                                     \
    global float* p = part + (size_t)get_group_id(2) * 2 * mn;                                          \
    global float* out = (global float*)(dst + dst_off);                                                 \
    _Pragma("unroll")                                                                                    \
    for (int i = 0; i < (I); ++i)                                                                        \
      _Pragma("unroll")                                                                                  \
      for (int j = 0; j < 4; ++j)                                                                        \
        _Pragma("unroll")                                                                                \
        for (int e = 0; e < 4; ++e) {                                                                    \
          const int m = NV_HG_ROW(I, i, e), n = n0 + 32 * wn + 8 * j + 2 * t + (e & 1);                  \
          const float a = nv_hg_elem(acc[i][j], e), u = nv_hg_elem(acc[i][j + 4], e);                    \
          if (m < M && n < N) {                                                                          \
            const size_t at = (size_t)m * N + n;                                                         \
            if (splits > 1) {                                                                            \
              p[at] = a;                                                                                 \
              p[mn + at] = u;                                                                            \
            } else {                                                                                     \
              out[at] = a / (1.0f + exp(-a)) * u;                                                        \
            }                                                                                            \
          }                                                                                              \
        }                                                                                                \
    if (splits > 1)                                                                                      \
      nv_split_finish(part, arrivals, splits, M, N, 1, dst, dst_off, 0, dst, dst_off, n0, m0, 32 * (I),  \
                      32 * (NW), NV_HG_WG(NW), &last);                                                   \
  }

NV_HG_SWIGLU_KERNEL(nv_gemm_half_swiglu_q4_0_m128, 0, 4, 2)
NV_HG_SWIGLU_KERNEL(nv_gemm_half_swiglu_q4_1_m128, 1, 4, 2)
NV_HG_SWIGLU_KERNEL(nv_gemm_half_swiglu_q8_0_m128, 2, 4, 2)
NV_HG_SWIGLU_KERNEL(nv_gemm_half_swiglu_q4_k_m128, 3, 4, 2)
NV_HG_SWIGLU_KERNEL(nv_gemm_half_swiglu_q4_0_m64, 0, 2, 2)
NV_HG_SWIGLU_KERNEL(nv_gemm_half_swiglu_q4_1_m64, 1, 2, 2)
NV_HG_SWIGLU_KERNEL(nv_gemm_half_swiglu_q8_0_m64, 2, 2, 2)
NV_HG_SWIGLU_KERNEL(nv_gemm_half_swiglu_q4_k_m64, 3, 2, 2)
NV_HG_SWIGLU_KERNEL(nv_gemm_half_swiglu_q4_0_m32, 0, 1, 2)
NV_HG_SWIGLU_KERNEL(nv_gemm_half_swiglu_q4_1_m32, 1, 1, 2)
NV_HG_SWIGLU_KERNEL(nv_gemm_half_swiglu_q8_0_m32, 2, 1, 2)
NV_HG_SWIGLU_KERNEL(nv_gemm_half_swiglu_q4_k_m32, 3, 1, 2)
NV_HG_SWIGLU_KERNEL(nv_gemm_half_swiglu_q4_0_n64_m128, 0, 4, 1)
NV_HG_SWIGLU_KERNEL(nv_gemm_half_swiglu_q4_1_n64_m128, 1, 4, 1)
NV_HG_SWIGLU_KERNEL(nv_gemm_half_swiglu_q8_0_n64_m128, 2, 4, 1)
NV_HG_SWIGLU_KERNEL(nv_gemm_half_swiglu_q4_k_n64_m128, 3, 4, 1)
