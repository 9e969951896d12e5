// Prompt attention on the tensor cores (NVIDIA, inline PTX): ATTENTION and ROPE_ATTENTION over an
// F16 KV cache for a batch of query tokens, with the semantics of kernels/attention.cl (causal from
// n_past, sliding window, grouped-query heads, q rotated here when n_rot > 0). Needs rope_math.cl in
// front; built only where the driver takes inline PTX (nv_attention.cl is the plain-C form).
//
// A work-group of 8 warps takes 128 consecutive query tokens of one head, a warp 16 of them; it walks
// the keys in tiles of 32, staged for the 8 warps in local memory (rows of keys and of values, each
// padded by 16 bytes so that the 8 rows of a fragment load meet in no bank). With NV_ASYNC the
// next tile's rows are copied by cp.async while this one is multiplied, and the fragments are read
// by ldmatrix (the values transposed by it); otherwise by plain loads and 32-bit local loads. Per
// tile a warp computes its 16 x 32 scores with mma.sync m16n8k16 (f16 in, f32 accumulate),
// rescales its running maximum and output once (online softmax, each lane keeping its own part of
// the row sums), and adds probabilities times values with the same instruction, the scores' C
// fragments becoming the A fragments of the second product in registers. A warp whose tokens see
// none of a tile's keys (causal, or outside a sliding window) skips its products. 128 tokens a
// group halve the key and value rows each group reads from L2 against 64.
//
// A query rounded to f16 moves every score by up to 2^-11 of |q| |k|, which the exponent turns into
// errors beyond the conformance bound on attention (NMSE 1e-6 against float) for large scores: each
// query goes in as two f16 parts, hi = f16(v) and lo = f16(v - hi), and is multiplied twice, which
// carries 22 bits of it. The probabilities (at most 1, after the running maximum) go in as one f16
// each: their relative rounding of at most 2^-11 costs an NMSE of about 4e-8 (random rows of 40 to
// 1000 keys, head sizes 64 to 256). The keys and values are f16 already (the cache), so they go in
// exactly.
//
// NV_ATT_HD: head size, a multiple of 16 up to 128 (compiled per model).
// clport-requires: nv_ptx.cl
// clport-requires: nv_attention.cl

#if defined(NV_PTX) && NV_PTX

#define NV_AMMA_WG 256
#define NV_AMMA_BQ 128                    // query tokens a work-group
#define NV_AMMA_BK 32                     // keys a tile
#define NV_AMMA_RS (NV_ATT_HD + 8)        // halves a staged key or value row
#define NV_AMMA_QSTRIDE (NV_ATT_HD + 4)   // floats a staged query row
#define NV_AMMA_TILE (NV_AMMA_BK * NV_AMMA_RS)  // halves a staged key (or value) tile
#define NV_AMMA_STAGES_BYTES (2 * 2 * NV_AMMA_TILE * 2)
#define NV_AMMA_QUERY_BYTES (NV_AMMA_BQ / 2 * NV_AMMA_QSTRIDE * 4)  // half the group's queries at once

// The maximum / sum over the 4 lanes of one fragment row (lanes 4g .. 4g + 3).
inline float nv_amma_row_max(float v) {
  v = fmax(v, nv_shfl_xor(v, 1));
  return fmax(v, nv_shfl_xor(v, 2));
}

inline float nv_amma_row_sum(float v) {
  v += nv_shfl_xor(v, 1);
  return v + nv_shfl_xor(v, 2);
}

// Halves d, d + 1 of staged row r as one word.
inline uint nv_amma_word(local const ushort* tile, int r, int d) {
  return *(local const uint*)(tile + r * NV_AMMA_RS + d);
}

// Starts copying keys (or values) j0 .. j0 + 31 into a staged tile; keys past hi repeat row hi (a
// written row: its scores are masked, and its finite values are multiplied by zero).
inline void nv_amma_copy_tile(const global uchar* base, ulong kv_nb2, int j0, int hi, local ushort* tile) {
  for (int e = get_local_id(0); e < NV_AMMA_BK * NV_ATT_HD / 8; e += NV_AMMA_WG) {
    const int key = e / (NV_ATT_HD / 8), d8 = e % (NV_ATT_HD / 8);
    nv_copy16_async((local uint4*)(tile + key * NV_AMMA_RS + 8 * d8),
                    (const global uint4*)(base + (size_t)min(j0 + key, hi) * kv_nb2 + 16 * d8));
  }
}

// The B fragments of key tiles (r0 / 8, r0 / 8 + 1) for dims 16c ..: (.x, .y) the first's, (.z, .w)
// the second's.
inline uint4 nv_amma_frag_k(local const ushort* ks, int r0, int c) {
  const int lane = get_local_id(0) % 32;
#if defined(NV_ASYNC) && NV_ASYNC
  const int q = lane / 8;
  return nv_ldmatrix_x4((local const uint4*)(ks + (r0 + 8 * (q / 2) + lane % 8) * NV_AMMA_RS + 16 * c + 8 * (q % 2)));
#else
  const int g = lane / 4, t = lane % 4, d = 16 * c + 2 * t;
  return (uint4)(nv_amma_word(ks, r0 + g, d), nv_amma_word(ks, r0 + g, d + 8), nv_amma_word(ks, r0 + 8 + g, d),
                 nv_amma_word(ks, r0 + 8 + g, d + 8));
#endif
}

// The B fragments of the value product for keys 16 kc .. 16 kc + 15 and dim tiles (n, n + 1):
// (.x, .y) tile n's, (.z, .w) tile n + 1's.
inline uint4 nv_amma_frag_v(local const ushort* vs, int kc, int n) {
  const int lane = get_local_id(0) % 32;
#if defined(NV_ASYNC) && NV_ASYNC
  const int q = lane / 8;
  return nv_ldmatrix_x4_trans((local const uint4*)(vs + (16 * kc + 8 * (q % 2) + lane % 8) * NV_AMMA_RS + 8 * (n + q / 2)));
#else
  const int g = lane / 4, t = lane % 4;
  uint w[4];
  #pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int key = 16 * kc + 8 * (i % 2) + 2 * t, d = 8 * (n + i / 2) + g;
    w[i] = (uint)vs[key * NV_AMMA_RS + d] | ((uint)vs[(key + 1) * NV_AMMA_RS + d] << 16);
  }
  return (uint4)(w[0], w[1], w[2], w[3]);
#endif
}

// Global size (NV_AMMA_WG * n_head, ceil(n_tokens / NV_AMMA_BQ)); arguments as nv_attention.cl's.
kernel __attribute__((reqd_work_group_size(NV_AMMA_WG, 1, 1))) void nv_attention_mma_f16(
    const global uchar* q, ulong q_off, ulong q_nb1, ulong q_nb2, const global uchar* k, ulong k_off,
    const global uchar* v, ulong v_off, ulong kv_nb1, ulong kv_nb2, global uchar* out, ulong out_off, int n_tokens,
    int n_head, int n_kv_head, int n_past, float scale, int n_rot, int neox, float freq_base, float freq_scale,
    const global uchar* ff, ulong ff_off, int has_ff, int window) {
  // Half the rotated queries at a time, then (the same memory) two stages of key and value tiles.
  local uint4 area[(NV_AMMA_QUERY_BYTES > NV_AMMA_STAGES_BYTES ? NV_AMMA_QUERY_BYTES : NV_AMMA_STAGES_BYTES) / 16];
  local float* qs = (local float*)area;
  local ushort* stages = (local ushort*)area;  // stage s: keys at 2s tiles, values after them
  const int h = get_group_id(0), lid = get_local_id(0), t0 = get_group_id(1) * NV_AMMA_BQ;
  const int lane = lid % 32, warp = lid / 32, g = lane / 4, tq = lane % 4;
  const int kvh = h / (n_head / n_kv_head);

  // This warp's query A fragments, k chunk c = dims 16c .. 16c + 15, hi and lo parts. The queries
  // are staged (rows past the batch repeat the last token) and rotated 64 rows at a time, for warps
  // 0 .. 3 and then 4 .. 7.
  uint4 qh[NV_ATT_HD / 16], ql[NV_ATT_HD / 16];
  for (int half_rows = 0; half_rows < 2; ++half_rows) {
    const int r_base = t0 + half_rows * (NV_AMMA_BQ / 2);
    if (half_rows > 0) barrier(CLK_LOCAL_MEM_FENCE);  // the first half's fragments are read
    for (int e = lid; e < NV_AMMA_BQ / 2 * NV_ATT_HD / 4; e += NV_AMMA_WG) {
      const int r = e / (NV_ATT_HD / 4), d4 = e % (NV_ATT_HD / 4), tok = min(r_base + r, n_tokens - 1);
      const float4 x = vload4(d4, (const global float*)(q + q_off + h * q_nb1 + (size_t)tok * q_nb2));
      vstore4(x, 0, qs + r * NV_AMMA_QSTRIDE + 4 * d4);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int e = lid; e < NV_AMMA_BQ / 2 * (n_rot / 2); e += NV_AMMA_WG) {
      const int r = e / (n_rot / 2), i = e % (n_rot / 2), tok = min(r_base + r, n_tokens - 1);
      const int2 p = rope_pair(i, n_rot, neox);
      local float* row = qs + r * NV_AMMA_QSTRIDE;
      const float2 rot = rope_rotate(row[p.x], row[p.y], rope_cos_sin(i, n_past + tok, n_rot, freq_base, freq_scale,
                                                                       rope_factor(ff, ff_off, has_ff, i)));
      row[p.x] = rot.x;
      row[p.y] = rot.y;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (warp / 4 == half_rows) {
      local const float* r0 = qs + ((warp % 4) * 16 + g) * NV_AMMA_QSTRIDE;
      local const float* r1 = r0 + 8 * NV_AMMA_QSTRIDE;
      #pragma unroll
      for (int c = 0; c < NV_ATT_HD / 16; ++c) {
        const int d = 16 * c + 2 * tq;
        const uint2 a0 = nv_f16x2_split(r0[d], r0[d + 1]), a1 = nv_f16x2_split(r1[d], r1[d + 1]);
        const uint2 a2 = nv_f16x2_split(r0[d + 8], r0[d + 9]), a3 = nv_f16x2_split(r1[d + 8], r1[d + 9]);
        qh[c] = (uint4)(a0.x, a1.x, a2.x, a3.x);
        ql[c] = (uint4)(a0.y, a1.y, a2.y, a3.y);
      }
    }
  }

  // Rows g and g + 8 of this warp: their tokens, and the keys each may see [first, last]; the
  // warp's own keys span [warp_first, warp_last] (none past the batch), the group's [lo, hi].
  const int tok0 = t0 + warp * 16 + g, tok1 = tok0 + 8;
  const int last0 = n_past + tok0, last1 = n_past + tok1;
  const int first0 = window > 0 ? max(0, last0 + 1 - window) : 0;
  const int first1 = window > 0 ? max(0, last1 + 1 - window) : 0;
  const int warp_last = t0 + warp * 16 < n_tokens ? n_past + min(t0 + warp * 16 + 15, n_tokens - 1) : -1;
  const int warp_first = window > 0 ? max(0, n_past + t0 + warp * 16 + 1 - window) : 0;
  const int t_hi = min(t0 + NV_AMMA_BQ, n_tokens) - 1;
  const int lo = window > 0 ? max(0, n_past + t0 + 1 - window) : 0, hi = n_past + t_hi;
  const global uchar* kbase = k + k_off + (size_t)kvh * kv_nb1;
  const global uchar* vbase = v + v_off + (size_t)kvh * kv_nb1;

  // Scores in base 2 (scaled by log2 e), so that each exponential is one ex2.approx: the
  // library's exp costs several instructions more, issued by the same warps as the tensor-core
  // products. ex2.approx's relative error (about 2^-22) is far below the f16 rounding of the
  // probabilities.
  const float scale2 = scale * M_LOG2E_F;
  float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.0f, l1 = 0.0f;
  float4 o[NV_ATT_HD / 8];
  #pragma unroll
  for (int n = 0; n < NV_ATT_HD / 8; ++n) o[n] = (float4)(0.0f);

  barrier(CLK_LOCAL_MEM_FENCE);  // the queries are no longer read: the stages take their memory
  nv_amma_copy_tile(kbase, kv_nb2, lo, hi, stages);
  nv_amma_copy_tile(vbase, kv_nb2, lo, hi, stages + NV_AMMA_TILE);
  nv_async_commit();
  for (int j0 = lo, stage = 0; j0 <= hi; j0 += NV_AMMA_BK, stage ^= 1) {
    nv_async_wait(0);  // this tile's copies have landed
    barrier(CLK_LOCAL_MEM_FENCE);  // everyone's have, and the other stage's tile is no longer read
    if (j0 + NV_AMMA_BK <= hi) {
      local ushort* next = stages + (stage ^ 1) * 2 * NV_AMMA_TILE;
      nv_amma_copy_tile(kbase, kv_nb2, j0 + NV_AMMA_BK, hi, next);
      nv_amma_copy_tile(vbase, kv_nb2, j0 + NV_AMMA_BK, hi, next + NV_AMMA_TILE);
    }
    nv_async_commit();
    if (j0 > warp_last || j0 + NV_AMMA_BK - 1 < warp_first) continue;
    local const ushort* ks = stages + stage * 2 * NV_AMMA_TILE;
    local const ushort* vs = ks + NV_AMMA_TILE;

    // Scores of 4 tiles of 8 keys: s[n] = rows (g, g, g + 8, g + 8) x keys 8n + (2tq, 2tq + 1, 2tq, 2tq + 1).
    float4 s[4];
    #pragma unroll
    for (int n = 0; n < 4; ++n) s[n] = (float4)(0.0f);
    #pragma unroll
    for (int c = 0; c < NV_ATT_HD / 16; ++c) {
      #pragma unroll
      for (int pair = 0; pair < 2; ++pair) {
        const uint4 b = nv_amma_frag_k(ks, 16 * pair, c);
        s[2 * pair] = nv_mma_f16(qh[c], b.x, b.y, s[2 * pair]);
        s[2 * pair] = nv_mma_f16(ql[c], b.x, b.y, s[2 * pair]);
        s[2 * pair + 1] = nv_mma_f16(qh[c], b.z, b.w, s[2 * pair + 1]);
        s[2 * pair + 1] = nv_mma_f16(ql[c], b.z, b.w, s[2 * pair + 1]);
      }
    }
    #pragma unroll
    for (int n = 0; n < 4; ++n) {
      const int j = j0 + 8 * n + 2 * tq;
      float4 acc = s[n] * scale2;
      acc.x = j >= first0 && j <= last0 ? acc.x : -INFINITY;
      acc.y = j + 1 >= first0 && j + 1 <= last0 ? acc.y : -INFINITY;
      acc.z = j >= first1 && j <= last1 ? acc.z : -INFINITY;
      acc.w = j + 1 >= first1 && j + 1 <= last1 ? acc.w : -INFINITY;
      s[n] = acc;
    }
    float tile0 = -INFINITY, tile1 = -INFINITY;
    #pragma unroll
    for (int n = 0; n < 4; ++n) {
      tile0 = fmax(tile0, fmax(s[n].x, s[n].y));
      tile1 = fmax(tile1, fmax(s[n].z, s[n].w));
    }
    const float new0 = fmax(m0, nv_amma_row_max(tile0)), new1 = fmax(m1, nv_amma_row_max(tile1));
    // A row that has seen no key yet keeps zeros (and must not compute -inf - -inf).
    const float corr0 = new0 == -INFINITY ? 1.0f : native_exp2(m0 - new0);
    const float corr1 = new1 == -INFINITY ? 1.0f : native_exp2(m1 - new1);
    const float base0 = new0 == -INFINITY ? 0.0f : new0, base1 = new1 == -INFINITY ? 0.0f : new1;
    m0 = new0, m1 = new1;
    float sum0 = 0.0f, sum1 = 0.0f;
    #pragma unroll
    for (int n = 0; n < 4; ++n) {
      s[n] = native_exp2(s[n] - (float4)(base0, base0, base1, base1));
      sum0 += s[n].x + s[n].y;
      sum1 += s[n].z + s[n].w;
    }
    l0 = l0 * corr0 + sum0;
    l1 = l1 * corr1 + sum1;
    #pragma unroll
    for (int n = 0; n < NV_ATT_HD / 8; ++n) o[n] *= (float4)(corr0, corr0, corr1, corr1);

    // Probabilities as A fragments (keys 16kc .. 16kc + 15 = score tiles 2kc, 2kc + 1), times values.
    #pragma unroll
    for (int kc = 0; kc < 2; ++kc) {
      const float4 p0 = s[2 * kc], p1 = s[2 * kc + 1];
      const uint4 ph = (uint4)(nv_f16x2(p0.x, p0.y), nv_f16x2(p0.z, p0.w), nv_f16x2(p1.x, p1.y), nv_f16x2(p1.z, p1.w));
      #pragma unroll
      for (int n = 0; n < NV_ATT_HD / 8; n += 2) {
        const uint4 b = nv_amma_frag_v(vs, kc, n);
        o[n] = nv_mma_f16(ph, b.x, b.y, o[n]);
        o[n + 1] = nv_mma_f16(ph, b.z, b.w, o[n + 1]);
      }
    }
  }

  const float inv0 = 1.0f / nv_amma_row_sum(l0), inv1 = 1.0f / nv_amma_row_sum(l1);
  global float* og = (global float*)(out + out_off);
  #pragma unroll
  for (int n = 0; n < NV_ATT_HD / 8; ++n) {
    const int d = 8 * n + 2 * tq;
    if (tok0 < n_tokens) vstore2(o[n].xy * inv0, 0, og + ((size_t)tok0 * n_head + h) * NV_ATT_HD + d);
    if (tok1 < n_tokens) vstore2(o[n].zw * inv1, 0, og + ((size_t)tok1 * n_head + h) * NV_ATT_HD + d);
  }
}

#endif
