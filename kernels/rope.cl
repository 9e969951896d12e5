// Rotary position embedding on x[head_dim, n_head, n_tokens] (needs rope_math.cl in front) (in place allowed: every
// work-item reads its pair before writing it). One work-item per pair of elements; global size
// head_dim / 2 * n_head * n_tokens rounded up to ELT_WG.
//   mode 0 (normal): pairs (2i, 2i + 1) for 2i < n_rot;
//   mode 2 (NeoX):   pairs (i, i + n_rot / 2) for i < n_rot / 2;
// rotated by theta = (pos0 + t) * freq_scale * freq_base^(-2i / n_rot) / factor_i (factor_i =
// ff[i] when has_ff, else 1). Elements at or past n_rot are copied unchanged.

#ifndef ELT_WG
#define ELT_WG 64
#endif

kernel __attribute__((reqd_work_group_size(ELT_WG, 1, 1))) void rope_f32(
    const global uchar* src, ulong src_off, global uchar* dst, ulong dst_off, int head_dim,
    int n_head, int n_tokens, int pos0, int n_rot, int neox, float freq_base, float freq_scale,
    const global uchar* ff, ulong ff_off, int has_ff) {
  const int half_dim = head_dim / 2;
  const size_t gid = get_global_id(0);
  if (gid >= (size_t)half_dim * n_head * n_tokens) return;
  const int i = gid % half_dim;
  const size_t head = gid / half_dim;  // (token, head) flattened
  const int t = head / n_head;
  const global float* x = CLPORT_AT(const global float*, src, src_off) + head * head_dim;
  global float* y = CLPORT_AT(global float*, dst, dst_off) + head * head_dim;
  const int n_rot_half = n_rot / 2;
  if (i >= n_rot_half) {  // pass-through region: elements n_rot + 2(i - n_rot/2) and the next
    const int e = n_rot + 2 * (i - n_rot_half);
    const float a = x[e], b = x[e + 1];
    y[e] = a;
    y[e + 1] = b;
    return;
  }
  const int2 e = rope_pair(i, n_rot, neox);
  const float2 r = rope_rotate(x[e.x], x[e.y], rope_cos_sin(i, pos0 + t, n_rot, freq_base, freq_scale,
                                                                   rope_factor(ff, ff_off, has_ff, i)));
  y[e.x] = r.x;
  y[e.y] = r.y;
}

// K rotated and K, V stored into one layer's cache [head_dim, n_kv_head, n_ctx, 2] (K at index
// 0 of dim 3, V at 1) at positions pos0 .. pos0 + n_tokens - 1. k and v are
// [head_dim, n_kv_head, n_tokens] with contiguous rows and byte strides *_nb1 (head), *_nb2
// (token), e.g. slices of one fused Q/K/V projection. One work-item per element pair of a head
// (the rotated pair for K, elements 2i and 2i + 1 for V); global size
// head_dim / 2 * n_kv_head * n_tokens rounded up to ELT_WG.
#define CLPORT_CACHE_STORE_f32(v, p) (*(global float*)(p) = (v))
#define CLPORT_CACHE_STORE_f16(v, p) st_f16((v), (p))
// KV_STORE_ROPE_CELLS (the kv_store_rope_cells_* kernels): token t goes to position cells[2t + 1]
// of sequence cells[2t] (the I32 cells at cells_off in cells_base), whose part of the cache starts
// seq_bytes * cells[2t] after c_off (pos0 is not used).
#define CLPORT_STORE_CELL(i) (((const global int*)(cells_base + cells_off))[i])
#define CLPORT_STORE_POS_0(t) (pos0 + (t))
#define CLPORT_STORE_POS_1(t) CLPORT_STORE_CELL(2 * (t) + 1)
#define CLPORT_STORE_SEQ_OFF_0(t) ((size_t)0)
#define CLPORT_STORE_SEQ_OFF_1(t) ((size_t)CLPORT_STORE_CELL(2 * (t)) * seq_bytes)
#define CLPORT_KV_STORE_ROPE(NAME, CT, ES, CELLS, EXTRA)                                        \
  kernel __attribute__((reqd_work_group_size(ELT_WG, 1, 1))) void NAME(                      \
      const global uchar* k, ulong k_off, ulong k_nb1, ulong k_nb2, const global uchar* v,    \
      ulong v_off, ulong v_nb1, ulong v_nb2, global uchar* cache, ulong c_off, ulong c_nb1,  \
      ulong c_nb2, ulong c_nb3, int head_dim, int n_kv_head, int n_tokens, int pos0,         \
      int n_rot, int neox, float freq_base, float freq_scale, const global uchar* ff,        \
      ulong ff_off, int has_ff EXTRA) {                                                      \
    const int half_dim = head_dim / 2;                                                        \
    const size_t gid = get_global_id(0);                                                      \
    if (gid >= (size_t)half_dim * n_kv_head * n_tokens) return;                               \
    const int i = gid % half_dim, h = (gid / half_dim) % n_kv_head;                           \
    const int t = gid / ((size_t)half_dim * n_kv_head);                                       \
    const global float* kr = (const global float*)(k + k_off + h * k_nb1 + t * k_nb2);        \
    const global float* vr = (const global float*)(v + v_off + h * v_nb1 + t * v_nb2);        \
    const int pos = CLPORT_STORE_POS_##CELLS(t);                                              \
    global uchar* kc = cache + c_off + CLPORT_STORE_SEQ_OFF_##CELLS(t) + h * c_nb1 + (size_t)pos * c_nb2; \
    global uchar* vc = kc + c_nb3;                                                            \
    int2 e = (int2)(n_rot + 2 * (i - n_rot / 2), n_rot + 2 * (i - n_rot / 2) + 1);            \
    float2 kv = (float2)(kr[e.x], kr[e.y]);                                                   \
    if (i < n_rot / 2) {                                                                      \
      e = rope_pair(i, n_rot, neox);                                                          \
      kv = rope_rotate(kr[e.x], kr[e.y], rope_cos_sin(i, pos, n_rot, freq_base, freq_scale,       \
                                                      rope_factor(ff, ff_off, has_ff, i)));  \
    }                                                                                         \
    CLPORT_CACHE_STORE_##CT(kv.x, kc + e.x * ES);                                             \
    CLPORT_CACHE_STORE_##CT(kv.y, kc + e.y * ES);                                             \
    CLPORT_CACHE_STORE_##CT(vr[2 * i], vc + 2 * i * ES);                                      \
    CLPORT_CACHE_STORE_##CT(vr[2 * i + 1], vc + (2 * i + 1) * ES);                            \
  }
CLPORT_KV_STORE_ROPE(kv_store_rope_f32, f32, 4, 0, )
CLPORT_KV_STORE_ROPE(kv_store_rope_f16, f16, 2, 0, )
#define CLPORT_STORE_CELLS_PARAMS , const global uchar *cells_base, ulong cells_off, ulong seq_bytes
CLPORT_KV_STORE_ROPE(kv_store_rope_cells_f32, f32, 4, 1, CLPORT_STORE_CELLS_PARAMS)
CLPORT_KV_STORE_ROPE(kv_store_rope_cells_f16, f16, 2, 1, CLPORT_STORE_CELLS_PARAMS)
