// A whole decode layer of the llama family in one launch: the five ops of a plan group
// (nv_layer.hpp) for one token, in phases separated by grid-wide barriers:
//  1. qkv = Wqkv . rms_norm(x) * attn_norm                         (RMS_NORM_MUL_MAT)
//  2. RoPE of q and k at position n_past, k and v into the KV cache, attention of each head over
//     positions 0 .. n_past, each head's keys in `splits` ranges, a partial result per range
//                                                                  (ROPE_KV_STORE_ATTENTION)
//  3. attn = the merged partials (work-group 0 writes them out), x += Wo . attn (MUL_MAT_ADD)
//  4. act = silu(Wgate . n) * (Wup . n), n = rms_norm(x) * ffn_norm (RMS_NORM_MUL_MAT_SWIGLU)
//  5. x += Wdown . act                                             (MUL_MAT_ADD)
// Each GEMV phase is nv_gemv.cl's: every work-group quantizes the activation row into local
// memory and walks its share of the row chunks. Five kernels a layer become one, which is what
// a decode step on a big GPU is short of: each launch costs a fixed 7-10 us there whatever it
// does.
//
// The grid barrier needs every work-group resident at once: the host launches at most one group
// per compute unit and checks once, with nv_grid_probe, that the groups of such a launch do meet.
// A barrier that waits too long (another context took compute units away) gives up, marks
// bar[2] and the layer writes NaN into x, so a broken step shows instead of passing for text.
//
// clport-requires: nv_gemv.cl
// Needs reduce.cl, rope_math.cl and nv_gemv.cl in front; NV_QKV_ROWS, NV_O_ROWS, NV_FFN_ROWS and
// NV_DOWN_ROWS name the row functions of each weight's dtype (nv_rows_q4_0, ..., and
// nv_swiglu_rows_* for NV_FFN_ROWS); NV_CACHE_F16 says whether the KV cache holds halves.

#ifndef NV_QKV_ROWS
#define NV_QKV_ROWS nv_rows_q4_0
#endif
#ifndef NV_O_ROWS
#define NV_O_ROWS nv_rows_q4_0
#endif
#ifndef NV_FFN_ROWS
#define NV_FFN_ROWS nv_swiglu_rows_q4_0
#endif
#ifndef NV_DOWN_ROWS
#define NV_DOWN_ROWS nv_rows_q4_0
#endif
#ifndef NV_CACHE_F16
#define NV_CACHE_F16 1
#endif
#ifndef NV_SPIN_LIMIT
#define NV_SPIN_LIMIT (1u << 24)
#endif

#if defined(NV_PTX) && NV_PTX
// Orders this thread's global accesses before and after at GPU scope (as CUDA's threadfence):
// the other SMs see what this group wrote before it arrived, and it sees theirs afterwards.
inline void nv_fence_gpu(void) { __asm__ volatile("membar.gl;" ::: "memory"); }
#else
inline void nv_fence_gpu(void) { mem_fence(CLK_GLOBAL_MEM_FENCE); }
#endif

// All `groups` work-groups meet here. bar[0] counts arrivals, bar[1] is the generation (both
// carry over from one launch to the next), bar[2] is set when a wait gave up. Returns 0 when it
// gave up (or another group did).
inline int nv_grid_sync(volatile global uint* bar, uint groups, local int* ok) {
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0) {
    if (groups > 1) {
      nv_fence_gpu();
      const uint generation = bar[1];
      if (atomic_inc(&bar[0]) == groups - 1) {
        atomic_xchg(&bar[0], 0u);
        nv_fence_gpu();
        atomic_inc(&bar[1]);
      } else {
        uint spins = 0;
        while (bar[1] == generation && bar[2] == 0) {
          if (++spins > NV_SPIN_LIMIT) {
            atomic_xchg(&bar[2], 1u);
            break;
          }
        }
      }
      nv_fence_gpu();
    }
    *ok = bar[2] == 0;
  }
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  return *ok;
}

// Whether `groups` work-groups meet at a grid barrier: result[0] = 1 when they did.
kernel void nv_grid_probe(volatile global uint* bar, uint groups, global uint* result) {
  local int ok;
  const int met = nv_grid_sync(bar, groups, &ok);
  if (get_group_id(0) == 0 && get_local_id(0) == 0) result[0] = (uint)met;
}

// Element i of a head row stored as F16 or F32.
inline float nv_cache_at(const global uchar* row, int i) {
#if NV_CACHE_F16
  return vload_half(i, (const global half*)row);
#else
  return ((const global float*)row)[i];
#endif
}

inline void nv_cache_put(global uchar* row, int i, float v) {
#if NV_CACHE_F16
  vstore_half_rte(v, i, (global half*)row);
#else
  ((global float*)row)[i] = v;
#endif
}

// What the cache keeps of v: the value rounded to half when the cache holds halves.
inline float nv_as_cached(float v, local half* tmp) {
#if NV_CACHE_F16
  vstore_half_rte(v, get_local_id(0), tmp);
  return vload_half(get_local_id(0), tmp);
#else
  return v;
#endif
}

// head[d] of a head row after RoPE at pos (d < head_dim; dims past n_rot unrotated).
inline float nv_rope_at(const global float* head, int d, int pos, int n_rot, int neox, float base, float fscale) {
  if (d >= n_rot) return head[d];
  const int i = neox ? d % (n_rot / 2) : d / 2;
  const int2 p = rope_pair(i, n_rot, neox);
  const float2 r = rope_rotate(head[p.x], head[p.y], rope_cos_sin(i, pos, n_rot, base, fscale, 1.0f));
  return d == p.x ? r.x : r.y;
}

// Eight consecutive elements of a head row (F16 or F32), from element i.
inline float8 nv_cache8(const global uchar* row, int i) {
#if NV_CACHE_F16
  return vload_half8(0, (const global half*)row + i);
#else
  return vload8(0, (const global float*)row + i);
#endif
}

// Attention phase, one (head, key range) item: the partial result (acc[HD], m, l) over keys
// [k0, k1), the key at `pos` (this step's) from kc / vc, the others from the cache. Scores take
// HD / 8 work-items a key, each one 8-element load, so that a range of keys is one round of
// loads instead of HD dependent ones; HD % 8 == 0.
// qs = q * scale (local, HD), sc, red and acc_part NV_WG floats each.
inline void nv_attend_range(const global uchar* kcache, const global uchar* vcache, ulong pos_stride, int k0,
                            int k1, int pos, int HD, local const float* qs, local const float* kc,
                            local const float* vc, local float* sc, local float* red, local float* acc_part,
                            global float* part) {
  const int lid = get_local_id(0);
  const int parts = HD / 8, per_round = NV_WG / parts, key = lid / parts, slice = (lid % parts) * 8;
  const int subsets = NV_WG / HD, d = lid % HD, sub = lid / HD;
  float m = -INFINITY, l = 0.0f, acc = 0.0f;
  for (int base = k0; base < k1; base += per_round) {
    const int j = base + key, n = min(per_round, k1 - base);
    float partial = 0.0f;
    if (key < per_round && j < k1) {
      const float8 kv = j == pos ? vload8(0, kc + slice)
                                 : nv_cache8(kcache + (ulong)j * pos_stride, slice);
      const float8 qv = vload8(0, qs + slice);
      partial = dot(qv.lo, kv.lo) + dot(qv.hi, kv.hi);
    }
    acc_part[lid] = partial;
    barrier(CLK_LOCAL_MEM_FENCE);
    const bool owner = lid < n;  // work-item t holds key base + t from here on
    float s = -INFINITY;
    if (owner) {
      s = 0.0f;
      for (int t = 0; t < parts; ++t) s += acc_part[lid * parts + t];
    }
    const float m_new = fmax(m, wg_reduce_max(s, red, NV_WG));
    const float p = owner ? exp(s - m_new) : 0.0f;
    sc[lid] = p;
    const float rescale = exp(m - m_new);
    l = l * rescale + wg_reduce_sum(p, red, NV_WG);  // its barriers also publish sc
    acc *= rescale;
    if (sub < subsets) {
      for (int t = sub; t < n; t += subsets) {
        const int jj = base + t;
        const float v = jj == pos ? vc[d] : nv_cache_at(vcache + (ulong)jj * pos_stride, d);
        acc += sc[t] * v;
      }
    }
    m = m_new;
    barrier(CLK_LOCAL_MEM_FENCE);  // sc and acc_part are written again by the next round
  }
  acc_part[lid] = sub < subsets ? acc : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < HD) {
    float total = 0.0f;
    for (int t = 0; t < subsets; ++t) total += acc_part[t * HD + lid];
    part[lid] = total;
  }
  if (lid == 0) {
    part[HD] = m;
    part[HD + 1] = l;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// The weight of each key range in its head's merged row, w[h * splits + s] =
// exp(m_s - M) / L (M the head's largest m, L its sum of l_s exp(m_s - M)), computed once per
// work-group into local memory (2 * H * splits floats, ml the first half).
inline void nv_merge_weights(const global float* part, int H, int HD, int splits, local float* ml, local float* w) {
  const int lid = get_local_id(0), n = H * splits;
  for (int t = lid; t < n; t += NV_WG) {
    ml[t] = part[(size_t)t * (HD + 2) + HD];
    w[t] = part[(size_t)t * (HD + 2) + HD + 1];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int h = lid; h < H; h += NV_WG) {
    float m = -INFINITY, l = 0.0f;
    for (int s = 0; s < splits; ++s) m = fmax(m, ml[h * splits + s]);
    for (int s = 0; s < splits; ++s) {
      const float ls = w[h * splits + s];
      l += ls > 0.0f ? ls * exp(ml[h * splits + s] - m) : 0.0f;
    }
    for (int s = 0; s < splits; ++s) {
      const float ls = w[h * splits + s];
      w[h * splits + s] = ls > 0.0f ? exp(ml[h * splits + s] - m) / l : 0.0f;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// Element e of the merged attention row (head e / HD): its key ranges' outputs, weighted.
inline float nv_merged_at(const global float* part, local const float* w, int e, int HD, int splits) {
  const int h = e / HD, d = e % HD;
  const global float* p = part + (size_t)h * splits * (HD + 2) + d;
  float acc = 0.0f;
  for (int s = 0; s < splits; ++s) acc += p[(size_t)s * (HD + 2)] * w[h * splits + s];
  return acc;
}

inline float4 nv_merged4(const global float* part, local const float* w, int i, int HD, int splits) {
  return (float4)(nv_merged_at(part, w, 4 * i, HD, splits), nv_merged_at(part, w, 4 * i + 1, HD, splits),
                  nv_merged_at(part, w, 4 * i + 2, HD, splits), nv_merged_at(part, w, 4 * i + 3, HD, splits));
}

#define NV_F32(buf, off) ((global float*)((buf) + (off)))
#define NV_CF32(buf, off) ((const global float*)((buf) + (off)))

kernel __attribute__((reqd_work_group_size(NV_WG, 1, 1))) void nv_layer(
    // 1: RMS_NORM_MUL_MAT
    const global uint4* qkv_q, const global ushort* qkv_s, const global uchar* x1, ulong x1_off,
    const global uchar* attn_norm, ulong attn_norm_off, float eps1, global uchar* qkv, ulong qkv_off, int E,
    int NQKV,
    // 2: ROPE_KV_STORE_ATTENTION (q, k, v head rows; the cache's K half, V half at +cache_nb3)
    const global uchar* q, ulong q_off, ulong q_nb1, const global uchar* k, ulong k_off, ulong k_nb1,
    const global uchar* v, ulong v_off, ulong v_nb1, global uchar* cache, ulong cache_off, ulong cache_nb1,
    ulong cache_nb2, ulong cache_nb3, global uchar* attn, ulong attn_off, int H, int HKV, int HD, int n_rot,
    int neox, float freq_base, float freq_scale, float att_scale, int window, int n_past, global float* part,
    int splits,
    // 3: MUL_MAT_ADD (output projection)
    const global uint4* o_q, const global ushort* o_s, const global uchar* o_res, ulong o_res_off,
    global uchar* x3, ulong x3_off, int NO,
    // 4: RMS_NORM_MUL_MAT_SWIGLU
    const global uint4* g_q, const global ushort* g_s, const global uint4* u_q, const global ushort* u_s,
    const global uchar* x4, ulong x4_off, const global uchar* ffn_norm, ulong ffn_norm_off, float eps4,
    global uchar* act, ulong act_off, int K4, int FF,
    // 5: MUL_MAT_ADD (down projection)
    const global uint4* d_q, const global ushort* d_s, const global uchar* act_in, ulong act_in_off,
    const global uchar* d_res, ulong d_res_off, global uchar* x5, ulong x5_off, int K5, int ND,
    volatile global uint* bar, uint groups, local int4* xq, local float2* xds, local float* att) {
  local float red[2 * NV_ROWS * NV_RED_STRIDE];
  local int ok;
  const int lid = get_local_id(0);

  // 1
  nv_quantize_row(NV_CF32(x1, x1_off), NV_CF32(attn_norm, attn_norm_off), 1, eps1, E, xq, xds, red);
  NV_QKV_ROWS(qkv_q, qkv_s, E, NQKV, 0, NV_F32(qkv, qkv_off), NV_F32(qkv, qkv_off), xq, xds, red);
  int alive = nv_grid_sync(bar, groups, &ok);

  // 2: att holds qs, kc, vc (HD each), then sc, red2, acc_part (NV_WG each) and NV_WG halves;
  // in 3 the merge weights (2 H splits floats).
  if (alive) {
    local float *qs = att, *kc = att + HD, *vc = att + 2 * HD, *sc = att + 3 * HD;
    local float *red2 = sc + NV_WG, *acc_part = red2 + NV_WG;
    local half* tmp = (local half*)(acc_part + NV_WG);
    const int pos = n_past, group = H / HKV;
    const int first = window > 0 ? max(0, pos - window + 1) : 0;
    const int span = (pos + 1 - first + splits - 1) / splits;
    for (int item = get_group_id(0); item < H * splits; item += get_num_groups(0)) {
      const int h = item / splits, s = item % splits, kvh = h / group;
      const global float* qh = (const global float*)(q + q_off + (ulong)h * q_nb1);
      const global float* kh = (const global float*)(k + k_off + (ulong)kvh * k_nb1);
      const global float* vh = (const global float*)(v + v_off + (ulong)kvh * v_nb1);
      if (lid < HD) {
        qs[lid] = nv_rope_at(qh, lid, pos, n_rot, neox, freq_base, freq_scale) * att_scale;
        kc[lid] = nv_as_cached(nv_rope_at(kh, lid, pos, n_rot, neox, freq_base, freq_scale), tmp);
        vc[lid] = nv_as_cached(vh[lid], tmp);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      global uchar* kcache = cache + cache_off + (ulong)kvh * cache_nb1;
      if (s == 0 && h % group == 0 && lid < HD) {
        nv_cache_put(kcache + (ulong)pos * cache_nb2, lid, kc[lid]);
        nv_cache_put(kcache + cache_nb3 + (ulong)pos * cache_nb2, lid, vc[lid]);
      }
      const int k0 = first + s * span, k1 = min(k0 + span, pos + 1);
      nv_attend_range(kcache, kcache + cache_nb3, cache_nb2, k0, k1, pos, HD, qs, kc, vc, sc, red2, acc_part,
                      part + (size_t)item * (HD + 2));
    }
    alive = nv_grid_sync(bar, groups, &ok);
  }

  // 3: the merged attention row is the output projection's activation row.
  if (alive) {
    const int K = H * HD;
    local float* w = att + H * splits;
    nv_merge_weights(part, H, HD, splits, att, w);
    if (get_group_id(0) == 0) {
      for (int e = lid; e < K; e += NV_WG) NV_F32(attn, attn_off)[e] = nv_merged_at(part, w, e, HD, splits);
    }
#define NV_LOAD_MERGED(i) nv_merged4(part, w, i, HD, splits)
    NV_QUANTIZE_BODY(NV_LOAD_MERGED)
#undef NV_LOAD_MERGED
    NV_O_ROWS(o_q, o_s, K, NO, 1, NV_CF32(o_res, o_res_off), NV_F32(x3, x3_off), xq, xds, red);
    alive = nv_grid_sync(bar, groups, &ok);
  }

  // 4
  if (alive) {
    nv_quantize_row(NV_CF32(x4, x4_off), NV_CF32(ffn_norm, ffn_norm_off), 1, eps4, K4, xq, xds, red);
    NV_FFN_ROWS(g_q, g_s, u_q, u_s, K4, FF, NV_F32(act, act_off), xq, xds, red);
    alive = nv_grid_sync(bar, groups, &ok);
  }

  // 5
  if (alive) {
    nv_quantize_row(NV_CF32(act_in, act_in_off), NV_CF32(act_in, act_in_off), 0, 0.0f, K5, xq, xds, red);
    NV_DOWN_ROWS(d_q, d_s, K5, ND, 1, NV_CF32(d_res, d_res_off), NV_F32(x5, x5_off), xq, xds, red);
  } else if (get_group_id(0) == 0) {
    for (int e = lid; e < ND; e += NV_WG) NV_F32(x5, x5_off)[e] = NAN;
  }
}
