// The split-K GEMM of a decode step of several sequences (16 to 64 activation rows), with its
// operands staged by asynchronous copies in a ring of NV_GEMM_STAGES steps: the same products,
// tiles and K ranges as nv_gemm.cl's split kernels, but the loads of several steps are in flight
// at once without holding registers.
//
// nv_gemm.cl's split kernels stage each step through registers (global -> registers -> local
// memory, rearranged on the way), so the steps they keep in flight cost registers: one step ahead,
// a group of 16 rows has about 2 KiB of weights on the way and the GEMM read its weights at about
// 0.6 TB/s on the H200; two steps ahead gained 5% and four lost, the SwiGLU kernel past 160
// registers. Here every 16-byte piece of a step goes straight from global to local memory
// (cp.async, where the driver's probe passed; a plain copy otherwise, which is what runs under a
// spoofed identity), in the global layout's order, so NV_GEMM_STAGES - 1 steps are on the way at
// the cost of local memory only.
//
// A step is NV_GA_KB blocks of 32 values along K (NV_GA_KB_SWIGLU in the SwiGLU kernels; the
// host's nv_gemm_async_blocks and nv_gemm_async_swiglu_blocks). The packed layout keeps a row's
// blocks together, so a step reads a run of 16 bytes a block from each of the group's 64 weight
// rows (twice that for Q8_0): longer steps, longer runs, in fewer and larger stages of the ring.
//
// Local layout of one stage:
//  - activation codes and scales as nv_gemm.cl stages them, uint4 [block][tile][lane] and float4
//    [block][tile][g] (the global layout is [tile][block][...], so each piece lands in place);
//  - weight quants as in the packed layout, one 16-byte word (two for Q8_0) per (block, row):
//    uint4 [block][row][part], Q8_0's two parts swapped on rows whose bit 2 is set, so that a
//    warp's reads of word t of rows g (8 of them) fall in 32 different banks;
//  - weight scales as the packed layout holds them, a row's blocks of the step together: the f16
//    bits of d (Q4_0, Q8_0: 2 bytes a block) or of d and m (Q4_1: 4 bytes a block).
// A lane reads its B operand (word t of its weight row) with a 32-bit load per weight tile; the
// products and the scaling are nv_gemm.cl's, in the same order, so a row's sums are those of the
// register-staged kernels.
//
// Needs nv_gemm.cl in front (its products, scales, activation words and the split epilogue).
// clport-requires: nv_gemm.cl

// Steps in the ring (the host's nv_gemm_split_stages), fewer where they would not fit NV_GA_LOCAL.
#ifndef NV_GEMM_STAGES
#define NV_GEMM_STAGES 4
#endif
#if NV_GEMM_STAGES < 2 || NV_GEMM_STAGES > 8
#error "NV_GEMM_STAGES must be 2 .. 8"
#endif
// Blocks of 32 values a step of the plain and of the SwiGLU kernels (the host's
// nv_gemm_async_blocks and nv_gemm_async_swiglu_blocks).
#ifndef NV_GA_KB
#define NV_GA_KB 2
#endif
#ifndef NV_GA_KB_SWIGLU
#define NV_GA_KB_SWIGLU 2
#endif
#if (NV_GA_KB != 2 && NV_GA_KB != 4 && NV_GA_KB != 8) || \
    (NV_GA_KB_SWIGLU != 2 && NV_GA_KB_SWIGLU != 4 && NV_GA_KB_SWIGLU != 8)
#error "NV_GA_KB and NV_GA_KB_SWIGLU must be 2, 4 or 8"
#endif
#define NV_GA_KB_MAX (NV_GA_KB > NV_GA_KB_SWIGLU ? NV_GA_KB : NV_GA_KB_SWIGLU)
// 16-byte words of local memory a ring may take: 44 KiB of the 48 an NVIDIA work-group gets.
#define NV_GA_LOCAL 2816


// Waits until at most stages - 2 of this work-item's committed steps are in flight, that is until
// the oldest of them has landed (cp.async.wait_group takes a literal; `stages` is a constant of
// each kernel, so one branch remains).
inline void nv_gemm_wait_oldest(int stages) {
  if (stages <= 2)
    nv_async_wait(0);
  else if (stages == 3)
    nv_async_wait(1);
  else if (stages == 4)
    nv_async_wait(2);
  else if (stages == 5)
    nv_async_wait(3);
  else if (stages == 6)
    nv_async_wait(4);
  else if (stages == 7)
    nv_async_wait(5);
  else
    nv_async_wait(6);
}

// Two f16 values (the low half first) as floats.
inline float2 nv_f16_pair(uint v) {
#if defined(NV_PTX) && NV_PTX
  return nv_f16x2_to_float2(v);
#else
  return vload_half2(0, (const private half*)&v);
#endif
}

// One stage's sizes in 16-byte words: activation codes and scales for `tiles` 16-row tiles,
// weight quants and scales of SETS weights of `words` quant words a block, kb blocks a step.
#define NV_GA_XS(tiles, kb) ((kb) * (tiles) * 32)
#define NV_GA_XD(tiles, kb) ((kb) * (tiles) * 8)
#define NV_GA_WQ(words, kb) ((kb) * NV_GEMM_BN * (words) / 4)
// 32-bit scale words of a weight row in a stage: two f16 d a word, or one (d, m) pair.
#define NV_GA_ROW_SCALES(dtype_id, kb) ((dtype_id) == 1 ? (kb) : (kb) / 2)
#define NV_GA_WS(dtype_id, kb) (NV_GEMM_BN * NV_GA_ROW_SCALES(dtype_id, kb) / 4)
#define NV_GA_STAGE(tiles, words, dtype_id, sets, kb) \
  (NV_GA_XS(tiles, kb) + NV_GA_XD(tiles, kb) + (sets) * (NV_GA_WQ(words, kb) + NV_GA_WS(dtype_id, kb)))
// A kernel's blocks a step: its setting (NV_GA_KB, or NV_GA_KB_SWIGLU for SETS 2), or half or a
// quarter of it where two steps of it would not fit NV_GA_LOCAL (64 rows of both SwiGLU weights in
// Q8_0, say); the host's ranges are whole steps of the setting, so whole steps of these too.
#define NV_GA_SET_KB(sets) ((sets) == 2 ? NV_GA_KB_SWIGLU : NV_GA_KB)
#define NV_GA_FITS(tiles, words, dtype_id, sets, kb) (2 * NV_GA_STAGE(tiles, words, dtype_id, sets, kb) <= NV_GA_LOCAL)
#define NV_GA_STEP_KB(tiles, words, dtype_id, sets)                                                    \
  (NV_GA_FITS(tiles, words, dtype_id, sets, NV_GA_SET_KB(sets))       ? NV_GA_SET_KB(sets)           \
   : NV_GA_SET_KB(sets) > 2 && NV_GA_FITS(tiles, words, dtype_id, sets, NV_GA_SET_KB(sets) / 2)    \
       ? NV_GA_SET_KB(sets) / 2                                                                      \
       : 2)
// Steps in a kernel's ring: NV_GEMM_STAGES, or as many as NV_GA_LOCAL holds (at least 2).
#define NV_GA_FIT(stage) (NV_GA_LOCAL / (stage) < 2 ? 2 : NV_GA_LOCAL / (stage))
#define NV_GA_STAGES(stage) (NV_GEMM_STAGES < NV_GA_FIT(stage) ? NV_GEMM_STAGES : NV_GA_FIT(stage))

// Starts the copies of the step at blocks kb .. kb + step_kb - 1 into `stage`: tiles mt0 .. of the
// codes (past Mt the last tile again), rows n0 .. n0 + 63 of each weight (past N the last row
// again). Every work-item then commits a group, copies or not, so that the groups count steps
// alike.
inline void nv_gemm_async_stage(const global uint4* xq, const global float4* xds, const global uint4* wq,
                                const global ushort* wsc, const global uint4* wq2, const global ushort* wsc2,
                                int sets, int dtype_id, int words, int tiles, int mt0, int Mt, int n0, int N, int nb,
                                int kb, int step_kb, local uint4* stage) {
  const int lid = get_local_id(0), parts = words / 4;
  local uint4* xs = stage;
  local uint4* xd = xs + NV_GA_XS(tiles, step_kb);
  // Codes: global [tile][block][lane], local [block][tile][lane].
  for (int e = lid; e < NV_GA_XS(tiles, step_kb); e += NV_GEMM_WG) {
    const int tile = e / (step_kb * 32), blk = (e / 32) % step_kb;
    nv_copy16_async(xs + (blk * tiles + tile) * 32 + e % 32,
                    xq + ((size_t)min(mt0 + tile, Mt - 1) * nb + kb + blk) * 32 + e % 32);
  }
  for (int e = lid; e < NV_GA_XD(tiles, step_kb); e += NV_GEMM_WG) {
    const int tile = e / (step_kb * 8), blk = (e / 8) % step_kb;
    nv_copy16_async(xd + (blk * tiles + tile) * 8 + e % 8,
                    (const global uint4*)xds + ((size_t)min(mt0 + tile, Mt - 1) * nb + kb + blk) * 8 + e % 8);
  }
  local uint4* w = xd + NV_GA_XD(tiles, step_kb);
  for (int set = 0; set < sets; ++set) {
    const global uint4* q = set == 0 ? wq : wq2;
    const global ushort* s = set == 0 ? wsc : wsc2;
    // Quants: global [row][block][part], local [block][row][part ^ swap].
    for (int e = lid; e < NV_GA_WQ(words, step_kb); e += NV_GEMM_WG) {
      const int p = e % parts, blk = (e / parts) % step_kb, n = e / (parts * step_kb);
      const int row = min(n0 + n, N - 1), swap = parts == 2 ? (n >> 2) & 1 : 0;
      nv_copy16_async(w + (blk * NV_GEMM_BN + n) * parts + (p ^ swap), q + ((size_t)row * nb + kb + blk) * parts + p);
    }
    local uint4* ws = w + NV_GA_WQ(words, step_kb);
    // Scales: a row's blocks of the step, NV_GA_ROW_SCALES words, in copies of at most 16 bytes.
    const int row_words = NV_GA_ROW_SCALES(dtype_id, step_kb), copy_words = min(row_words, 4);
    const int copies = NV_GEMM_BN * row_words / copy_words;
    for (int e = lid; e < copies; e += NV_GEMM_WG) {
      const int n = e / (row_words / copy_words), part = e % (row_words / copy_words);
      const size_t halves = ((size_t)min(n0 + n, N - 1) * nb + kb) * (dtype_id == 1 ? 2 : 1);
      const global uint* from = (const global uint*)(s + halves) + part * copy_words;
      local uint* to = (local uint*)ws + n * row_words + part * copy_words;
      if (copy_words == 4)
        nv_copy16_async((local uint4*)to, (const global uint4*)from);
      else if (copy_words == 2)
        nv_copy8_async((local uint2*)to, (const global uint2*)from);
      else
        nv_copy4_async(to, from);
    }
    w = ws + NV_GA_WS(dtype_id, step_kb);
  }
  nv_async_commit();
}

// The scale words of rows n and n + 1 (n even) of a stage, all blocks of the step: row n's
// NV_GA_ROW_SCALES words, then row n + 1's, in vector loads (which a lane makes once per weight
// tile and step). 2 * NV_GA_KB_MAX words hold them all.
inline void nv_gemm_async_wscale_words(local const uint4* ws, int dtype_id, int step_kb, int n,
                                       uint words[2 * NV_GA_KB_MAX]) {
  const int pair = 2 * NV_GA_ROW_SCALES(dtype_id, step_kb);
  local const uint* u = (local const uint*)ws + n * NV_GA_ROW_SCALES(dtype_id, step_kb);
  if (pair == 2) {
    const uint2 v = *(local const uint2*)u;
    words[0] = v.x;
    words[1] = v.y;
  } else {
    #pragma unroll
    for (int q = 0; q < 2 * NV_GA_KB_MAX / 4; ++q) {
      if (4 * q >= pair) break;
      const uint4 v = ((local const uint4*)u)[q];
      words[4 * q] = v.x;
      words[4 * q + 1] = v.y;
      words[4 * q + 2] = v.z;
      words[4 * q + 3] = v.w;
    }
  }
}

// (d, m) of rows n and n + 1 for block blk of the step, from their scale words.
inline float4 nv_gemm_async_wscales(const uint words[2 * NV_GA_KB_MAX], int dtype_id, int step_kb, int blk) {
  const int rw = NV_GA_ROW_SCALES(dtype_id, step_kb);
  if (dtype_id == 1) return (float4)(nv_f16_pair(words[blk]), nv_f16_pair(words[rw + blk]));
  const float2 a = nv_f16_pair(words[blk / 2]), b = nv_f16_pair(words[rw + blk / 2]);
  return (float4)(blk % 2 ? a.y : a.x, 0.0f, blk % 2 ? b.y : b.x, 0.0f);
}

// Word w (k order: 0..3 the low halves' codes, 4..7 the high halves') of weight row n, block blk.
inline uint nv_gemm_async_wword(local const uint4* wqs, int words, int blk, int n, int w) {
  local const uint* u = (local const uint*)wqs;
  if (words == 4) {
    const uint q = u[(blk * NV_GEMM_BN + n) * 4 + w % 4];
    return w < 4 ? q & 0x0F0F0F0Fu : (q >> 4) & 0x0F0F0F0Fu;
  }
  const int swap = (n >> 2) & 1;
  return u[((blk * NV_GEMM_BN + n) * 2 + ((w / 4) ^ swap)) * 4 + w % 4];
}

#if !(defined(NV_PTX) && NV_PTX)
inline int nv_gemm_async_dot(local const uint4* xs, local const uint4* wqs, int words, int tiles, int blk, int tile,
                             int r, int n) {
  int s = 0;
  for (int w = 0; w < 8; ++w)
    s = nv_dp4a(nv_gemm_async_wword(wqs, words, blk, n, w), as_int(nv_gemm_x_word(xs, tiles, blk, tile, r, w)), s);
  return s;
}
#endif

// Accumulates a stage's step_kb blocks into acc as nv_gemm_step does (same fragments, same order).
inline void nv_gemm_async_step(local const uint4* stage, local const uint4* wqs, local const uint4* ws, int dtype_id,
                               int words, int step_kb, int I, int tiles, int wm, int wn, int wn_warps,
                               float acc[4][4][4]) {
  const int lane = get_local_id(0) % 32, g = lane / 4, t = lane % 4;
  local const uint4* xs = stage;
  local const float4* xd = (local const float4*)(stage + NV_GA_XS(tiles, step_kb));
  const int jn = 8 / wn_warps, jt0 = wn * jn;
  uint scale_words[4][2 * NV_GA_KB_MAX];
  #pragma unroll
  for (int j = 0; j < jn; ++j) nv_gemm_async_wscale_words(ws, dtype_id, step_kb, (jt0 + j) * 8 + 2 * t, scale_words[j]);
  #pragma unroll
  for (int blk = 0; blk < step_kb; ++blk) {
    float4 wsc[4];
    #pragma unroll
    for (int j = 0; j < jn; ++j) wsc[j] = nv_gemm_async_wscales(scale_words[j], dtype_id, step_kb, blk);
#if defined(NV_PTX) && NV_PTX
    uint b0[4], b1[4];
    #pragma unroll
    for (int j = 0; j < jn; ++j) {
      const int n = (jt0 + j) * 8 + g;
      b0[j] = nv_gemm_async_wword(wqs, words, blk, n, t);
      b1[j] = nv_gemm_async_wword(wqs, words, blk, n, t + 4);
    }
#endif
#define NV_GEMM_ASYNC_DOT(tile, r, n) nv_gemm_async_dot(xs, wqs, words, tiles, blk, tile, r, n)
    NV_GEMM_BLOCK_PRODUCTS(NV_GEMM_ASYNC_DOT)
#undef NV_GEMM_ASYNC_DOT
  }
}

// The K loop over blocks kb_begin .. kb_end - 1 (whole steps: the host takes this kernel only where
// K / 32 and every range are multiples of its setting, so of step_kb): step s lives in ring slot
// s % stages. Step s waits for its own copies, meets the group at a barrier (everyone's copies of
// step s landed; everyone is done with step s - 1, whose slot the copies started next reuse),
// starts the copies of step s + stages - 1 and multiplies step s.
inline void nv_gemm_async_loop(const global uint4* xq, const global float4* xds, const global uint4* wq,
                               const global ushort* wsc, const global uint4* wq2, const global ushort* wsc2,
                               int sets, int dtype_id, int words, int I, int tiles, int mt0, int Mt, int n0, int N,
                               int K, int kb_begin, int kb_end, local uint4* ring, int step_kb, int stages,
                               float acc[4][4][4], float acc2[4][4][4], int wn_warps) {
  const int warp = get_local_id(0) / 32, wm = warp / wn_warps, wn = warp % wn_warps, nb = K / 32;
  const int stage_words = NV_GA_STAGE(tiles, words, dtype_id, sets, step_kb);
  const int steps = (kb_end - kb_begin) / step_kb;
  for (int s = 0; s < stages - 1; ++s) {
    if (s < steps)
      nv_gemm_async_stage(xq, xds, wq, wsc, wq2, wsc2, sets, dtype_id, words, tiles, mt0, Mt, n0, N, nb,
                          kb_begin + s * step_kb, step_kb, ring + s * stage_words);
    else
      nv_async_commit();
  }
  for (int s = 0; s < steps; ++s) {
    nv_gemm_wait_oldest(stages);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int ahead = s + stages - 1;
    if (ahead < steps)
      nv_gemm_async_stage(xq, xds, wq, wsc, wq2, wsc2, sets, dtype_id, words, tiles, mt0, Mt, n0, N, nb,
                          kb_begin + ahead * step_kb, step_kb, ring + (ahead % stages) * stage_words);
    else
      nv_async_commit();
    local const uint4* stage = ring + (s % stages) * stage_words;
    local const uint4* w = stage + NV_GA_XS(tiles, step_kb) + NV_GA_XD(tiles, step_kb);
    nv_gemm_async_step(stage, w, w + NV_GA_WQ(words, step_kb), dtype_id, words, step_kb, I, tiles, wm, wn, wn_warps,
                       acc);
    if (sets == 2) {
      w += NV_GA_WQ(words, step_kb) + NV_GA_WS(dtype_id, step_kb);
      nv_gemm_async_step(stage, w, w + NV_GA_WQ(words, step_kb), dtype_id, words, step_kb, I, tiles, wm, wn, wn_warps,
                         acc2);
    }
  }
  nv_async_wait(0);
}

// As NV_GEMM_SPLIT_KERNEL (nv_gemm.cl), for the packed layout's dtypes (Q4_0 0, Q4_1 1, Q8_0 2):
// I activation tiles a warp, SETS weights, WN warps along the weight rows, (4 / WN) I tiles a group.
// The kernel's stage: TILES activation tiles, KB blocks a step (NV_GA_STEP_KB).
#define NV_GA_KERNEL_STAGE(TILES, WORDS, DTYPE_ID, SETS) \
  NV_GA_STAGE(TILES, WORDS, DTYPE_ID, SETS, NV_GA_STEP_KB(TILES, WORDS, DTYPE_ID, SETS))
#define NV_GEMM_ASYNC_KERNEL(NAME, DTYPE_ID, WORDS, I, SETS, WN)                                           \
  kernel __attribute__((reqd_work_group_size(NV_GEMM_WG, 1, 1))) void NAME(                               \
      NV_GEMM_SPLIT_PARAMS) {                                                                              \
    local uint4 ring[NV_GA_STAGES(NV_GA_KERNEL_STAGE((4 / (WN)) * (I), WORDS, DTYPE_ID, SETS)) *           \
                     NV_GA_KERNEL_STAGE((4 / (WN)) * (I), WORDS, DTYPE_ID, SETS)];                         \
    NV_GEMM_GROUP(I, WN);                                                                                  \
    NV_GEMM_ACC(acc2);                                                                                     \
    const int split = get_group_id(2), kb_begin = split * per_split;                                       \
    const int kb_end = min(K / 32, kb_begin + per_split);                                                  \
    nv_gemm_async_loop(xq, xds, nv_gemm_at(wq, w_off), wsc, nv_gemm_at(wq2, w2_off), wsc2, SETS, DTYPE_ID,   \
                       WORDS, I, (4 / (WN)) * (I), mt0, Mt, n0, N, K, kb_begin, kb_end, ring,              \
                       NV_GA_STEP_KB((4 / (WN)) * (I), WORDS, DTYPE_ID, SETS),                             \
                       NV_GA_STAGES(NV_GA_KERNEL_STAGE((4 / (WN)) * (I), WORDS, DTYPE_ID, SETS)), acc, acc2, WN); \
    NV_GEMM_SPLIT_EPILOGUE(I, SETS, WN)                                                                    \
  }

// 64 rows a group (2 x 2 warps of 2 tiles; the SwiGLU's two weights too), 32 (2 x 2 warps of one
// tile) and 16 (1 x 4 warps sharing one tile), as nv_gemm.cl's split kernels.
#define NV_GEMM_ASYNC_KERNELS(DT, DTYPE_ID, WORDS)                                           \
  NV_GEMM_ASYNC_KERNEL(nv_gemm_split_async_##DT##_m64, DTYPE_ID, WORDS, 2, 1, 2)             \
  NV_GEMM_ASYNC_KERNEL(nv_gemm_split_async_##DT##_m32, DTYPE_ID, WORDS, 1, 1, 2)             \
  NV_GEMM_ASYNC_KERNEL(nv_gemm_split_async_##DT##_m16, DTYPE_ID, WORDS, 1, 1, 4)             \
  NV_GEMM_ASYNC_KERNEL(nv_gemm_swiglu_split_async_##DT##_m64, DTYPE_ID, WORDS, 2, 2, 2)      \
  NV_GEMM_ASYNC_KERNEL(nv_gemm_swiglu_split_async_##DT##_m32, DTYPE_ID, WORDS, 1, 2, 2)      \
  NV_GEMM_ASYNC_KERNEL(nv_gemm_swiglu_split_async_##DT##_m16, DTYPE_ID, WORDS, 1, 2, 4)
NV_GEMM_ASYNC_KERNELS(q4_0, 0, 4)
NV_GEMM_ASYNC_KERNELS(q4_1, 1, 4)
NV_GEMM_ASYNC_KERNELS(q8_0, 2, 8)
