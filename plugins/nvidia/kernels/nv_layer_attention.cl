// The decode layer's attention phase (nv_layer.cl): the KV cache's element access, the warp
// sums the key lanes use, one (query heads, key range) item's partial result, and the merge of
// the ranges' partials. Its own file so that the range function can be run alone (the layer
// kernel itself builds only with inline PTX); nv_layer.cl is built behind it.
//
// Needs reduce.cl, rope_math.cl and nv_gemv.cl in front (NV_WG, NV_WARPS, NV_FAST_REDUCE, the
// work-group sums); NV_CACHE_F16 says whether the KV cache holds halves.
// clport-requires: nv_gemv.cl

#ifndef NV_CACHE_F16
#define NV_CACHE_F16 1
#endif

// Element i of a head row in the cache, stored as F16 (rounded to nearest even) or F32.
inline void nv_cache_put(global uchar* row, int i, float v) {
#if NV_CACHE_F16
  vstore_half_rte(v, i, (global half*)row);
#else
  ((global float*)row)[i] = v;
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

// Eight consecutive elements of a head row (F16 or F32) from element i (a multiple of 8; rows
// 16-byte aligned), as loaded (nv_kv8) and widened (nv_kv8_float). With PTX the halves stay one
// 16-byte word until they are used, so that the next trip's rows in flight take 16 registers
// (the driver compiles vload_half8 into eight 2-byte loads: 8B shape on an H100, 16384 cached
// keys, the attention phase 73 -> 58 us when it became one load).
#if NV_CACHE_F16 && defined(NV_PTX) && NV_PTX
typedef uint4 nv_kv8;
inline nv_kv8 nv_kv8_load(const global uchar* row, int i) { return *(const global uint4*)(row + 2 * i); }
inline float8 nv_kv8_float(nv_kv8 w) { return nv_f16x8_to_float8(w); }
#else
typedef float8 nv_kv8;
#if NV_CACHE_F16
inline nv_kv8 nv_kv8_load(const global uchar* row, int i) { return vload_half8(0, (const global half*)row + i); }
#else
inline nv_kv8 nv_kv8_load(const global uchar* row, int i) { return vload8(0, (const global float*)row + i); }
#endif
inline float8 nv_kv8_float(nv_kv8 w) { return w; }
#endif

// Sums over lanes of a warp (every lane gets its set's sum, the same in each): `within` the
// aligned sets of `width` consecutive lanes, `across` the lanes congruent modulo `stride`
// (widths and strides powers of two <= 32). Shuffles with PTX; otherwise through scratch (NV_WG
// floats), which the strict OpenCL C compiles, this file's test on PoCL and the layer under
// CLPORT_NV_LAYER_PORTABLE (oclgrind) see: a GPU runs the layer only where PTX builds.
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
  barrier(CLK_LOCAL_MEM_FENCE);  // a work-group reduction may write scratch next
  return s;
}
inline float nv_sum_across(float v, int stride, local float* scratch) {
  const int lid = get_local_id(0), warp = lid - lid % 32;
  barrier(CLK_LOCAL_MEM_FENCE);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  float s = 0.0f;
  for (int t = lid % stride; t < 32; t += stride) s += scratch[warp + t];
  barrier(CLK_LOCAL_MEM_FENCE);
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
// one KV head) the partial result (acc[HD], m, l) over keys [k0, k1) of the cache (this step's key
// and value already stored there). Each key and value is loaded once for all gq heads: a KV
// head's keys are read once a step, not once per query head. The work-group is NV_WG / (HD / 8)
// key lanes of HD / 8 work-items, each work-item 8 dimensions: key lane t takes keys k0 + t,
// k0 + t + lanes, ... (two a trip) with its own running maxima, sums and outputs, and the lanes
// are combined once at the end: no work-group reduction inside the loop. The next trip's four
// rows are loaded before this trip's arithmetic, so that the memory is busy while the scores and
// sums are computed (one work-group a compute unit: no other group's loads cover that time).
// HD % 8 == 0, HD / 8 <= 32, gq <= NV_ATT_GQA.
// qs = the heads' q * scale (gq rows of HD); comb NV_WARPS * HD floats; red NV_WG floats; head j's
// partial goes to part + j * head_stride. The scores are in base 2 (qs carries a factor log2 e,
// and so does the partial's maximum m): each exponential is one native_exp2 (ex2.approx,
// relative error about 2^-22) where exp is several instructions.
inline void nv_attend_range(const global uchar* kcache, const global uchar* vcache, ulong pos_stride, int k0,
                            int k1, int HD, int gq, local const float* qs, local float* comb, local float* red,
                            global float* part, size_t head_stride) {
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
  // A lane past the range loads key k0 (always there) and weighs it 0.
#define NV_TRIP_ROWS(base)                                                    \
  {                                                                           \
    const int ra = (base) + lane < k1 ? (base) + lane : k0;                   \
    const int rb = (base) + lane + lanes < k1 ? (base) + lane + lanes : k0;   \
    ka = nv_kv8_load(kcache + (ulong)ra * pos_stride, slice);                 \
    kb = nv_kv8_load(kcache + (ulong)rb * pos_stride, slice);                 \
    va = nv_kv8_load(vcache + (ulong)ra * pos_stride, slice);                 \
    vb = nv_kv8_load(vcache + (ulong)rb * pos_stride, slice);                 \
  }
  nv_kv8 ka, kb, va, vb;
  if (k0 < k1) NV_TRIP_ROWS(k0)  // an empty range reads nothing (k0 may lie past the cache)
  for (int base = k0; base < k1; base += 2 * lanes) {  // the same trips for every work-item
    const bool has_a = base + lane < k1, has_b = base + lane + lanes < k1;
    const float8 fka = nv_kv8_float(ka), fkb = nv_kv8_float(kb), fva = nv_kv8_float(va), fvb = nv_kv8_float(vb);
    if (base + 2 * lanes < k1) NV_TRIP_ROWS(base + 2 * lanes)
#pragma unroll
    for (int j = 0; j < NV_ATT_GQA; ++j) {
      if (j < gq) {  // the same for every work-item
        // Every work-item sums (the shuffles take the whole warp), then masks.
        const float8 q8 = vload8(0, qs + j * HD + slice);
        const float sum_a = nv_sum_within(nv_dot8(q8, fka), parts, red);
        const float sum_b = nv_sum_within(nv_dot8(q8, fkb), parts, red);
        const float sa = has_a ? sum_a : -INFINITY, sb = has_b ? sum_b : -INFINITY;
        const float m_new = fmax(m[j], fmax(sa, sb));
        const float ref = m_new == -INFINITY ? 0.0f : m_new;  // no key yet: every weight stays 0
        const float rescale = native_exp2(m[j] - ref), pa = native_exp2(sa - ref), pb = native_exp2(sb - ref);
        l[j] = l[j] * rescale + pa + pb;
        acc[j] = acc[j] * rescale + pa * fva + pb * fvb;
        m[j] = m_new;
      }
    }
  }
#undef NV_TRIP_ROWS
  // Per head, the lanes' results relative to the item's maximum M, summed: each warp's lanes
  // with shuffles, then the warps through comb.
#pragma unroll
  for (int j = 0; j < NV_ATT_GQA; ++j) {
    if (j < gq) {
      const float M = nv_group_max(m[j], red);
      const float w = M == -INFINITY ? 0.0f : native_exp2(m[j] - M);
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

// Whether this work-group's item is the last of `n` (one head group's key ranges) to finish: its
// partials are written first (the barrier, then a GPU-scope fence before the count), and the last
// one resets the count for the next launch and, after a fence, sees every other item's partials.
inline int nv_last_arrival(volatile global uint* count, int n, local int* flag) {
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0) {
    nv_fence_gpu();
    const int last = atomic_inc(count) == (uint)n - 1;
    if (last) {
      atomic_xchg(count, 0u);
      nv_fence_gpu();
    }
    *flag = last;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  return *flag;
}

// The attention rows of gq heads from their `splits` ranges' partials (nv_attend_range's: acc,
// m, l in base 2 at part + (j splits + s)(HD + 2)): out[j HD + d] = sum_s 2^(m_s - M) acc_s[d] /
// sum_s 2^(m_s - M) l_s, M the largest m_s (an empty range, l = 0, weighs nothing). The
// partials come from other compute units in this launch, so they are read from L2; four ranges'
// loads at a time. ml: 2 gq splits floats of local memory.
inline void nv_merge_heads(const global float* part, int gq, int HD, int splits, global float* out, local float* ml) {
  const int lid = get_local_id(0), n = gq * splits;
  const size_t stride = HD + 2;
  for (int t = lid; t < n; t += NV_WG) {
    ml[t] = nv_load_l2_f1(part + t * stride + HD);
    ml[n + t] = nv_load_l2_f1(part + t * stride + HD + 1);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int e = lid; e < gq * HD; e += NV_WG) {
    const int j = e / HD, d = e % HD;
    local const float *m = ml + j * splits, *l = ml + n + j * splits;
    float top = -INFINITY;
    for (int s = 0; s < splits; ++s) top = fmax(top, m[s]);
    const global float* p = part + (size_t)j * splits * stride + d;
    float acc = 0.0f, sum = 0.0f;
    int s = 0;
    for (; s + 4 <= splits; s += 4) {
      const float a = nv_load_l2_f1(p + s * stride), b = nv_load_l2_f1(p + (s + 1) * stride),
                  c = nv_load_l2_f1(p + (s + 2) * stride), f = nv_load_l2_f1(p + (s + 3) * stride);
      const float wa = l[s] > 0.0f ? native_exp2(m[s] - top) : 0.0f;
      const float wb = l[s + 1] > 0.0f ? native_exp2(m[s + 1] - top) : 0.0f;
      const float wc = l[s + 2] > 0.0f ? native_exp2(m[s + 2] - top) : 0.0f;
      const float wf = l[s + 3] > 0.0f ? native_exp2(m[s + 3] - top) : 0.0f;
      acc += a * wa + b * wb + c * wc + f * wf;
      sum += l[s] * wa + l[s + 1] * wb + l[s + 2] * wc + l[s + 3] * wf;
    }
    for (; s < splits; ++s) {
      const float w = l[s] > 0.0f ? native_exp2(m[s] - top) : 0.0f;
      acc += nv_load_l2_f1(p + s * stride) * w;
      sum += l[s] * w;
    }
    out[e] = sum > 0.0f ? acc / sum : 0.0f;
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // ml is free again
}
