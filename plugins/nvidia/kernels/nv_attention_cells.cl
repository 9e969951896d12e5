// Decode attention of a step over several sequences on NVIDIA GPUs: ROPE_ATTENTION_CELLS over an
// F16 or F32 cache, with the semantics of kernels/attention.cl's cells kernels (token t's sequence
// and position are the I32 cells 2t and 2t + 1; q rotated here; causal, sliding window, grouped
// query heads). Needs rope_math.cl in front.
//
// The shared kernel gives every (query head, token) its own work-group, which walks the keys in
// chunks with two work-group reductions and a serial pass over the values per chunk: the group
// of query heads that share a KV head reads the same keys NV_DEC_R times, and a work-group's
// latency, not the memory, sets the time (0.7 ms a layer for 64 sequences of 600 cells on an
// H200). Here a work-group takes one (range of keys, KV head, token) for all NV_DEC_R query heads
// of the group:
//  - scores: the NV_DEC_HD / 8 work-items of a row group read one key row together, 8 elements
//    each (a warp's load covers whole rows, as the memory delivers them), score them against
//    every query head of the group (each item's 8 query values of every head in registers) and
//    sum the row's products across the row group; where the head size is not a power of two,
//    work-item j reads key j's row alone (a warp's load touches 32 rows, a sector each);
//  - softmax per chunk: the max and the sum of every head reduced at once over the work-group;
//  - values: the chunk's value rows are staged in local memory a few at a time, every load of
//    the work-group in flight at once (a work-item walking the rows itself waits a memory latency
//    per few rows), then work-item o sums four output dims of one head from there.
// Each range writes its (max, sum, output) per head to part in the form of attention_merge.cl;
// the last range of a (KV head, token) to finish (an arrival count each, as the split GEMMs'
// nv_split_finish) combines them with attention_merge.cl's operations in its order, which saves
// that kernel's launch (6-8 us a layer on an H100). With one range the output is written directly.
// With NV_PTX an F16 row is read 16 bytes at a time and widened by cvt (the driver compiles
// vload_half8 into eight 2-byte loads, and vload_half4 from local memory into four).
// clport-requires: nv_ptx.cl

#ifndef NV_DEC_HD
#define NV_DEC_HD 128
#endif
#ifndef NV_DEC_R
#define NV_DEC_R 4
#endif
#define NV_DEC_WG 128
#define NV_DEC_D4 (NV_DEC_HD / 4)
// Output float4s of the group's heads per work-item.
#define NV_DEC_OPT ((NV_DEC_R * NV_DEC_D4 + NV_DEC_WG - 1) / NV_DEC_WG)

#define NV_DEC_LOAD8_F32(i, p) vload8(i, (const global float*)(p))
#define NV_DEC_LOCAL4_F32(i, p) vload4(i, (const local float*)(p))
#if defined(NV_PTX) && NV_PTX
inline float8 nv_dec_load8_f16(int i, const global uchar* p) {
  return nv_f16x8_to_float8(((const global uint4*)p)[i]);
}
inline float4 nv_dec_local4_f16(int i, const local uchar* p) {
  const uint2 w = ((const local uint2*)p)[i];
  return (float4)(nv_f16x2_to_float2(w.x), nv_f16x2_to_float2(w.y));
}
#define NV_DEC_LOAD8_F16(i, p) nv_dec_load8_f16(i, p)
#define NV_DEC_LOCAL4_F16(i, p) nv_dec_local4_f16(i, p)
#else
#define NV_DEC_LOAD8_F16(i, p) vload_half8(i, (const global half*)(p))
#define NV_DEC_LOCAL4_F16(i, p) vload_half4(i, (const local half*)(p))
#endif
// The staged value rows: NV_DEC_VBYTES of local memory, NV_DEC_VT(E) rows of elements of E bytes
// (at most a chunk), NV_DEC_ROW16(E) 16-byte words each (the host takes only caches whose rows
// are 16-byte aligned).
#define NV_DEC_VBYTES 16384
#define NV_DEC_ROW16(E) (NV_DEC_HD * (E) / 16)
#define NV_DEC_VT(E) min(NV_DEC_WG, NV_DEC_VBYTES / (NV_DEC_HD * (E)))

// Reduces x[r] (r < NV_DEC_R) over the work-group into every item's x[r], with max or +. With
// PTX each warp reduces by shuffles and the warps' results meet in red: two barriers, where the
// halving steps through local memory take one each (seven for 128 work-items).
#if defined(NV_PTX) && NV_PTX
#define NV_DEC_WARPS (NV_DEC_WG / 32)
#define NV_DEC_REDUCE(x, red, OP)                                                                 \
  for (int r = 0; r < NV_DEC_R; ++r) {                                                             \
    float v_ = x[r];                                                                               \
    for (int lanes_ = 16; lanes_ > 0; lanes_ >>= 1) v_ = OP(v_, nv_shfl_xor(v_, lanes_));          \
    if (lid % 32 == 0) red[r * NV_DEC_WARPS + lid / 32] = v_;                                      \
  }                                                                                                \
  barrier(CLK_LOCAL_MEM_FENCE);                                                                    \
  for (int r = 0; r < NV_DEC_R; ++r) {                                                             \
    float v_ = red[r * NV_DEC_WARPS];                                                              \
    for (int w_ = 1; w_ < NV_DEC_WARPS; ++w_) v_ = OP(v_, red[r * NV_DEC_WARPS + w_]);             \
    x[r] = v_;                                                                                     \
  }                                                                                                \
  barrier(CLK_LOCAL_MEM_FENCE); /* red is rewritten by the next reduction */
#else
#define NV_DEC_REDUCE(x, red, OP)                                                                 \
  for (int r = 0; r < NV_DEC_R; ++r) red[r * NV_DEC_WG + lid] = x[r];                              \
  for (int half_ = NV_DEC_WG / 2; half_ > 0; half_ /= 2) {                                         \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
    if (lid < half_)                                                                               \
      for (int r = 0; r < NV_DEC_R; ++r)                                                           \
        red[r * NV_DEC_WG + lid] = OP(red[r * NV_DEC_WG + lid], red[r * NV_DEC_WG + lid + half_]); \
  }                                                                                                \
  barrier(CLK_LOCAL_MEM_FENCE);                                                                    \
  for (int r = 0; r < NV_DEC_R; ++r) x[r] = red[r * NV_DEC_WG];                                    \
  barrier(CLK_LOCAL_MEM_FENCE); /* red is rewritten by the next reduction */
#endif
#define NV_DEC_ADD(a, b) ((a) + (b))

// The scores of a chunk of nk keys (rows at kbase + (c0 + j) kv_nb2) into s[r], key lid's for
// query head r, -INFINITY past nk. Needs the queries rotated in qs.
#if (NV_DEC_HD & (NV_DEC_HD - 1)) == 0 && NV_DEC_HD / 8 <= 32
// A row group of NV_DEC_ROWL work-items reads a key row, item lid % NV_DEC_ROWL its elements
// 8 (lid % NV_DEC_ROWL) .. + 7; the group's products meet by a butterfly over its lanes (PTX) or
// through red (plain OpenCL C: two barriers a row pass), and the group's first item writes the
// key's scores to ps, which every item then reads back for its own key. NV_DEC_BATCH row passes
// load before their products, so that several loads of each item are in flight.
#define NV_DEC_ROWL (NV_DEC_HD / 8)
#define NV_DEC_KPP (NV_DEC_WG / NV_DEC_ROWL)
#if defined(NV_PTX) && NV_PTX
#define NV_DEC_BATCH (NV_DEC_ROWL < 4 ? NV_DEC_ROWL : 4)
#define NV_DEC_ROW_STORE(x, key)                                                                  \
  for (int r = 0; r < NV_DEC_R; ++r)                                                              \
    for (int lanes_ = NV_DEC_ROWL / 2; lanes_ > 0; lanes_ >>= 1) x[r] += nv_shfl_xor(x[r], lanes_); \
  if (lid % NV_DEC_ROWL == 0)                                                                     \
    for (int r = 0; r < NV_DEC_R; ++r) ps[r * NV_DEC_WG + (key)] = x[r] * scale;
#else
// One row pass at a time, and nothing private held across its barriers (PoCL 3.1 computed wrong
// scores when a pass's products were kept in a private array across them).
#define NV_DEC_BATCH 1
#define NV_DEC_ROW_STORE(x, key)                                                                  \
  for (int r = 0; r < NV_DEC_R; ++r) red[r * NV_DEC_WG + lid] = x[r];                             \
  barrier(CLK_LOCAL_MEM_FENCE);                                                                   \
  if (lid % NV_DEC_ROWL == 0)                                                                     \
    for (int r = 0; r < NV_DEC_R; ++r) {                                                          \
      float v_ = 0.0f;                                                                            \
      for (int j_ = 0; j_ < NV_DEC_ROWL; ++j_) v_ += red[r * NV_DEC_WG + lid + j_];               \
      ps[r * NV_DEC_WG + (key)] = v_ * scale;                                                     \
    }                                                                                             \
  barrier(CLK_LOCAL_MEM_FENCE); /* red is rewritten by the next pass */
#endif
#define NV_DEC_QUERY_REGS                                                                        \
  float8 qreg[NV_DEC_R];                                                                          \
  for (int r = 0; r < NV_DEC_R; ++r) qreg[r] = vload8(lid % NV_DEC_ROWL, qs + r * NV_DEC_HD);
#define NV_DEC_SCORES(LOAD8, s)                                                                   \
  for (int p0 = 0; p0 < NV_DEC_ROWL; p0 += NV_DEC_BATCH) {                                        \
    float8 kv[NV_DEC_BATCH];                                                                      \
    _Pragma("unroll") for (int b = 0; b < NV_DEC_BATCH; ++b) {                                    \
      const int key = (p0 + b) * NV_DEC_KPP + lid / NV_DEC_ROWL;                                  \
      kv[b] = key < nk ? LOAD8(lid % NV_DEC_ROWL, kbase + (size_t)(c0 + key) * kv_nb2) : (float8)(0.0f); \
    }                                                                                             \
    _Pragma("unroll") for (int b = 0; b < NV_DEC_BATCH; ++b) {                                    \
      float part[NV_DEC_R];                                                                       \
      for (int r = 0; r < NV_DEC_R; ++r) part[r] = dot(kv[b].lo, qreg[r].lo) + dot(kv[b].hi, qreg[r].hi); \
      NV_DEC_ROW_STORE(part, (p0 + b) * NV_DEC_KPP + lid / NV_DEC_ROWL)                           \
    }                                                                                             \
  }                                                                                               \
  barrier(CLK_LOCAL_MEM_FENCE);                                                                   \
  for (int r = 0; r < NV_DEC_R; ++r) s[r] = lid < nk ? ps[r * NV_DEC_WG + lid] : -INFINITY;
#else
#define NV_DEC_QUERY_REGS
#define NV_DEC_SCORES(LOAD8, s)                                                                   \
  for (int r = 0; r < NV_DEC_R; ++r) s[r] = -INFINITY;                                            \
  if (lid < nk) {                                                                                 \
    const global uchar* kr = kbase + (size_t)(c0 + lid) * kv_nb2;                                 \
    float dotv[NV_DEC_R];                                                                         \
    for (int r = 0; r < NV_DEC_R; ++r) dotv[r] = 0.0f;                                            \
    for (int d8 = 0; d8 < NV_DEC_HD / 8; ++d8) {                                                  \
      const float8 kv = LOAD8(d8, kr);                                                            \
      for (int r = 0; r < NV_DEC_R; ++r) {                                                        \
        const local float* qr = qs + r * NV_DEC_HD + 8 * d8;                                      \
        dotv[r] += dot(kv.lo, vload4(0, qr)) + dot(kv.hi, vload4(1, qr));                         \
      }                                                                                           \
    }                                                                                             \
    for (int r = 0; r < NV_DEC_R; ++r) s[r] = dotv[r] * scale;                                    \
  }
#endif

// The group's NV_DEC_R query rows of token t (KV head g's heads) into qs, rotated at position qpos;
// qs is ready for every work-item on return.
inline void nv_dec_query(const global uchar* q, ulong q_nb1, ulong q_nb2, int g, int t, int qpos, int n_rot, int neox,
                         float freq_base, float freq_scale, const global uchar* ff, ulong ff_off, int has_ff,
                         local float* qs) {
  const int lid = get_local_id(0), half_rot = n_rot / 2;
  for (int i = lid; i < NV_DEC_R * NV_DEC_HD; i += NV_DEC_WG) {
    const int r = i / NV_DEC_HD, d = i % NV_DEC_HD;
    qs[i] = ((const global float*)(q + (size_t)(g * NV_DEC_R + r) * q_nb1 + (size_t)t * q_nb2))[d];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = lid; i < NV_DEC_R * half_rot; i += NV_DEC_WG) {
    const int r = i / half_rot, pi = i % half_rot;
    const int2 e = rope_pair(pi, n_rot, neox);
    local float* qr = qs + r * NV_DEC_HD;
    const float2 rot = rope_rotate(qr[e.x], qr[e.y],
                                   rope_cos_sin(pi, qpos, n_rot, freq_base, freq_scale, rope_factor(ff, ff_off, has_ff, pi)));
    qr[e.x] = rot.x;  // pairs are disjoint: no other work-item touches e
    qr[e.y] = rot.y;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// Range `split` of n_split of the keys a token at qpos attends ([first, qpos], first past the
// sliding window): [begin, end) as (x, y), empty past the last.
inline int2 nv_dec_range(int qpos, int window, int n_split, int split) {
  const int first = window > 0 ? max(0, qpos + 1 - window) : 0, n_keys = qpos + 1;
  const int per = (n_keys - first + n_split - 1) / n_split;
  const int begin = min(n_keys, first + split * per);
  return (int2)(begin, min(n_keys, begin + per));
}

// Run by every range of (KV head g, token t) once its partials are in part: the last to arrive
// resets the count for the next launch and writes the group's heads' outputs, each combined over
// the ranges in order as attention_merge.cl does (so a run gives the same values every time).
inline void nv_dec_merge(const global float* part, volatile global int* arrivals, int n_split, int n_kv_head,
                         int n_head, int g, int t, global float* out, local int* last) {
  if (!nv_last_to_arrive(arrivals + (size_t)t * n_kv_head + g, n_split, last)) return;
  const int lid = get_local_id(0);
  for (int o = lid; o < NV_DEC_R * NV_DEC_D4; o += NV_DEC_WG) {
    const int h = g * NV_DEC_R + o / NV_DEC_D4, d4 = o % NV_DEC_D4;
    const global float* ph = part + ((size_t)t * n_head + h) * n_split * (NV_DEC_HD + 2);
    float m = -INFINITY;
    for (int s = 0; s < n_split; ++s) m = fmax(m, nv_load_l2_f1(ph + (size_t)s * (NV_DEC_HD + 2)));
    float l = 0.0f;
    float4 acc = (float4)(0.0f);
    for (int s = 0; s < n_split; ++s) {
      const global float* p = ph + (size_t)s * (NV_DEC_HD + 2);
      const float ls = nv_load_l2_f1(p + 1);
      const float w = ls > 0.0f ? exp(nv_load_l2_f1(p) - m) : 0.0f;
      l = fma(ls, w, l);
      // Rows of NV_DEC_HD + 2 floats: the output starts 8 bytes into a 16-byte word at best.
      const global float* v = p + 2 + 4 * d4;
      acc = fma((float4)(nv_load_l2_f1(v), nv_load_l2_f1(v + 1), nv_load_l2_f1(v + 2), nv_load_l2_f1(v + 3)),
                (float4)(w), acc);
    }
    vstore4(acc / l, d4, out + ((size_t)t * n_head + h) * NV_DEC_HD);
  }
}

// Global size (NV_DEC_WG * n_split, n_kv_head, n_tokens). Sequence s's K lie at k + k_off +
// s seq_bytes, its V v_off - k_off further; part holds [n_tokens][n_head][n_split][NV_DEC_HD + 2]
// floats (max, sum, output) and arrivals [n_tokens][n_kv_head] counts (zero between launches) when
// n_split > 1.
#define NV_ATTENTION_CELLS_KERNEL(NAME, LOAD8, LOCAL4, E)                                          \
  kernel __attribute__((reqd_work_group_size(NV_DEC_WG, 1, 1))) void NAME(                          \
      const global uchar* q, ulong q_off, ulong q_nb1, ulong q_nb2, const global uchar* cache,      \
      ulong k_off, ulong v_off, ulong kv_nb1, ulong kv_nb2, ulong seq_bytes, const global uchar* cells_base, \
      ulong cells_off, global uchar* out, ulong out_off, int n_head, float scale, int n_rot, int neox, float freq_base, \
      float freq_scale, const global uchar* ff, ulong ff_off, int has_ff, int window, int n_split,  \
      global float* part, volatile global int* arrivals) {                                          \
    local float qs[NV_DEC_R * NV_DEC_HD];                                                           \
    local float ps[NV_DEC_R * NV_DEC_WG]; /* a chunk's probabilities, [head][key] */               \
    local float red[NV_DEC_R * NV_DEC_WG];                                                          \
    local uint4 vs[NV_DEC_VBYTES / 16]; /* value rows, as the cache holds them */                  \
    local int last; /* whether this range is the last of its (KV head, token) to finish */          \
    const int split = get_group_id(0), g = get_group_id(1), t = get_group_id(2), lid = get_local_id(0); \
    const global int* cells = (const global int*)(cells_base + cells_off);                          \
    const int seq = cells[2 * t], qpos = cells[2 * t + 1];                                          \
    nv_dec_query(q + q_off, q_nb1, q_nb2, g, t, qpos, n_rot, neox, freq_base, freq_scale, ff, ff_off, has_ff, qs); \
    NV_DEC_QUERY_REGS                                                                               \
    const int2 range = nv_dec_range(qpos, window, n_split, split);                                  \
    const int begin = range.x, end = range.y;                                                       \
    const global uchar* kbase = cache + k_off + (size_t)seq * seq_bytes + (size_t)g * kv_nb1;       \
    const global uchar* vbase = kbase + (v_off - k_off);                                            \
    float m[NV_DEC_R], l[NV_DEC_R];                                                                 \
    float4 acc[NV_DEC_OPT];                                                                         \
    for (int r = 0; r < NV_DEC_R; ++r) {                                                            \
      m[r] = -INFINITY;                                                                             \
      l[r] = 0.0f;                                                                                  \
    }                                                                                               \
    for (int i = 0; i < NV_DEC_OPT; ++i) acc[i] = (float4)(0.0f);                                   \
    for (int c0 = begin; c0 < end; c0 += NV_DEC_WG) {                                               \
      const int nk = min(NV_DEC_WG, end - c0);                                                      \
      float s[NV_DEC_R];                                                                            \
      NV_DEC_SCORES(LOAD8, s)                                                                       \
      float cmax[NV_DEC_R], csum[NV_DEC_R], corr[NV_DEC_R];                                         \
      for (int r = 0; r < NV_DEC_R; ++r) cmax[r] = s[r];                                            \
      NV_DEC_REDUCE(cmax, red, fmax)                                                                \
      for (int r = 0; r < NV_DEC_R; ++r) {                                                          \
        const float m_new = fmax(m[r], cmax[r]);                                                    \
        corr[r] = exp(m[r] - m_new);                                                                \
        m[r] = m_new;                                                                               \
        csum[r] = lid < nk ? exp(s[r] - m_new) : 0.0f;                                              \
        ps[r * NV_DEC_WG + lid] = csum[r];                                                          \
      }                                                                                             \
      NV_DEC_REDUCE(csum, red, NV_DEC_ADD) /* its barriers publish ps */                            \
      for (int r = 0; r < NV_DEC_R; ++r) l[r] = l[r] * corr[r] + csum[r];                           \
      for (int i = 0; i < NV_DEC_OPT; ++i) {                                                        \
        const int o = lid + i * NV_DEC_WG;                                                          \
        if (o < NV_DEC_R * NV_DEC_D4) acc[i] *= corr[o / NV_DEC_D4];                                \
      }                                                                                             \
      /* Values: NV_DEC_VT rows at a time staged in local memory by all items at once (every     \
         load in flight together), then summed from there. */                                    \
      for (int v0 = 0; v0 < nk; v0 += NV_DEC_VT(E)) {                                               \
        const int nv = min(NV_DEC_VT(E), nk - v0);                                                  \
        barrier(CLK_LOCAL_MEM_FENCE); /* the previous rows are no longer read */                    \
        for (int e = lid; e < nv * NV_DEC_ROW16(E); e += NV_DEC_WG) {                               \
          const int row = e / NV_DEC_ROW16(E), w = e % NV_DEC_ROW16(E);                             \
          vs[e] = ((const global uint4*)(vbase + (size_t)(c0 + v0 + row) * kv_nb2))[w];             \
        }                                                                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                                               \
        for (int i = 0; i < NV_DEC_OPT; ++i) {                                                      \
          const int o = lid + i * NV_DEC_WG;                                                        \
          if (o < NV_DEC_R * NV_DEC_D4) {                                                           \
            const int r = o / NV_DEC_D4, d4 = o % NV_DEC_D4;                                        \
            const local float* pr = ps + r * NV_DEC_WG + v0;                                        \
            float4 a = acc[i];                                                                      \
            for (int j = 0; j < nv; ++j)                                                            \
              a = fma((float4)(pr[j]), LOCAL4(d4, (const local uchar*)vs + j * NV_DEC_ROW16(E) * 16), a); \
            acc[i] = a;                                                                             \
          }                                                                                         \
        }                                                                                           \
      }                                                                                             \
      barrier(CLK_LOCAL_MEM_FENCE); /* ps is rewritten by the next chunk */                         \
    }                                                                                               \
    for (int i = 0; i < NV_DEC_OPT; ++i) {                                                          \
      const int o = lid + i * NV_DEC_WG;                                                            \
      if (o >= NV_DEC_R * NV_DEC_D4) continue;                                                      \
      const int r = o / NV_DEC_D4, d4 = o % NV_DEC_D4, h = g * NV_DEC_R + r;                        \
      if (n_split == 1) {                                                                           \
        global float* og = (global float*)(out + out_off) + ((size_t)t * n_head + h) * NV_DEC_HD;   \
        vstore4(acc[i] / l[r], d4, og);                                                             \
      } else {                                                                                      \
        global float* pg = part + (((size_t)t * n_head + h) * n_split + split) * (NV_DEC_HD + 2);  \
        if (d4 == 0) {                                                                              \
          pg[0] = m[r];                                                                             \
          pg[1] = l[r];                                                                             \
        }                                                                                           \
        vstore4(acc[i], d4, pg + 2);                                                                \
      }                                                                                             \
    }                                                                                               \
    if (n_split > 1) {                                                                              \
      nv_dec_merge(part, arrivals, n_split, get_num_groups(1), n_head, g, t,                        \
                   (global float*)(out + out_off), &last);                                          \
    }                                                                                               \
  }

NV_ATTENTION_CELLS_KERNEL(nv_attention_cells_f32, NV_DEC_LOAD8_F32, NV_DEC_LOCAL4_F32, 4)
NV_ATTENTION_CELLS_KERNEL(nv_attention_cells_f16, NV_DEC_LOAD8_F16, NV_DEC_LOCAL4_F16, 2)
