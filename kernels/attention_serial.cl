// Attention for CPU devices: one work-item computes one (query head, token) row serially over
// its keys, with no barriers. Same arguments, layouts and results as the work-group kernels of
// attention.cl (needs it in front for the KV load / store / round macros). Why: a CPU OpenCL
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

#define CLPORT_ATTENTION_SERIAL(NAME, STORE_NEW, KT, LOAD1, LOAD4, STORE1, ROUND)                \
  kernel void NAME(                                                                            \
      const global uchar* q, ulong q_off, const global uchar* k, ulong k_off,                  \
      const global uchar* v, ulong v_off, ulong kv_nb1, ulong kv_nb2, global uchar* out,       \
      ulong out_off, int head_dim, int n_head, int n_kv_head, int n_past, float scale,         \
      ulong q_nb1, ulong q_nb2, int n_rot, int neox, float freq_base, float freq_scale,        \
      const global uchar* kn, ulong kn_off, ulong kn_nb1, const global uchar* vn, ulong vn_off, \
      ulong vn_nb1, global uchar* cache, ulong cache_off, ulong kv_nb3, int window,            \
      const global uchar* ff, ulong ff_off, int has_ff) {                                      \
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
    for (int j = first; j < n_keys; ++j) {                                                     \
      const global KT* kr = (const global KT*)(kbase + (size_t)j * kv_nb2);                    \
      const global KT* vr = (const global KT*)(vbase + (size_t)j * kv_nb2);                    \
      float s = 0.0f;                                                                          \
      int d = 0;                                                                               \
      for (; d + 4 <= head_dim; d += 4) s += dot(LOAD4(d / 4, kr), vload4(d / 4, qv));         \
      for (; d < head_dim; ++d) s += LOAD1(d, kr) * qv[d];                                     \
      s *= scale;                                                                              \
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
