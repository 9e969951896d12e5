// A whole decode layer of the llama family in one launch: the five ops of a plan group
// (nv_layer.hpp) for one token, in phases separated by grid-wide barriers:
//  1. qkv = Wqkv . rms_norm(x) * attn_norm                         (RMS_NORM_MUL_MAT)
//  2. RoPE of q and k at position n_past, k and v into the KV cache, attention of each head over
//     positions 0 .. n_past, each head's keys in `splits` ranges, a partial result per range (gq
//     query heads of one KV head at once)
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

#if defined(NV_PTX) && NV_PTX
// Adds 1 to the 64-bit arrival count at GPU scope; returns the count before.
inline ulong nv_arrive(volatile global ulong* count) {
  ulong before;
  __asm__ volatile("atom.global.add.u64 %0, [%1], 1;" : "=l"(before) : "l"((ulong)count) : "memory");
  return before;
}
#endif

// All `groups` work-groups meet here. With PTX, bar[0..1] is a 64-bit count of arrivals that
// only grows (it carries over from one launch to the next): a group arriving at its barrier
// number k waits until the count reaches k * groups, which it knows from the count it found
// (no group passes a barrier before all arrived, so the count found divided by groups is the
// barriers completed); one atomic a group and no reset. Without PTX, bar[0] counts arrivals and
// the last one resets it and bumps the generation bar[1]. bar[2] is set when a wait gave up.
// Returns 0 when it gave up (or another group did).
inline int nv_grid_sync(volatile global uint* bar, uint groups, local int* ok) {
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0) {
    if (groups > 1) {
      nv_fence_gpu();
      uint spins = 0;
#if defined(NV_PTX) && NV_PTX
      volatile global ulong* count = (volatile global ulong*)bar;
      const ulong target = (nv_arrive(count) / groups + 1) * groups;
      while (*count < target && bar[2] == 0) {
        if (++spins > NV_SPIN_LIMIT) {
          atomic_xchg(&bar[2], 1u);
          break;
        }
      }
#else
      const uint generation = bar[1];
      if (atomic_inc(&bar[0]) == groups - 1) {
        atomic_xchg(&bar[0], 0u);
        nv_fence_gpu();
        atomic_inc(&bar[1]);
      } else {
        while (bar[1] == generation && bar[2] == 0) {
          if (++spins > NV_SPIN_LIMIT) {
            atomic_xchg(&bar[2], 1u);
            break;
          }
        }
      }
#endif
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

// NV_LAYER_TIMING (a diagnostic, CLPORT_NV_LAYER_TIMING=1): work-group 0's first work-item adds
// the SM cycles between consecutive checkpoints of the kernel to bar[4 + i] (bar[3] counts the
// launches), so the host can say where a layer's time goes. Work-group 0 waits at each grid
// barrier for the slowest group, so a barrier's slot is the groups' imbalance plus its cost.
#if defined(NV_LAYER_TIMING) && NV_LAYER_TIMING && defined(NV_PTX) && NV_PTX
inline ulong nv_clock(void) {
  ulong t;
  __asm__ volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
#define NV_MARK(slot)                                                     \
  if (timed) {                                                            \
    const ulong now_ = nv_clock();                                        \
    bar[4 + (slot)] += (uint)(now_ - mark);                               \
    mark = now_;                                                          \
  }
#define NV_TIMING_START                                                   \
  const bool timed = get_group_id(0) == 0 && get_local_id(0) == 0;        \
  ulong mark = timed ? nv_clock() : 0;                                    \
  if (timed) bar[3] += 1u;
#else
#define NV_MARK(slot)
#define NV_TIMING_START
#endif

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

// Eight consecutive elements of a head row (F16 or F32), from element i (a multiple of 8; rows
// 16-byte aligned). Halves are loaded as one 16-byte word: the driver compiles vload_half8 into
// eight 2-byte loads (8B shape on an H100, 16384 cached keys: the attention phase 73 -> 58 us).
inline float8 nv_cache8(const global uchar* row, int i) {
#if NV_CACHE_F16
#if defined(NV_PTX) && NV_PTX
  const uint4 w = *(const global uint4*)(row + 2 * i);
  return (float8)(nv_f16x2_to_float2(w.x), nv_f16x2_to_float2(w.y), nv_f16x2_to_float2(w.z), nv_f16x2_to_float2(w.w));
#else
  return vload_half8(0, (const global half*)row + i);
#endif
#else
  return vload8(0, (const global float*)row + i);
#endif
}

// Sums over lanes of a warp (every lane gets its set's sum, the same in each): `within` the
// aligned sets of `width` consecutive lanes, `across` the lanes congruent modulo `stride`
// (widths and strides powers of two <= 32). Shuffles with PTX; otherwise through scratch (NV_WG
// floats), which only the strict OpenCL C compiles see (the layer runs only where PTX does).
#if NV_FAST_REDUCE
inline float nv_sum_within(float v, int width, local float* scratch) {
  for (int lanes = 1; lanes < width; lanes <<= 1) v += nv_shfl_xor(v, lanes);
  return v;
}
inline float nv_sum_across(float v, int stride, local float* scratch) {
  for (int lanes = stride; lanes < 32; lanes <<= 1) v += nv_shfl_xor(v, lanes);
  return v;
}
#else
inline float nv_sum_within(float v, int width, local float* scratch) {
  const int lid = get_local_id(0), first = lid - lid % width;
  barrier(CLK_LOCAL_MEM_FENCE);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  float s = 0.0f;
  for (int t = 0; t < width; ++t) s += scratch[first + t];
  return s;
}
inline float nv_sum_across(float v, int stride, local float* scratch) {
  const int lid = get_local_id(0), warp = lid - lid % 32;
  barrier(CLK_LOCAL_MEM_FENCE);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  float s = 0.0f;
  for (int t = lid % stride; t < 32; t += stride) s += scratch[warp + t];
  return s;
}
#endif

inline float nv_dot8(float8 a, float8 b) { return dot(a.lo, b.lo) + dot(a.hi, b.hi); }

// The most query heads one attention item takes (heads of one KV head; the host's
// nv_layer_gqa): each adds an output and a running maximum and sum per work-item, 10 registers.
#ifndef NV_ATT_GQA
#define NV_ATT_GQA 1
#endif

// Attention phase, one (query heads, key range) item: for each of the gq heads (consecutive, of
// one KV head) the partial result (acc[HD], m, l) over keys [k0, k1), the key at `pos` (this
// step's) from kc / vc, the others from the cache. Each key and value is loaded once for all gq
// heads: a KV head's keys are read once a step, not once per query head. The work-group is
// NV_WG / (HD / 8) key lanes of HD / 8 work-items, each work-item 8 dimensions: key lane t takes
// keys k0 + t, k0 + t + lanes, ... (two a trip, so that four 8-element loads are in flight) with
// its own running maxima, sums and outputs, and the lanes are combined once at the end: no
// work-group reduction inside the loop. HD % 8 == 0, HD / 8 <= 32, gq <= NV_ATT_GQA.
// qs = the heads' q * scale (gq rows of HD), kc, vc (local, HD each); comb NV_WARPS * HD floats;
// red NV_WG floats; head j's partial goes to part + j * head_stride.
inline void nv_attend_range(const global uchar* kcache, const global uchar* vcache, ulong pos_stride, int k0,
                            int k1, int pos, int HD, int gq, local const float* qs, local const float* kc,
                            local const float* vc, local float* comb, local float* red, global float* part,
                            size_t head_stride) {
  const int lid = get_local_id(0);
  const int parts = HD / 8, lanes = NV_WG / parts, lane = lid / parts, slice = (lid % parts) * 8;
  // The queries stay in local memory (read again each trip): in registers too they would push
  // the kernel past the 128 registers a work-item of 512 may have.
  float8 acc[NV_ATT_GQA];
  float m[NV_ATT_GQA], l[NV_ATT_GQA];
#pragma unroll
  for (int j = 0; j < NV_ATT_GQA; ++j) {
    acc[j] = (float8)(0.0f);
    m[j] = -INFINITY;
    l[j] = 0.0f;
  }
  for (int base = k0; base < k1; base += 2 * lanes) {  // the same trips for every work-item
    const int ja = base + lane, jb = ja + lanes;
    const bool has_a = ja < k1, has_b = jb < k1;
    // A lane past the range loads key k0 (always there) and weighs it 0.
    const int ra = has_a ? ja : k0, rb = has_b ? jb : k0;
    const float8 ka = ra == pos ? vload8(0, kc + slice) : nv_cache8(kcache + (ulong)ra * pos_stride, slice);
    const float8 kb = rb == pos ? vload8(0, kc + slice) : nv_cache8(kcache + (ulong)rb * pos_stride, slice);
    const float8 va = ra == pos ? vload8(0, vc + slice) : nv_cache8(vcache + (ulong)ra * pos_stride, slice);
    const float8 vb = rb == pos ? vload8(0, vc + slice) : nv_cache8(vcache + (ulong)rb * pos_stride, slice);
#pragma unroll
    for (int j = 0; j < NV_ATT_GQA; ++j) {
      if (j < gq) {  // the same for every work-item
        // Every work-item sums (the shuffles take the whole warp), then masks.
        const float8 q8 = vload8(0, qs + j * HD + slice);
        const float sum_a = nv_sum_within(nv_dot8(q8, ka), parts, red);
        const float sum_b = nv_sum_within(nv_dot8(q8, kb), parts, red);
        const float sa = has_a ? sum_a : -INFINITY, sb = has_b ? sum_b : -INFINITY;
        const float m_new = fmax(m[j], fmax(sa, sb));
        const float ref = m_new == -INFINITY ? 0.0f : m_new;  // no key yet: every weight stays 0
        const float rescale = exp(m[j] - ref), pa = exp(sa - ref), pb = exp(sb - ref);
        l[j] = l[j] * rescale + pa + pb;
        acc[j] = acc[j] * rescale + pa * va + pb * vb;
        m[j] = m_new;
      }
    }
  }
  // Per head, the lanes' results relative to the item's maximum M, summed: each warp's lanes
  // with shuffles, then the warps through comb.
#pragma unroll
  for (int j = 0; j < NV_ATT_GQA; ++j) {
    if (j < gq) {
      const float M = nv_group_max(m[j], red);
      const float w = M == -INFINITY ? 0.0f : exp(m[j] - M);
      const float L = nv_group_sum(lid % parts == 0 ? l[j] * w : 0.0f, red);
      const float8 a = acc[j] * w;
      float8 sum;
      sum.s0 = nv_sum_across(a.s0, parts, red);
      sum.s1 = nv_sum_across(a.s1, parts, red);
      sum.s2 = nv_sum_across(a.s2, parts, red);
      sum.s3 = nv_sum_across(a.s3, parts, red);
      sum.s4 = nv_sum_across(a.s4, parts, red);
      sum.s5 = nv_sum_across(a.s5, parts, red);
      sum.s6 = nv_sum_across(a.s6, parts, red);
      sum.s7 = nv_sum_across(a.s7, parts, red);
      if (lid % 32 < parts) vstore8(sum, 0, comb + (lid / 32) * HD + slice);
      barrier(CLK_LOCAL_MEM_FENCE);
      global float* out = part + j * head_stride;
      if (lid < HD) {
        float total = 0.0f;
        for (int t = 0; t < NV_WARPS; ++t) total += comb[t * HD + lid];
        out[lid] = total;
      }
      if (lid == 0) {
        out[HD] = M;
        out[HD + 1] = L;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
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

// Elements 4i .. 4i + 3 of the merged attention row (one head: HD % 8 == 0), its key ranges'
// outputs weighted, four ranges' loads at a time so that they are in flight together; stored to
// out as well when out is not null.
inline float4 nv_merged4(const global float* part, local const float* w, int i, int HD, int splits,
                         global float* out) {
  const int h = 4 * i / HD, d = 4 * i % HD;
  const global float* p = part + (size_t)h * splits * (HD + 2) + d;
  local const float* wh = w + h * splits;
  const size_t stride = HD + 2;
  float4 acc = (float4)(0.0f);
  int s = 0;
  for (; s + 4 <= splits; s += 4) {
    const float4 a = vload4(0, p + s * stride), b = vload4(0, p + (s + 1) * stride),
                 c = vload4(0, p + (s + 2) * stride), e = vload4(0, p + (s + 3) * stride);
    acc += a * wh[s] + b * wh[s + 1] + c * wh[s + 2] + e * wh[s + 3];
  }
  for (; s < splits; ++s) acc += vload4(0, p + s * stride) * wh[s];
  if (out) vstore4(acc, i, out);
  return acc;
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
    int splits, int gq,
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
  NV_TIMING_START

  // 1
  nv_quantize_row(NV_CF32(x1, x1_off), NV_CF32(attn_norm, attn_norm_off), 1, eps1, E, xq, xds, red);
  NV_MARK(0)
  NV_QKV_ROWS(qkv_q, qkv_s, E, NQKV, 0, NV_F32(qkv, qkv_off), NV_F32(qkv, qkv_off), xq, xds, red, get_group_id(0), get_num_groups(0));
  NV_MARK(1)
  int alive = nv_grid_sync(bar, groups, &ok);
  NV_MARK(2)

  // 2: att holds kc, vc (HD each), qs (gq HD), comb (NV_WARPS HD), red2 (NV_WG) and NV_WG
  // halves; in 3 the merge weights (2 H splits floats). An item is gq query heads of one KV head
  // (h0 .. h0 + gq - 1) and one of `splits` key ranges.
  if (alive) {
    local float *kc = att, *vc = att + HD, *qs = att + 2 * HD, *comb = qs + gq * HD;
    local float* red2 = comb + NV_WARPS * HD;
    local half* tmp = (local half*)(red2 + NV_WG);
    const int pos = n_past, group = H / HKV;
    const int first = window > 0 ? max(0, pos - window + 1) : 0;
    const int span = (pos + 1 - first + splits - 1) / splits;
    for (int item = get_group_id(0); item < (H / gq) * splits; item += get_num_groups(0)) {
      const int h0 = item / splits * gq, s = item % splits, kvh = h0 / group;
      const global float* kh = (const global float*)(k + k_off + (ulong)kvh * k_nb1);
      const global float* vh = (const global float*)(v + v_off + (ulong)kvh * v_nb1);
      if (lid < HD) {
        kc[lid] = nv_as_cached(nv_rope_at(kh, lid, pos, n_rot, neox, freq_base, freq_scale), tmp);
        vc[lid] = nv_as_cached(vh[lid], tmp);
      }
      for (int e = lid; e < gq * HD; e += NV_WG) {
        const global float* qh = (const global float*)(q + q_off + (ulong)(h0 + e / HD) * q_nb1);
        qs[e] = nv_rope_at(qh, e % HD, pos, n_rot, neox, freq_base, freq_scale) * att_scale;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      global uchar* kcache = cache + cache_off + (ulong)kvh * cache_nb1;
      if (s == 0 && h0 % group == 0 && lid < HD) {
        nv_cache_put(kcache + (ulong)pos * cache_nb2, lid, kc[lid]);
        nv_cache_put(kcache + cache_nb3 + (ulong)pos * cache_nb2, lid, vc[lid]);
      }
      const int k0 = first + s * span, k1 = min(k0 + span, pos + 1);
      nv_attend_range(kcache, kcache + cache_nb3, cache_nb2, k0, k1, pos, HD, gq, qs, kc, vc, comb, red2,
                      part + ((size_t)h0 * splits + s) * (HD + 2), (size_t)splits * (HD + 2));
    }
    NV_MARK(3)
    alive = nv_grid_sync(bar, groups, &ok);
    NV_MARK(4)
  }

  // 3: the merged attention row is the output projection's activation row.
  if (alive) {
    const int K = H * HD;
    local float* w = att + H * splits;
    nv_merge_weights(part, H, HD, splits, att, w);
    // Work-group 0 also writes the merged row out (the attention op's output).
    global float* attn_row = get_group_id(0) == 0 ? NV_F32(attn, attn_off) : 0;
#define NV_LOAD_MERGED(i) nv_merged4(part, w, i, HD, splits, attn_row)
    NV_QUANTIZE_BODY(NV_LOAD_MERGED)
#undef NV_LOAD_MERGED
    NV_MARK(5)
    NV_O_ROWS(o_q, o_s, K, NO, 1, NV_CF32(o_res, o_res_off), NV_F32(x3, x3_off), xq, xds, red, get_group_id(0), get_num_groups(0));
    NV_MARK(6)
    alive = nv_grid_sync(bar, groups, &ok);
    NV_MARK(7)
  }

  // 4
  if (alive) {
    nv_quantize_row(NV_CF32(x4, x4_off), NV_CF32(ffn_norm, ffn_norm_off), 1, eps4, K4, xq, xds, red);
    NV_MARK(8)
    NV_FFN_ROWS(g_q, g_s, u_q, u_s, K4, FF, NV_F32(act, act_off), xq, xds, red, get_group_id(0), get_num_groups(0));
    NV_MARK(9)
    alive = nv_grid_sync(bar, groups, &ok);
    NV_MARK(10)
  }

  // 5
  if (alive) {
    nv_quantize_row(NV_CF32(act_in, act_in_off), NV_CF32(act_in, act_in_off), 0, 0.0f, K5, xq, xds, red);
    NV_MARK(11)
    NV_DOWN_ROWS(d_q, d_s, K5, ND, 1, NV_CF32(d_res, d_res_off), NV_F32(x5, x5_off), xq, xds, red, get_group_id(0), get_num_groups(0));
    NV_MARK(12)
  } else if (get_group_id(0) == 0) {
    for (int e = lid; e < ND; e += NV_WG) NV_F32(x5, x5_off)[e] = NAN;
  }
}
