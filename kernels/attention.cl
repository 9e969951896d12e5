// Causal attention over a KV cache with grouped-query heads and an online (streaming) softmax.
// Needs blocks.cl, reduce.cl and rope_math.cl in front.
//   q   [head_dim, n_head, n_tokens] F32, rows contiguous, byte strides q_nb1 (head), q_nb2
//       (token); rotated here first (RoPE at position n_past + t) when n_rot > 0, with the
//       frequency factors ff when has_ff
//   STORE_NEW (the attention_store_* kernels; one token, n_past its position): kn / vn are that
//       token's K and V [head_dim, n_kv_head] F32 (row strides kn_nb1, vn_nb1), stored here at slot n_past of the
//       cache (V kv_nb3 bytes after K) and used from local memory: RoPE + KV store + attention in
//       one kernel
//   K,V [head_dim, n_kv_head, n_ctx] F32, F16, Q8_0 or Q4_0 (32-element blocks along head_dim),
//       byte strides kv_nb1 (head), kv_nb2 (position); the attention_mixed kernels (K and V of
//       different types, no STORE_NEW) take V's strides v_nb1 / v_nb2 and both types at the end
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

// Which kernels the program holds: the work-group ones (ATT_SERIAL 0) or the serial ones of CPU
// devices (1) as the tuning chose, the KV stores in both; both sets when ATT_SERIAL is not given.
#ifdef ATT_SERIAL
#define CLPORT_ATT_PARALLEL (!ATT_SERIAL)
#define CLPORT_ATT_SERIAL ATT_SERIAL
#else
#define CLPORT_ATT_PARALLEL 1
#define CLPORT_ATT_SERIAL 1
#endif

// Element i (LOAD) or elements 4 i4 .. 4 i4 + 3 (LOAD4) of a cache row r (bytes) as floats; the
// quantized rows' decoders (kv_q8_0, kv4_q8_0, kv_q4_0, kv4_q4_0) are in blocks.cl.
// By the clport_dtype id (0 F32, 1 F16, 8 Q8_0, 2 Q4_0), for the kernels of mixed K and V types.
inline float kv_any(int type, const global uchar* r, int i) {
  if (type == 0) return ((const global float*)r)[i];
  if (type == 1) return vload_half(i, (const global half*)r);
  if (type == 8) return kv_q8_0(r, i);
  return kv_q4_0(r, i);
}
inline float4 kv4_any(int type, const global uchar* r, int i4) {
  if (type == 0) return vload4(i4, (const global float*)r);
  if (type == 1) return vload_half4(i4, (const global half*)r);
  if (type == 8) return kv4_q8_0(r, i4);
  return kv4_q4_0(r, i4);
}
// The keys (first, end) a query at position qpos reads of the n_keys before it: its sliding
// window (0: none), and with split_on its range `split` of `nsplit` equal ranges (the layout
// attention_merge combines; the serial kernels cut theirs the same way).
inline int2 att_key_range(int qpos, int n_keys, int window, int split_on, int split, int nsplit) {
  const int first = window > 0 ? max(0, qpos + 1 - window) : 0;
  if (!split_on) return (int2)(first, n_keys);
  const int per = (n_keys - first + nsplit - 1) / nsplit;
  const int begin = min(n_keys, first + split * per);
  return (int2)(begin, min(n_keys, begin + per));
}

#define CLPORT_KV_LOAD_F32(i, r) ((const global float*)(r))[i]
#define CLPORT_KV_LOAD4_F32(i, r) vload4(i, (const global float*)(r))
#define CLPORT_KV_LOAD_F16(i, r) vload_half(i, (const global half*)(r))
#define CLPORT_KV_LOAD4_F16(i, r) vload_half4(i, (const global half*)(r))
#define CLPORT_KV_LOAD_Q8_0(i, r) kv_q8_0(r, i)
#define CLPORT_KV_LOAD4_Q8_0(i, r) kv4_q8_0(r, i)
#define CLPORT_KV_LOAD_Q4_0(i, r) kv_q4_0(r, i)
#define CLPORT_KV_LOAD4_Q4_0(i, r) kv4_q4_0(r, i)
// Eight values (i counts eights): one conversion of eight halves where the cache is F16.
#define CLPORT_KV_LOAD8_F32(i, r) vload8(i, (const global float*)(r))
#define CLPORT_KV_LOAD8_F16(i, r) vload_half8(i, (const global half*)(r))
#define CLPORT_KV_LOAD8_Q8_0(i, r) (float8)(kv4_q8_0(r, 2 * (i)), kv4_q8_0(r, 2 * (i) + 1))
#define CLPORT_KV_LOAD8_Q4_0(i, r) (float8)(kv4_q4_0(r, 2 * (i)), kv4_q4_0(r, 2 * (i) + 1))
#define CLPORT_KV_LOAD8_K_ANY(i, r) (float8)(kv4_any(k_type, r, 2 * (i)), kv4_any(k_type, r, 2 * (i) + 1))
#define CLPORT_KV_LOAD8_V_ANY(i, r) (float8)(kv4_any(v_type, r, 2 * (i)), kv4_any(v_type, r, 2 * (i) + 1))
#define CLPORT_KV_LOAD_K_ANY(i, r) kv_any(k_type, r, i)
#define CLPORT_KV_LOAD4_K_ANY(i, r) kv4_any(k_type, r, i)
#define CLPORT_KV_LOAD_V_ANY(i, r) kv_any(v_type, r, i)
#define CLPORT_KV_LOAD4_V_ANY(i, r) kv4_any(v_type, r, i)

// The value an F16 cache would hold (round to nearest even, as the store does).
inline float kv_round_f16(float x) {
  ushort bits;
  vstore_half_rte(x, 0, (half*)&bits);
  return vload_half(0, (const half*)&bits);
}

// One 32-element block x (in address space AS) quantized exactly as core/src/quant's quant_q8_0 /
// quant_q4_0 (d rounded to half first, x scaled by 1 / d, rounded half away from zero, clamped),
// so a device and the CPU store the same bytes: x is replaced by the values the block decodes to
// and, when store, the block is written at dst. (OpenCL allows 2.5 ulp on a float division; on
// a runtime that rounds it differently a code can differ by one in rare ties.)
#define CLPORT_KV_QUANT_FNS(AS)                                                                  inline void kv_quant_q8_0_##AS(AS float* x, global uchar* dst, int store) {                      float amax = 0.0f;                                                                             for (int j = 0; j < 32; ++j) amax = fmax(amax, fabs(x[j]));                                    const float d = kv_round_f16(amax / 127.0f), id = d != 0.0f ? 1.0f / d : 0.0f;                 if (store) vstore_half_rte(d, 0, (global half*)dst);                                           for (int j = 0; j < 32; ++j) {                                                                   const float q = clamp(round(x[j] * id), -127.0f, 127.0f);                                      if (store) ((global char*)(dst + 2))[j] = (char)(int)q;                                        x[j] = q * d;                                                                                }                                                                                            }                                                                                              inline void kv_quant_q4_0_##AS(AS float* x, global uchar* dst, int store) {                      float max = 0.0f; /* the element of largest magnitude, sign kept (the first of ties) */        for (int j = 0; j < 32; ++j)                                                                     if (fabs(x[j]) > fabs(max)) max = x[j];                                                      const float d = kv_round_f16(max / -8.0f), id = d != 0.0f ? 1.0f / d : 0.0f;                   if (store) vstore_half_rte(d, 0, (global half*)dst);                                           for (int j = 0; j < 16; ++j) {                                                                   const float lo = clamp(round(x[j] * id) + 8.0f, 0.0f, 15.0f);                                  const float hi = clamp(round(x[j + 16] * id) + 8.0f, 0.0f, 15.0f);                             if (store) dst[2 + j] = (uchar)((int)lo | ((int)hi << 4));                                     x[j] = (lo - 8.0f) * d;                                                                        x[j + 16] = (hi - 8.0f) * d;                                                                 }                                                                                            }
CLPORT_KV_QUANT_FNS(local)
CLPORT_KV_QUANT_FNS(private)

// Row x[0 .. head_dim) (address space AS) rounded in place to what a cache row of that type holds
// and, when store, written to the cache row dst: elements (or, quantized, 32-element blocks)
// first, first + step, ... (a work-group's items split the row, a serial kernel takes it whole).
#define CLPORT_KV_ROW_F32(AS, x, dst, store, first, step)                                        for (int e_ = first; e_ < head_dim; e_ += step)                                                  if (store) ((global float*)(dst))[e_] = x[e_];
#define CLPORT_KV_ROW_F16(AS, x, dst, store, first, step)                                        for (int e_ = first; e_ < head_dim; e_ += step) {                                                x[e_] = kv_round_f16(x[e_]);                                                                   if (store) vstore_half_rte(x[e_], e_, (global half*)(dst));                                  }
#define CLPORT_KV_ROW_Q8_0(AS, x, dst, store, first, step)                                       for (int b_ = first; b_ < head_dim / 32; b_ += step) kv_quant_q8_0_##AS((x) + 32 * b_, (dst) + 34 * b_, store);
#define CLPORT_KV_ROW_Q4_0(AS, x, dst, store, first, step)                                       for (int b_ = first; b_ < head_dim / 32; b_ += step) kv_quant_q4_0_##AS((x) + 32 * b_, (dst) + 18 * b_, store);

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
// The mixed-type kernels' extra parameters: V's strides and the clport_dtype ids of K and V.
#define CLPORT_ATTENTION_MIXED_PARAMS , ulong v_nb1, ulong v_nb2, int k_type, int v_type

// KLOAD* / VLOAD* read K / V rows, VNB1 / VNB2 are V's strides, ROW rounds and stores the new
// token's K and V (STORE_NEW, where K and V are halves of one cache of one type).
#define CLPORT_ATTENTION(NAME, STORE_NEW, SPLIT, CELLS, EXTRA, KLOAD1, KLOAD4, VLOAD1, VLOAD4, ROW, VNB1, VNB2) \
  kernel __attribute__((reqd_work_group_size(ATT_WG, 1, 1))) void NAME(                        \
      CLPORT_ATTENTION_PARAMS CLPORT_ATTENTION_SPLIT_##SPLIT EXTRA) {                          \
    local float qv[ATT_WG * ATT_DPT];                                                          \
    local float kv_new[2 * ATT_WG * ATT_DPT]; /* STORE_NEW: this step's K (roped), then V */    \
    local float p[ATT_WG];                                                                     \
    local float scratch[ATT_WG];                                                               \
    const int h = get_group_id(0), t = SPLIT ? CLPORT_ATT_SPLIT_TOKEN_##CELLS : get_group_id(1);  \
    const int lid = get_local_id(0), qpos = CLPORT_ATT_POS_##CELLS(t);                         \
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
                                   rope_cos_sin(i, qpos, n_rot, freq_base, freq_scale,         \
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
        kv_new[ATT_WG * ATT_DPT + d] = vg[d];                                                  \
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
      {                                                                                        \
        const int store = last && h % (n_head / n_kv_head) == 0;                               \
        global uchar* slot = cache + cache_off + (size_t)kvh * kv_nb1 + (size_t)n_past * kv_nb2; \
        ROW(local, kv_new, slot, store, lid, ATT_WG)                                           \
        ROW(local, (kv_new + ATT_WG * ATT_DPT), (slot + kv_nb3), store, lid, ATT_WG)           \
      }                                                                                        \
      barrier(CLK_LOCAL_MEM_FENCE);                                                            \
    }                                                                                          \
    /* Keys read from the cache; with STORE_NEW the last one (n_past) comes from kv_new after. */ \
    int n_keys = STORE_NEW ? n_past : qpos + 1;                                                \
    /* The keys read; with SPLIT, this work-group's range of the cached keys. */           \
    const int2 range_ = att_key_range(qpos, n_keys, window, SPLIT, split, nsplit);         \
    const int first = range_.x;                                                            \
    n_keys = range_.y;                                                                     \
    const size_t seq_off = CLPORT_ATT_SEQ_OFF_##CELLS(t);                                      \
    const global uchar* kbase = k + k_off + seq_off + (size_t)kvh * kv_nb1;                    \
    const global uchar* vbase = v + v_off + seq_off + (size_t)kvh * VNB1;                      \
    float m = -INFINITY, l = 0.0f, acc[ATT_DPT];                                               \
    for (int i = 0; i < ATT_DPT; ++i) acc[i] = 0.0f;                                           \
    for (int j0 = first; j0 < n_keys; j0 += ATT_WG) {                                          \
      const int j = j0 + lid;                                                                  \
      float s = -INFINITY;                                                                     \
      if (j < n_keys) {                                                                        \
        const global uchar* kr = kbase + (size_t)j * kv_nb2;                                   \
        float dotv = 0.0f;                                                                     \
        int d = 0;                                                                             \
        for (; d + 4 <= head_dim; d += 4) dotv += dot(KLOAD4(d / 4, kr), vload4(d / 4, qv));   \
        for (; d < head_dim; ++d) dotv += KLOAD1(d, kr) * qv[d];                               \
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
            a = fma(p[jj], VLOAD1(d, vbase + (size_t)(j0 + jj) * VNB2), a);                    \
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
      global float* pg = CLPORT_ATT_PART_##SPLIT + (((size_t)t * n_head + h) * nsplit + split) * (head_dim + 2); \
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
// CELLS (the *_cells kernels, ROPE_ATTENTION_CELLS): token t's sequence and position come from
// the I32 cells (at cells_off in cells_base) 2t and 2t + 1, its sequence's K and V lie seq_bytes
// apart per sequence after k / v, and n_past is not used; a split kernel takes the token from
// dimension 2.
#define CLPORT_ATTENTION_CELLS_PARAMS , const global uchar *cells_base, ulong cells_off, ulong seq_bytes
#define CLPORT_CELL(i) (((const global int*)(cells_base + cells_off))[i])
#define CLPORT_ATT_SPLIT_TOKEN_0 0
#define CLPORT_ATT_SPLIT_TOKEN_1 get_group_id(2)
#define CLPORT_ATT_POS_0(t) (n_past + (t))
#define CLPORT_ATT_POS_1(t) CLPORT_CELL(2 * (t) + 1)
#define CLPORT_ATT_SEQ_OFF_0(t) ((size_t)0)
#define CLPORT_ATT_SEQ_OFF_1(t) ((size_t)CLPORT_CELL(2 * (t)) * seq_bytes)

// STORE_NEW is a compile-time constant rather than a kernel argument: PoCL 5.0's work-group
// compiler crashes (SIGSEGV at the first enqueue) on barriers inside a branch on an argument.
// One type T for K and V: attention_T, attention_store_T, attention_split_store_T.
#define CLPORT_ATTENTION_OF(T, t)                                                               \
  CLPORT_ATTENTION(attention_##t, 0, 0, 0, , CLPORT_KV_LOAD_##T, CLPORT_KV_LOAD4_##T, CLPORT_KV_LOAD_##T, \
                   CLPORT_KV_LOAD4_##T, CLPORT_KV_ROW_##T, kv_nb1, kv_nb2)                      \
  CLPORT_ATTENTION(attention_store_##t, 1, 0, 0, , CLPORT_KV_LOAD_##T, CLPORT_KV_LOAD4_##T, CLPORT_KV_LOAD_##T, \
                   CLPORT_KV_LOAD4_##T, CLPORT_KV_ROW_##T, kv_nb1, kv_nb2)                      \
  CLPORT_ATTENTION(attention_split_store_##t, 1, 1, 0, , CLPORT_KV_LOAD_##T, CLPORT_KV_LOAD4_##T,  \
                   CLPORT_KV_LOAD_##T, CLPORT_KV_LOAD4_##T, CLPORT_KV_ROW_##T, kv_nb1, kv_nb2)
// ROPE_ATTENTION_CELLS (F16 / F32 caches): a work-group per (head, token), or per (head, range,
// token) split as above.
#define CLPORT_ATTENTION_CELLS_OF(T, t)                                                         \
  CLPORT_ATTENTION(attention_cells_##t, 0, 0, 1, CLPORT_ATTENTION_CELLS_PARAMS, CLPORT_KV_LOAD_##T, \
                   CLPORT_KV_LOAD4_##T, CLPORT_KV_LOAD_##T, CLPORT_KV_LOAD4_##T, CLPORT_KV_ROW_##T, kv_nb1, kv_nb2) \
  CLPORT_ATTENTION(attention_split_cells_##t, 0, 1, 1, CLPORT_ATTENTION_CELLS_PARAMS, CLPORT_KV_LOAD_##T, \
                   CLPORT_KV_LOAD4_##T, CLPORT_KV_LOAD_##T, CLPORT_KV_LOAD4_##T, CLPORT_KV_ROW_##T, kv_nb1, kv_nb2)
#if CLPORT_WANT(f32) && CLPORT_ATT_PARALLEL
CLPORT_ATTENTION_OF(F32, f32)
#endif
#if CLPORT_WANT(f16) && CLPORT_ATT_PARALLEL
CLPORT_ATTENTION_OF(F16, f16)
#endif
#if CLPORT_WANT(f32) && CLPORT_ATT_PARALLEL
CLPORT_ATTENTION_CELLS_OF(F32, f32)
#endif
#if CLPORT_WANT(f16) && CLPORT_ATT_PARALLEL
CLPORT_ATTENTION_CELLS_OF(F16, f16)
#endif
#if CLPORT_WANT(q8_0) && CLPORT_ATT_PARALLEL
CLPORT_ATTENTION_OF(Q8_0, q8_0)
#endif
#if CLPORT_WANT(q4_0) && CLPORT_ATT_PARALLEL
CLPORT_ATTENTION_OF(Q4_0, q4_0)
#endif
// K and V of different types (then two tensors, never the fused store): one kernel for every
// pair, the types chosen at run time (a branch the loops repeat, uniform across work-items).
#if CLPORT_WANT(mixed) && CLPORT_ATT_PARALLEL
CLPORT_ATTENTION(attention_mixed, 0, 0, 0, CLPORT_ATTENTION_MIXED_PARAMS, CLPORT_KV_LOAD_K_ANY, CLPORT_KV_LOAD4_K_ANY,
                 CLPORT_KV_LOAD_V_ANY, CLPORT_KV_LOAD4_V_ANY, CLPORT_KV_ROW_F32, v_nb1, v_nb2)
#endif

// attention_merge.cl (built with this file) combines the split kernels' partial results.

// The KV-cache stores into a Q8_0 / Q4_0 cache (here, next to the quantizer the fused kernels
// above use, so every path rounds alike). One work-item per cache row (head, token):
//   copy_f32_q8_0 / _q4_0 (COPY into a cache slot): src [ne0, ne1, ne2, ne3] F32 with byte
//     strides snb (any element stride), dst the same shape in blocks, row strides dnb.y/z/w;
//     global size ne1 * ne2 * ne3, any local size; ne0 <= 256 and a multiple of 32.
//   kv_store_rope_q8_0 / _q4_0 (KV_STORE_ROPE): the arguments of kv_store_rope_* (rope.cl);
//     global size n_kv_head * n_tokens, any local size; head_dim <= 256.
#define CLPORT_KV_QUANT_STORES(T, t)                                                           \
  kernel void copy_f32_##t(const global uchar* src, ulong src_off, int4 sne, ulong4 snb,       \
                           global uchar* dst, ulong dst_off, int4 dne, ulong4 dnb, uint rows) { \
    const uint r = get_global_id(0);                                                           \
    if (r >= rows) return;                                                                     \
    const int head_dim = sne.x;                                                                \
    const uint i1 = r % sne.y, i2 = (r / sne.y) % sne.z, i3 = r / (sne.y * sne.z);             \
    const global uchar* sr = src + src_off + i1 * snb.y + i2 * snb.z + i3 * snb.w;             \
    float x[256];                                                                              \
    for (int d = 0; d < head_dim; ++d) x[d] = *(const global float*)(sr + d * snb.x);          \
    CLPORT_KV_ROW_##T(private, x, (dst + dst_off + i1 * dnb.y + i2 * dnb.z + i3 * dnb.w), 1, 0, 1) \
  }                                                                                            \
  kernel void kv_store_rope_##t(                                                               \
      const global uchar* k, ulong k_off, ulong k_nb1, ulong k_nb2, const global uchar* v,    \
      ulong v_off, ulong v_nb1, ulong v_nb2, global uchar* cache, ulong c_off, ulong c_nb1,  \
      ulong c_nb2, ulong c_nb3, int head_dim, int n_kv_head, int n_tokens, int pos0,         \
      int n_rot, int neox, float freq_base, float freq_scale, const global uchar* ff,        \
      ulong ff_off, int has_ff) {                                                            \
    const int r = get_global_id(0);                                                            \
    if (r >= n_kv_head * n_tokens) return;                                                     \
    const int h = r % n_kv_head, t = r / n_kv_head;                                            \
    const global float* kr = (const global float*)(k + k_off + h * k_nb1 + t * k_nb2);        \
    const global float* vr = (const global float*)(v + v_off + h * v_nb1 + t * v_nb2);        \
    float x[256];                                                                              \
    for (int d = 0; d < head_dim; ++d) x[d] = kr[d];                                           \
    for (int i = 0; i < n_rot / 2; ++i) {                                                      \
      const int2 e = rope_pair(i, n_rot, neox);                                                \
      const float2 rr = rope_rotate(kr[e.x], kr[e.y], rope_cos_sin(i, pos0 + t, n_rot, freq_base, \
                                                              freq_scale, rope_factor(ff, ff_off, has_ff, i))); \
      x[e.x] = rr.x;                                                                           \
      x[e.y] = rr.y;                                                                           \
    }                                                                                          \
    global uchar* kc = cache + c_off + h * c_nb1 + (size_t)(pos0 + t) * c_nb2;                 \
    CLPORT_KV_ROW_##T(private, x, kc, 1, 0, 1)                                                 \
    for (int d = 0; d < head_dim; ++d) x[d] = vr[d];                                           \
    CLPORT_KV_ROW_##T(private, x, (kc + c_nb3), 1, 0, 1)                                       \
  }
#if CLPORT_WANT(q8_0)
CLPORT_KV_QUANT_STORES(Q8_0, q8_0)
#endif
#if CLPORT_WANT(q4_0)
CLPORT_KV_QUANT_STORES(Q4_0, q4_0)
#endif
