// Causal attention over a KV cache with grouped-query heads and an online (streaming) softmax.
// Needs reduce.cl and rope_math.cl in front.
//   q   [head_dim, n_head, n_tokens] F32, rows contiguous, byte strides q_nb1 (head), q_nb2
//       (token); rotated here first (RoPE at position n_past + t) when n_rot > 0, with the
//       frequency factors ff when has_ff
//   STORE_NEW (the attention_store_* kernels; one token, n_past its position): kn / vn are that
//       token's K and V [head_dim, n_kv_head] F32 (row strides kn_nb1, vn_nb1), stored here at slot n_past of the
//       cache (V kv_nb3 bytes after K) and used from local memory: RoPE + KV store + attention in
//       one kernel
//   K,V [head_dim, n_kv_head, n_ctx] F32 or F16, byte strides kv_nb1 (head), kv_nb2 (position)
//   out [head_dim, n_head, n_tokens] F32, contiguous
// Query t sees keys 0 .. n_past + t, with window > 0 only the last `window` of them; head h
// reads kv head h / (n_head / n_kv_head).
// One work-group of ATT_WG per (head, token); global size (n_head * ATT_WG, n_tokens).
// Keys are visited in chunks of ATT_WG (one key per work-item for the score), the running max
// and sum are rescaled per chunk, so any n_ctx works with fixed local memory. Work-item l owns
// output dims l, l + ATT_WG, ... (ATT_DPT of them): head_dim <= ATT_WG * ATT_DPT.
// SPLIT (the attention_split_store_* kernels, one decode token): the keys are cut into n_split
// consecutive ranges, one work-group per (head, range) (global size (n_head * ATT_WG, n_split)),
// and each writes its range's running max, sum and unnormalised output to `part`
// ([n_head][n_split][head_dim + 2] floats: m, l, acc); attention_merge combines them. A decode
// step otherwise has only n_head work-groups, which leaves most of a big GPU idle over a long
// cache. The last range takes the new key and stores it (its K and V are read by no other
// range: those see keys below n_past only).

#ifndef ATT_WG
#define ATT_WG 64
#endif
#ifndef ATT_DPT
#define ATT_DPT 4
#endif

#define CLPORT_KV_LOAD_F32(i, p) (p)[i]
#define CLPORT_KV_LOAD4_F32(i, p) vload4(i, p)
#define CLPORT_KV_LOAD_F16(i, p) vload_half(i, p)
#define CLPORT_KV_LOAD4_F16(i, p) vload_half4(i, p)

// The parameters of every attention kernel (the work-group ones and the serial ones below).
#define CLPORT_ATTENTION_PARAMS                                                                \
  const global uchar *q, ulong q_off, const global uchar *k, ulong k_off, const global uchar *v, \
      ulong v_off, ulong kv_nb1, ulong kv_nb2, global uchar *out, ulong out_off, int head_dim,  \
      int n_head, int n_kv_head, int n_past, float scale, ulong q_nb1, ulong q_nb2, int n_rot,  \
      int neox, float freq_base, float freq_scale, const global uchar *kn, ulong kn_off,        \
      ulong kn_nb1, const global uchar *vn, ulong vn_off, ulong vn_nb1, global uchar *cache,    \
      ulong cache_off, ulong kv_nb3, int window, const global uchar *ff, ulong ff_off, int has_ff

// The split kernels' extra parameters: the range count and the partial results.
#define CLPORT_ATTENTION_SPLIT_PARAMS , int n_split, global float *part

#define CLPORT_ATTENTION(NAME, STORE_NEW, SPLIT, KT, LOAD1, LOAD4, STORE1, ROUND)               \
  kernel __attribute__((reqd_work_group_size(ATT_WG, 1, 1))) void NAME(                        \
      CLPORT_ATTENTION_PARAMS CLPORT_ATTENTION_SPLIT_##SPLIT) {                                \
    local float qv[ATT_WG * ATT_DPT];                                                          \
    local float kv_new[2 * ATT_WG * ATT_DPT]; /* STORE_NEW: this step's K (roped), then V */    \
    local float p[ATT_WG];                                                                     \
    local float scratch[ATT_WG];                                                               \
    const int h = get_group_id(0), t = SPLIT ? 0 : get_group_id(1), lid = get_local_id(0);     \
    const int nsplit = CLPORT_ATT_NSPLIT_##SPLIT;                                              \
    const int split = SPLIT ? get_group_id(1) : 0, last = split == nsplit - 1;                 \
    const int kvh = h / (n_head / n_kv_head);                                                  \
    const size_t qrow = ((size_t)t * n_head + h) * head_dim;                                   \
    const global float* qg = (const global float*)(q + q_off + h * q_nb1 + t * q_nb2);         \
    for (int d = lid; d < ATT_WG * ATT_DPT; d += ATT_WG) qv[d] = d < head_dim ? qg[d] : 0.0f;  \
    barrier(CLK_LOCAL_MEM_FENCE);                                                              \
    for (int i = lid; i < n_rot / 2; i += ATT_WG) {                                            \
      const int2 e = rope_pair(i, n_rot, neox);                                                \
      const float2 r = rope_rotate(qv[e.x], qv[e.y],                                           \
                                   rope_cos_sin(i, n_past + t, n_rot, freq_base, freq_scale,   \
                                                rope_factor(ff, ff_off, has_ff, i)));          \
      qv[e.x] = r.x; /* pairs are disjoint: no other work-item touches e */                    \
      qv[e.y] = r.y;                                                                           \
    }                                                                                          \
    barrier(CLK_LOCAL_MEM_FENCE); /* every rotated pair is in qv before any score reads it */  \
    if (STORE_NEW) {                                                                           \
      /* One decode token: its K and V come from the projection (K rotated, both rounded to    \
         the cache type), the first query head of each KV group stores them at slot n_past, and \
         every head reads that key from here: no work-group reads a slot written in this run. */ \
      const global float* kg = (const global float*)(kn + kn_off + kvh * kn_nb1);              \
      const global float* vg = (const global float*)(vn + vn_off + kvh * vn_nb1);              \
      for (int d = lid; d < head_dim; d += ATT_WG) {                                           \
        kv_new[d] = kg[d];                                                                     \
        kv_new[ATT_WG * ATT_DPT + d] = ROUND(vg[d]);                                           \
      }                                                                                        \
      barrier(CLK_LOCAL_MEM_FENCE);                                                            \
      for (int i = lid; i < n_rot / 2; i += ATT_WG) {                                          \
        const int2 e = rope_pair(i, n_rot, neox);                                              \
        const float2 r = rope_rotate(kv_new[e.x], kv_new[e.y],                                 \
                                     rope_cos_sin(i, n_past, n_rot, freq_base, freq_scale,     \
                                                  rope_factor(ff, ff_off, has_ff, i)));        \
        kv_new[e.x] = r.x;                                                                     \
        kv_new[e.y] = r.y;                                                                     \
      }                                                                                        \
      barrier(CLK_LOCAL_MEM_FENCE);                                                            \
      for (int d = lid; d < head_dim; d += ATT_WG) kv_new[d] = ROUND(kv_new[d]);               \
      if (last && h % (n_head / n_kv_head) == 0) {                                             \
        global uchar* slot = cache + cache_off + (size_t)kvh * kv_nb1 + (size_t)n_past * kv_nb2; \
        for (int d = lid; d < head_dim; d += ATT_WG) {                                         \
          STORE1(kv_new[d], d, (global KT*)slot);                                              \
          STORE1(kv_new[ATT_WG * ATT_DPT + d], d, (global KT*)(slot + kv_nb3));                \
        }                                                                                      \
      }                                                                                        \
      barrier(CLK_LOCAL_MEM_FENCE);                                                            \
    }                                                                                          \
    /* Keys read from the cache; with STORE_NEW the last one (n_past) comes from kv_new after. */ \
    int n_keys = STORE_NEW ? n_past : n_past + t + 1;                                          \
    int first = window > 0 ? max(0, n_past + t + 1 - window) : 0;                              \
    if (SPLIT) { /* this work-group's range of the cached keys */                              \
      const int per = (n_keys - first + nsplit - 1) / nsplit;                                  \
      const int begin = min(n_keys, first + split * per);                                      \
      n_keys = min(n_keys, begin + per);                                                       \
      first = begin;                                                                           \
    }                                                                                          \
    const global uchar* kbase = k + k_off + (size_t)kvh * kv_nb1;                              \
    const global uchar* vbase = v + v_off + (size_t)kvh * kv_nb1;                              \
    float m = -INFINITY, l = 0.0f, acc[ATT_DPT];                                               \
    for (int i = 0; i < ATT_DPT; ++i) acc[i] = 0.0f;                                           \
    for (int j0 = first; j0 < n_keys; j0 += ATT_WG) {                                          \
      const int j = j0 + lid;                                                                  \
      float s = -INFINITY;                                                                     \
      if (j < n_keys) {                                                                        \
        const global KT* kr = (const global KT*)(kbase + (size_t)j * kv_nb2);                  \
        float dotv = 0.0f;                                                                     \
        int d = 0;                                                                             \
        for (; d + 4 <= head_dim; d += 4) dotv += dot(LOAD4(d / 4, kr), vload4(d / 4, qv));    \
        for (; d < head_dim; ++d) dotv += LOAD1(d, kr) * qv[d];                                \
        s = dotv * scale;                                                                      \
      }                                                                                        \
      const float m_new = fmax(m, wg_reduce_max(s, scratch, ATT_WG));                          \
      const float pj = j < n_keys ? exp(s - m_new) : 0.0f;                                     \
      p[lid] = pj;                                                                             \
      const float chunk_sum = wg_reduce_sum(pj, scratch, ATT_WG); /* its barrier publishes p */ \
      const float corr = exp(m - m_new);                                                       \
      l = l * corr + chunk_sum;                                                                \
      const int nj = min(ATT_WG, n_keys - j0);                                                 \
      for (int i = 0; i < ATT_DPT; ++i) {                                                      \
        const int d = lid + i * ATT_WG;                                                        \
        if (d < head_dim) {                                                                    \
          float a = acc[i] * corr;                                                             \
          for (int jj = 0; jj < nj; ++jj)                                                      \
            a = fma(p[jj], LOAD1(d, (const global KT*)(vbase + (size_t)(j0 + jj) * kv_nb2)), a); \
          acc[i] = a;                                                                          \
        }                                                                                      \
      }                                                                                        \
      m = m_new;                                                                               \
      barrier(CLK_LOCAL_MEM_FENCE); /* p is rewritten by the next chunk */                     \
    }                                                                                          \
    if (STORE_NEW && last) { /* the new key: one more online-softmax step, same on every item */ \
      float dotv = 0.0f;                                                                       \
      for (int d = 0; d < head_dim; ++d) dotv += kv_new[d] * qv[d];                            \
      const float s = dotv * scale, m_new = fmax(m, s);                                        \
      const float corr = exp(m - m_new), pj = exp(s - m_new);                                  \
      l = l * corr + pj;                                                                       \
      for (int i = 0; i < ATT_DPT; ++i) {                                                      \
        const int d = lid + i * ATT_WG;                                                        \
        if (d < head_dim) acc[i] = fma(pj, kv_new[ATT_WG * ATT_DPT + d], acc[i] * corr);      \
      }                                                                                        \
      m = m_new; /* a split's partial result carries the max its l and acc are relative to */  \
    }                                                                                          \
    if (SPLIT) {                                                                               \
      global float* pg = CLPORT_ATT_PART_##SPLIT + ((size_t)h * nsplit + split) * (head_dim + 2); \
      if (lid == 0) {                                                                          \
        pg[0] = m;                                                                             \
        pg[1] = l;                                                                             \
      }                                                                                        \
      for (int i = 0; i < ATT_DPT; ++i) {                                                      \
        const int d = lid + i * ATT_WG;                                                        \
        if (d < head_dim) pg[2 + d] = acc[i];                                                  \
      }                                                                                        \
    } else {                                                                                   \
      global float* og = CLPORT_AT(global float*, out, out_off) + qrow;                        \
      const float inv_l = 1.0f / l;                                                            \
      for (int i = 0; i < ATT_DPT; ++i) {                                                      \
        const int d = lid + i * ATT_WG;                                                        \
        if (d < head_dim) og[d] = acc[i] * inv_l;                                              \
      }                                                                                        \
    }                                                                                          \
  }

#define CLPORT_ATTENTION_SPLIT_0
#define CLPORT_ATTENTION_SPLIT_1 CLPORT_ATTENTION_SPLIT_PARAMS
#define CLPORT_ATT_NSPLIT_0 1
#define CLPORT_ATT_NSPLIT_1 n_split
#define CLPORT_ATT_PART_0 ((global float*)0)
#define CLPORT_ATT_PART_1 part

#define CLPORT_KV_STORE_F32(x, i, p) ((p)[i] = (x))
#define CLPORT_KV_STORE_F16(x, i, p) vstore_half_rte((x), (i), (p))
#define CLPORT_KV_ROUND_F32(x) (x)
// The value an F16 cache would hold (round to nearest even, as the store does).
inline float kv_round_f16(float x) {
  ushort bits;
  vstore_half_rte(x, 0, (half*)&bits);
  return vload_half(0, (const half*)&bits);
}
#define CLPORT_KV_ROUND_F16(x) kv_round_f16(x)

// STORE_NEW is a compile-time constant rather than a kernel argument: PoCL 5.0's work-group
// compiler crashes (SIGSEGV at the first enqueue) on barriers inside a branch on an argument.
CLPORT_ATTENTION(attention_f32, 0, 0, float, CLPORT_KV_LOAD_F32, CLPORT_KV_LOAD4_F32, CLPORT_KV_STORE_F32, CLPORT_KV_ROUND_F32)
CLPORT_ATTENTION(attention_f16, 0, 0, half, CLPORT_KV_LOAD_F16, CLPORT_KV_LOAD4_F16, CLPORT_KV_STORE_F16, CLPORT_KV_ROUND_F16)
CLPORT_ATTENTION(attention_store_f32, 1, 0, float, CLPORT_KV_LOAD_F32, CLPORT_KV_LOAD4_F32, CLPORT_KV_STORE_F32, CLPORT_KV_ROUND_F32)
CLPORT_ATTENTION(attention_store_f16, 1, 0, half, CLPORT_KV_LOAD_F16, CLPORT_KV_LOAD4_F16, CLPORT_KV_STORE_F16, CLPORT_KV_ROUND_F16)
CLPORT_ATTENTION(attention_split_store_f32, 1, 1, float, CLPORT_KV_LOAD_F32, CLPORT_KV_LOAD4_F32, CLPORT_KV_STORE_F32, CLPORT_KV_ROUND_F32)
CLPORT_ATTENTION(attention_split_store_f16, 1, 1, half, CLPORT_KV_LOAD_F16, CLPORT_KV_LOAD4_F16, CLPORT_KV_STORE_F16, CLPORT_KV_ROUND_F16)

// Combines the n_split partial results of attention_split_store_* for one decode token: global
// size (round_up(head_dim, ATT_WG), n_head). A range without keys (m = -inf, l = 0) adds nothing.
kernel void attention_merge(const global float* part, int n_split, int head_dim, global uchar* out, ulong out_off) {
  const int d = get_global_id(0), h = get_global_id(1);
  if (d >= head_dim) return;
  const global float* ph = part + (size_t)h * n_split * (head_dim + 2);
  float m = -INFINITY;
  for (int s = 0; s < n_split; ++s) m = fmax(m, ph[(size_t)s * (head_dim + 2)]);
  float l = 0.0f, acc = 0.0f;
  for (int s = 0; s < n_split; ++s) {
    const global float* p = ph + (size_t)s * (head_dim + 2);
    const float w = p[1] > 0.0f ? exp(p[0] - m) : 0.0f;
    l = fma(p[1], w, l);
    acc = fma(p[2 + d], w, acc);
  }
  CLPORT_AT(global float*, out, out_off)[(size_t)h * head_dim + d] = acc / l;
}

// Attention for CPU devices (the attention_serial_* kernels): one work-item computes one (query
// head, token) row serially over its keys, with no barriers. Same arguments, layouts and results
// as the work-group kernels above. Why: a CPU OpenCL
// runtime (PoCL) runs each barrier-separated region of a work-group as its own loop over the
// work-items, which at decode sizes (tens of keys) costs more than the arithmetic.
// The softmax is online: the running maximum m, sum l and output acc are rescaled when a key's
// score raises m. Global size (n_head, n_tokens), any local size; head_dim <= ATT_SERIAL_HD.

#ifndef ATT_SERIAL_HD
#define ATT_SERIAL_HD 256
#endif

// One key's step of the online softmax: score s, value row vr (cache type KT).
#define CLPORT_SERIAL_STEP(s, VALUE4, VALUE1)                                                  \
  {                                                                                            \
    if (s > m) {                                                                               \
      const float corr = exp(m - s); /* 0 on the first key: m starts at -inf */                \
      l *= corr;                                                                               \
      for (int d = 0; d < head_dim; ++d) acc[d] *= corr;                                       \
      m = s;                                                                                   \
    }                                                                                          \
    const float p = exp(s - m);                                                                \
    l += p;                                                                                    \
    int d = 0;                                                                                 \
    for (; d + 4 <= head_dim; d += 4) vstore4(vload4(d / 4, acc) + p * VALUE4, d / 4, acc);    \
    for (; d < head_dim; ++d) acc[d] += p * VALUE1;                                            \
  }

// out = scale * (q . key row kr): two vector accumulators, summed across once (a sum per four
// dims would chain every addition of the row).
#define CLPORT_SERIAL_SCORE(out, kr, LOAD4, LOAD1)                                             \
  {                                                                                            \
    float4 s0 = (float4)(0.0f), s1 = (float4)(0.0f);                                          \
    int d = 0;                                                                                 \
    for (; d + 8 <= head_dim; d += 8) {                                                        \
      s0 = fma(LOAD4(d / 4, kr), vload4(d / 4, qv), s0);                                       \
      s1 = fma(LOAD4(d / 4 + 1, kr), vload4(d / 4 + 1, qv), s1);                               \
    }                                                                                          \
    for (; d + 4 <= head_dim; d += 4) s0 = fma(LOAD4(d / 4, kr), vload4(d / 4, qv), s0);       \
    s0 += s1;                                                                                  \
    float sum = (s0.x + s0.y) + (s0.z + s0.w);                                                 \
    for (; d < head_dim; ++d) sum += LOAD1(d, kr) * qv[d];                                     \
    out = sum * scale;                                                                         \
  }

#define CLPORT_ATTENTION_SERIAL(NAME, STORE_NEW, KT, LOAD1, LOAD4, STORE1, ROUND)                \
  kernel void NAME(                                                                            \
      CLPORT_ATTENTION_PARAMS) {                                                               \
    const int h = get_global_id(0), t = get_global_id(1);                                      \
    if (h >= n_head) return;                                                                   \
    const int group = n_head / n_kv_head, kvh = h / group;                                     \
    float qv[ATT_SERIAL_HD], acc[ATT_SERIAL_HD];                                               \
    float2 cs[ATT_SERIAL_HD / 2]; /* the angles of position n_past + t, pair by pair */         \
    const global float* qg = (const global float*)(q + q_off + h * q_nb1 + t * q_nb2);         \
    for (int d = 0; d < head_dim; ++d) {                                                       \
      qv[d] = qg[d];                                                                           \
      acc[d] = 0.0f;                                                                           \
    }                                                                                          \
    for (int i = 0; i < n_rot / 2; ++i) {                                                      \
      cs[i] = rope_cos_sin(i, n_past + t, n_rot, freq_base, freq_scale, rope_factor(ff, ff_off, has_ff, i)); \
      const int2 e = rope_pair(i, n_rot, neox);                                                \
      const float2 r = rope_rotate(qv[e.x], qv[e.y], cs[i]);                                   \
      qv[e.x] = r.x;                                                                           \
      qv[e.y] = r.y;                                                                           \
    }                                                                                          \
    float m = -INFINITY, l = 0.0f;                                                             \
    /* Keys read from the cache; with STORE_NEW the last one (n_past) is this step's own. */   \
    const int n_keys = STORE_NEW ? n_past : n_past + t + 1;                                    \
    const int first = window > 0 ? max(0, n_past + t + 1 - window) : 0;                        \
    const global uchar* kbase = k + k_off + (size_t)kvh * kv_nb1;                              \
    const global uchar* vbase = v + v_off + (size_t)kvh * kv_nb1;                              \
    /* Keys in fours: four independent scores, one rescale of acc per four, and the four       \
       value rows added in one pass over acc. */                                               \
    int j = first;                                                                             \
    for (; j + 4 <= n_keys; j += 4) {                                                          \
      float sc[4];                                                                             \
      for (int b = 0; b < 4; ++b)                                                              \
        CLPORT_SERIAL_SCORE(sc[b], (const global KT*)(kbase + (size_t)(j + b) * kv_nb2), LOAD4, LOAD1) \
      const float mb = fmax(fmax(sc[0], sc[1]), fmax(sc[2], sc[3]));                           \
      if (mb > m) {                                                                            \
        const float corr = exp(m - mb); /* 0 on the first keys: m starts at -inf */            \
        l *= corr;                                                                             \
        for (int d = 0; d < head_dim; ++d) acc[d] *= corr;                                     \
        m = mb;                                                                                \
      }                                                                                        \
      const float p0 = exp(sc[0] - m), p1 = exp(sc[1] - m), p2 = exp(sc[2] - m), p3 = exp(sc[3] - m); \
      l += (p0 + p1) + (p2 + p3);                                                              \
      const global KT* v0 = (const global KT*)(vbase + (size_t)j * kv_nb2);                    \
      const global KT* v1 = (const global KT*)(vbase + (size_t)(j + 1) * kv_nb2);              \
      const global KT* v2 = (const global KT*)(vbase + (size_t)(j + 2) * kv_nb2);              \
      const global KT* v3 = (const global KT*)(vbase + (size_t)(j + 3) * kv_nb2);              \
      int d = 0;                                                                               \
      for (; d + 4 <= head_dim; d += 4)                                                        \
        vstore4(vload4(d / 4, acc) + (p0 * LOAD4(d / 4, v0) + p1 * LOAD4(d / 4, v1)) +          \
                    (p2 * LOAD4(d / 4, v2) + p3 * LOAD4(d / 4, v3)), d / 4, acc);                \
      for (; d < head_dim; ++d)                                                                \
        acc[d] += (p0 * LOAD1(d, v0) + p1 * LOAD1(d, v1)) + (p2 * LOAD1(d, v2) + p3 * LOAD1(d, v3)); \
    }                                                                                          \
    for (; j < n_keys; ++j) {                                                                  \
      const global KT* vr = (const global KT*)(vbase + (size_t)j * kv_nb2);                    \
      float s;                                                                                 \
      CLPORT_SERIAL_SCORE(s, (const global KT*)(kbase + (size_t)j * kv_nb2), LOAD4, LOAD1)      \
      CLPORT_SERIAL_STEP(s, LOAD4(d / 4, vr), LOAD1(d, vr))                                    \
    }                                                                                          \
    if (STORE_NEW) {                                                                           \
      /* This token's K (rotated) and V, rounded to the cache type; the first query head of    \
         each KV group stores them at slot n_past, every head computes them itself. One token  \
         (t = 0): K sits at q's position and takes q's angles. */                              \
      float kv_new[ATT_SERIAL_HD], vv_new[ATT_SERIAL_HD];                                      \
      const global float* kg = (const global float*)(kn + kn_off + kvh * kn_nb1);              \
      const global float* vg = (const global float*)(vn + vn_off + kvh * vn_nb1);              \
      for (int d = 0; d < head_dim; ++d) {                                                     \
        kv_new[d] = kg[d];                                                                     \
        vv_new[d] = ROUND(vg[d]);                                                              \
      }                                                                                        \
      for (int i = 0; i < n_rot / 2; ++i) {                                                    \
        const int2 e = rope_pair(i, n_rot, neox);                                              \
        const float2 r = rope_rotate(kv_new[e.x], kv_new[e.y], cs[i]);                         \
        kv_new[e.x] = r.x;                                                                     \
        kv_new[e.y] = r.y;                                                                     \
      }                                                                                        \
      for (int d = 0; d < head_dim; ++d) kv_new[d] = ROUND(kv_new[d]);                         \
      if (h % group == 0) {                                                                    \
        global uchar* slot = cache + cache_off + (size_t)kvh * kv_nb1 + (size_t)n_past * kv_nb2; \
        for (int d = 0; d < head_dim; ++d) {                                                   \
          STORE1(kv_new[d], d, (global KT*)slot);                                              \
          STORE1(vv_new[d], d, (global KT*)(slot + kv_nb3));                                   \
        }                                                                                      \
      }                                                                                        \
      float s = 0.0f;                                                                          \
      for (int d = 0; d < head_dim; ++d) s += kv_new[d] * qv[d];                               \
      s *= scale;                                                                              \
      CLPORT_SERIAL_STEP(s, vload4(d / 4, vv_new), vv_new[d])                                  \
    }                                                                                          \
    global float* og = CLPORT_AT(global float*, out, out_off) + ((size_t)t * n_head + h) * head_dim; \
    const float inv_l = 1.0f / l;                                                              \
    for (int d = 0; d < head_dim; ++d) og[d] = acc[d] * inv_l;                                 \
  }

CLPORT_ATTENTION_SERIAL(attention_serial_f32, 0, float, CLPORT_KV_LOAD_F32, CLPORT_KV_LOAD4_F32, CLPORT_KV_STORE_F32, CLPORT_KV_ROUND_F32)
CLPORT_ATTENTION_SERIAL(attention_serial_f16, 0, half, CLPORT_KV_LOAD_F16, CLPORT_KV_LOAD4_F16, CLPORT_KV_STORE_F16, CLPORT_KV_ROUND_F16)
CLPORT_ATTENTION_SERIAL(attention_serial_store_f32, 1, float, CLPORT_KV_LOAD_F32, CLPORT_KV_LOAD4_F32, CLPORT_KV_STORE_F32, CLPORT_KV_ROUND_F32)
CLPORT_ATTENTION_SERIAL(attention_serial_store_f16, 1, half, CLPORT_KV_LOAD_F16, CLPORT_KV_LOAD4_F16, CLPORT_KV_STORE_F16, CLPORT_KV_ROUND_F16)
