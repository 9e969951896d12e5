// Prompt attention for NVIDIA GPUs: ATTENTION and ROPE_ATTENTION over a KV cache (F32, F16, Q8_0 or
// Q4_0, one type for K and V) for a batch of query tokens, with the semantics of
// kernels/attention.cl (causal from n_past, sliding window, grouped-query heads, q rotated here
// when n_rot > 0). Needs common.cl, blocks.cl and rope_math.cl in front.
//
// The shared kernel runs one work-group per (head, token), so every query streams every key from
// L2 on its own and synchronises its work-group twice per chunk of keys. Here a work-group of
// NV_ATT_BQ work-items takes NV_ATT_BQ consecutive query tokens of one head, one token each; tiles
// of NV_ATT_BK keys and their values are staged in local memory once for all of them, and each
// work-item keeps its query row in local memory and its output row in registers:
//  - scores: for each dim d, one load of q[d] and NV_ATT_BK / 4 broadcast float4 loads of the
//    transposed key tile feed NV_ATT_BK multiply-adds;
//  - online softmax per tile: the running max is raised once per tile, so the output row is
//    rescaled once per tile, not per key;
//  - values: broadcast float4 loads of the value tile, four multiply-adds each.
// NV_ATT_HD is the head size (a multiple of 4, compiled per model); local memory is
// NV_ATT_BQ (NV_ATT_HD + 1) + 2 NV_ATT_HD NV_ATT_BK floats. The host picks NV_ATT_BQ and
// NV_ATT_BK so that stays within 33 KiB.

#ifndef NV_ATT_HD
#define NV_ATT_HD 64
#endif
#ifndef NV_ATT_BQ
#define NV_ATT_BQ 64
#endif
#ifndef NV_ATT_BK
#define NV_ATT_BK 32
#endif
#define NV_ATT_D4 (NV_ATT_HD / 4)
// Query rows padded by one float: work-item i reads row i, so a warp's loads of one dim fall in
// 32 different banks.
#define NV_ATT_QSTRIDE (NV_ATT_HD + 1)

#define NV_ATT_LOAD4_F32(i, p) vload4(i, (const global float*)(p))
#define NV_ATT_LOAD4_F16(i, p) vload_half4(i, (const global half*)(p))

// Quantized rows (blocks.cl's decoders, those of the shared attention kernels).
#define NV_ATT_LOAD4_Q8_0(i, p) kv4_q8_0((const global uchar*)(p), i)
#define NV_ATT_LOAD4_Q4_0(i, p) kv4_q4_0((const global uchar*)(p), i)

// Global size (NV_ATT_BQ * n_head, ceil(n_tokens / NV_ATT_BQ)).
#define NV_ATTENTION_KERNEL(NAME, LOAD4)                                                           \
  kernel __attribute__((reqd_work_group_size(NV_ATT_BQ, 1, 1))) void NAME(                        \
      const global uchar* q, ulong q_off, ulong q_nb1, ulong q_nb2, const global uchar* k, ulong k_off, \
      const global uchar* v, ulong v_off, ulong kv_nb1, ulong kv_nb2, global uchar* out, ulong out_off, \
      int n_tokens, int n_head, int n_kv_head, int n_past, float scale, int n_rot, int neox,       \
      float freq_base, float freq_scale, const global uchar* ff, ulong ff_off, int has_ff, int window) { \
    local float qs[NV_ATT_BQ * NV_ATT_QSTRIDE];                                                  \
    local float4 kt[NV_ATT_HD * NV_ATT_BK / 4]; /* [dim][key]: four keys of one dim per float4 */ \
    local float4 vt[NV_ATT_BK * NV_ATT_D4];     /* [key][dim] */                                 \
    const int h = get_group_id(0), lid = get_local_id(0), t0 = get_group_id(1) * NV_ATT_BQ;      \
    const int t = min(t0 + lid, n_tokens - 1); /* items past the batch redo the last token */   \
    const int kvh = h / (n_head / n_kv_head);                                                    \
    local float* qr = qs + lid * NV_ATT_QSTRIDE;                                                 \
    const global float* qg = (const global float*)(q + q_off + h * q_nb1 + (size_t)t * q_nb2);   \
    for (int d = 0; d < NV_ATT_HD; ++d) qr[d] = qg[d];                                           \
    for (int i = 0; i < n_rot / 2; ++i) {                                                        \
      const int2 e = rope_pair(i, n_rot, neox);                                                  \
      const float2 r = rope_rotate(qr[e.x], qr[e.y], rope_cos_sin(i, n_past + t, n_rot, freq_base, freq_scale, \
                                                                  rope_factor(ff, ff_off, has_ff, i))); \
      qr[e.x] = r.x;                                                                             \
      qr[e.y] = r.y;                                                                             \
    }                                                                                            \
    /* This item's keys [first, last]; the group's span every item's. */                        \
    const int last = n_past + t, first = window > 0 ? max(0, last + 1 - window) : 0;           \
    const int t_hi = min(t0 + NV_ATT_BQ, n_tokens) - 1;                                          \
    const int lo = window > 0 ? max(0, n_past + t0 + 1 - window) : 0, hi = n_past + t_hi;        \
    const global uchar* kbase = k + k_off + (size_t)kvh * kv_nb1;                                \
    const global uchar* vbase = v + v_off + (size_t)kvh * kv_nb1;                                \
    float m = -INFINITY, l = 0.0f;                                                               \
    float4 acc[NV_ATT_D4];                                                                       \
    for (int d4 = 0; d4 < NV_ATT_D4; ++d4) acc[d4] = (float4)(0.0f);                             \
    for (int j0 = lo; j0 <= hi; j0 += NV_ATT_BK) {                                               \
      barrier(CLK_LOCAL_MEM_FENCE); /* the previous tile is no longer read */                   \
      local float* ktf = (local float*)kt;                                                       \
      for (int e = lid; e < NV_ATT_BK * NV_ATT_D4; e += NV_ATT_BQ) {                             \
        /* keys: consecutive items take consecutive keys (conflict-free transposed stores) */    \
        const int jk = e % NV_ATT_BK, dk = e / NV_ATT_BK;                                        \
        const float4 kv4 = j0 + jk <= hi ? LOAD4(dk, kbase + (size_t)(j0 + jk) * kv_nb2) : (float4)(0.0f); \
        ktf[(4 * dk) * NV_ATT_BK + jk] = kv4.x;                                                  \
        ktf[(4 * dk + 1) * NV_ATT_BK + jk] = kv4.y;                                              \
        ktf[(4 * dk + 2) * NV_ATT_BK + jk] = kv4.z;                                              \
        ktf[(4 * dk + 3) * NV_ATT_BK + jk] = kv4.w;                                              \
        /* values: consecutive items take consecutive dims of one key */                         \
        const int jv = e / NV_ATT_D4, dv = e % NV_ATT_D4;                                        \
        vt[e] = j0 + jv <= hi ? LOAD4(dv, vbase + (size_t)(j0 + jv) * kv_nb2) : (float4)(0.0f);  \
      }                                                                                          \
      barrier(CLK_LOCAL_MEM_FENCE);                                                              \
      float4 s4[NV_ATT_BK / 4];                                                                  \
      for (int j4 = 0; j4 < NV_ATT_BK / 4; ++j4) s4[j4] = (float4)(0.0f);                        \
      for (int d = 0; d < NV_ATT_HD; ++d) {                                                      \
        const float qd = qr[d];                                                                  \
        for (int j4 = 0; j4 < NV_ATT_BK / 4; ++j4) s4[j4] = fma((float4)(qd), kt[d * (NV_ATT_BK / 4) + j4], s4[j4]); \
      }                                                                                          \
      float tile_max = -INFINITY;                                                                \
      for (int j4 = 0; j4 < NV_ATT_BK / 4; ++j4) {                                               \
        const int j = j0 + 4 * j4;                                                               \
        /* masked keys (outside [first, last]) score -inf */                                    \
        float4 s = s4[j4] * scale;                                                               \
        s.x = j >= first && j <= last ? s.x : -INFINITY;                                         \
        s.y = j + 1 >= first && j + 1 <= last ? s.y : -INFINITY;                                 \
        s.z = j + 2 >= first && j + 2 <= last ? s.z : -INFINITY;                                 \
        s.w = j + 3 >= first && j + 3 <= last ? s.w : -INFINITY;                                 \
        s4[j4] = s;                                                                              \
        tile_max = fmax(tile_max, fmax(fmax(s.x, s.y), fmax(s.z, s.w)));                         \
      }                                                                                          \
      if (tile_max == -INFINITY) continue; /* no key of this tile is visible to this query */    \
      const float m_new = fmax(m, tile_max), corr = exp(m - m_new);                              \
      float tile_sum = 0.0f;                                                                     \
      for (int j4 = 0; j4 < NV_ATT_BK / 4; ++j4) {                                               \
        s4[j4] = exp(s4[j4] - m_new);                                                            \
        tile_sum += s4[j4].x + s4[j4].y + s4[j4].z + s4[j4].w;                                   \
      }                                                                                          \
      l = l * corr + tile_sum;                                                                   \
      m = m_new;                                                                                 \
      for (int d4 = 0; d4 < NV_ATT_D4; ++d4) {                                                   \
        float4 a = acc[d4] * corr;                                                               \
        for (int j4 = 0; j4 < NV_ATT_BK / 4; ++j4) {                                             \
          const float4 p = s4[j4];                                                               \
          a = fma((float4)(p.x), vt[(4 * j4) * NV_ATT_D4 + d4], a);                              \
          a = fma((float4)(p.y), vt[(4 * j4 + 1) * NV_ATT_D4 + d4], a);                          \
          a = fma((float4)(p.z), vt[(4 * j4 + 2) * NV_ATT_D4 + d4], a);                          \
          a = fma((float4)(p.w), vt[(4 * j4 + 3) * NV_ATT_D4 + d4], a);                          \
        }                                                                                        \
        acc[d4] = a;                                                                             \
      }                                                                                          \
    }                                                                                            \
    if (t0 + lid < n_tokens) {                                                                   \
      global float* og = (global float*)(out + out_off) + ((size_t)t * n_head + h) * NV_ATT_HD;  \
      const float inv_l = 1.0f / l;                                                              \
      for (int d4 = 0; d4 < NV_ATT_D4; ++d4) vstore4(acc[d4] * inv_l, d4, og);                   \
    }                                                                                            \
  }

NV_ATTENTION_KERNEL(nv_attention_prompt_f32, NV_ATT_LOAD4_F32)
NV_ATTENTION_KERNEL(nv_attention_prompt_f16, NV_ATT_LOAD4_F16)
NV_ATTENTION_KERNEL(nv_attention_prompt_q8_0, NV_ATT_LOAD4_Q8_0)
NV_ATTENTION_KERNEL(nv_attention_prompt_q4_0, NV_ATT_LOAD4_Q4_0)
