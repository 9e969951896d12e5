// A whole decode layer of the llama family in one launch: the five ops of a plan group
// (nv_layer.hpp) for one token, in phases separated by grid-wide barriers:
//  1. qkv = Wqkv . rms_norm(x) * attn_norm                         (RMS_NORM_MUL_MAT)
//  2. RoPE of q and k at position n_past, k and v into the KV cache, attention of each head over
//     positions 0 .. n_past, each head's keys in `splits` ranges, a partial result per range (gq
//     query heads of one KV head at once), merged into attn by the last range of each head
//     group to finish                                              (ROPE_KV_STORE_ATTENTION)
//  3. x += Wo . attn                                               (MUL_MAT_ADD)
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
// clport-requires: nv_layer_attention.cl
// Needs reduce.cl, rope_math.cl, nv_gemv.cl and nv_layer_attention.cl in front; NV_QKV_ROWS,
// NV_O_ROWS, NV_FFN_ROWS and NV_DOWN_ROWS name the row functions of each weight's dtype
// (nv_rows_q4_0, ..., and nv_swiglu_rows_* for NV_FFN_ROWS).

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
// bar[NV_ARRIVALS + g]: the count of head group g's key ranges finished this launch.
#define NV_ARRIVALS 32
#ifndef NV_SPIN_LIMIT
#define NV_SPIN_LIMIT (1u << 24)
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
    volatile global uint* bar, uint groups, local int4* xq, local float2* xds) {
  local float red[2 * NV_ROWS * NV_RED_STRIDE];
  local int ok;
  const int lid = get_local_id(0);
  NV_TIMING_START

  // 1
  nv_quantize_row(NV_CF32(x1, x1_off), NV_CF32(attn_norm, attn_norm_off), 1, eps1, E, xq, xds, red, 0, red);
  NV_MARK(0)
  NV_QKV_ROWS(qkv_q, qkv_s, E, NQKV, 0, NV_F32(qkv, qkv_off), NV_F32(qkv, qkv_off), xq, xds, red, get_group_id(0), get_num_groups(0));
  NV_MARK(1)
  int alive = nv_grid_sync(bar, groups, &ok);
  NV_MARK(2)

  // 2: att holds qs (gq HD), comb (NV_WARPS HD) and red2 (NV_WG), then the merge's range
  // maxima and sums (2 gq splits floats). An item is gq query heads of one KV head (h0 .. h0 + gq - 1) and one of
  // `splits` key ranges.
  if (alive) {
    // The attention's scratch lies over the activation codes, which no phase needs across a grid
    // barrier: one arena of the larger size keeps the 70B shape's 28672-wide down projection
    // within 48 KiB of local memory.
    local float* att = (local float*)xq;
    local float *qs = att, *comb = qs + gq * HD, *red2 = comb + NV_WARPS * HD;
    const int pos = n_past, group = H / HKV;
    const int first = window > 0 ? max(0, pos - window + 1) : 0;
    const int span = (pos + 1 - first + splits - 1) / splits;
    for (int item = get_group_id(0); item < (H / gq) * splits; item += get_num_groups(0)) {
      const int h0 = item / splits * gq, s = item % splits, kvh = h0 / group;
      const int k0 = first + s * span, k1 = min(k0 + span, pos + 1);
      global uchar* kcache = cache + cache_off + (ulong)kvh * cache_nb1;
      // The items whose range holds this step's key store it and its value into the cache and
      // read them back from there with the others (after the barrier below; a work-group sees
      // its own global writes). Items of the same KV head and range (gq < H / HKV) store the same
      // bytes.
      if (k0 <= pos && pos < k1 && lid < HD) {
        const global float* kh = (const global float*)(k + k_off + (ulong)kvh * k_nb1);
        const global float* vh = (const global float*)(v + v_off + (ulong)kvh * v_nb1);
        nv_cache_put(kcache + (ulong)pos * cache_nb2, lid, nv_rope_at(kh, lid, pos, n_rot, neox, freq_base, freq_scale));
        nv_cache_put(kcache + cache_nb3 + (ulong)pos * cache_nb2, lid, vh[lid]);
      }
      for (int e = lid; e < gq * HD; e += NV_WG) {
        const global float* qh = (const global float*)(q + q_off + (ulong)(h0 + e / HD) * q_nb1);
        // In base 2 (scaled by log2 e): each of the range's exponentials is one ex2.approx.
        qs[e] = nv_rope_at(qh, e % HD, pos, n_rot, neox, freq_base, freq_scale) * (att_scale * M_LOG2E_F);
      }
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
      nv_attend_range(kcache, kcache + cache_nb3, cache_nb2, k0, k1, HD, gq, qs, comb, red2,
                      part + ((size_t)h0 * splits + s) * (HD + 2), (size_t)splits * (HD + 2));
      // The last of the head group's ranges to finish merges them into the attention row (the
      // attention op's output), so that phase 3 reads one row, not every range's partials.
      if (nv_last_arrival(bar + NV_ARRIVALS + h0 / gq, splits, &ok))
        nv_merge_heads(part + (size_t)h0 * splits * (HD + 2), gq, HD, splits, NV_F32(attn, attn_off) + h0 * HD, att);
    }
    NV_MARK(3)
    alive = nv_grid_sync(bar, groups, &ok);
    NV_MARK(4)
  }

  // 3: the attention row is the output projection's activation row (written in this launch by
  // other compute units: read from L2).
  if (alive) {
    const int K = H * HD;
    const global float* attn_row = NV_CF32(attn, attn_off);
#define NV_LOAD_ATTN(i) \
  (float4)(nv_load_l2_f1(attn_row + 4 * (i)), nv_load_l2_f1(attn_row + 4 * (i) + 1), nv_load_l2_f1(attn_row + 4 * (i) + 2), \
           nv_load_l2_f1(attn_row + 4 * (i) + 3))
    NV_QUANTIZE_BODY(NV_LOAD_ATTN, 0, red)
#undef NV_LOAD_ATTN
    NV_MARK(5)
    NV_O_ROWS(o_q, o_s, K, NO, 1, NV_CF32(o_res, o_res_off), NV_F32(x3, x3_off), xq, xds, red, get_group_id(0), get_num_groups(0));
    NV_MARK(6)
    alive = nv_grid_sync(bar, groups, &ok);
    NV_MARK(7)
  }

  // 4
  if (alive) {
    nv_quantize_row(NV_CF32(x4, x4_off), NV_CF32(ffn_norm, ffn_norm_off), 1, eps4, K4, xq, xds, red, 0, red);
    NV_MARK(8)
    NV_FFN_ROWS(g_q, g_s, u_q, u_s, K4, FF, NV_F32(act, act_off), xq, xds, red, get_group_id(0), get_num_groups(0));
    NV_MARK(9)
    alive = nv_grid_sync(bar, groups, &ok);
    NV_MARK(10)
  }

  // 5
  if (alive) {
    nv_quantize_row(NV_CF32(act_in, act_in_off), NV_CF32(act_in, act_in_off), 0, 0.0f, K5, xq, xds, red, 0, red);
    NV_MARK(11)
    NV_DOWN_ROWS(d_q, d_s, K5, ND, 1, NV_CF32(d_res, d_res_off), NV_F32(x5, x5_off), xq, xds, red, get_group_id(0), get_num_groups(0));
    NV_MARK(12)
  } else if (get_group_id(0) == 0) {
    for (int e = lid; e < ND; e += NV_WG) NV_F32(x5, x5_off)[e] = NAN;
  }
}
