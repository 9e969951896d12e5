// Attention for CPU devices (the attention_serial_* kernels): one work-item computes one (query
// head, token) row serially over its keys, with no barriers. Same arguments, layouts and results
// as the work-group kernels of attention.cl (which this file follows). Why: a CPU OpenCL
// runtime (PoCL) runs each barrier-separated region of a work-group as its own loop over the
// work-items, which at decode sizes (tens of keys) costs more than the arithmetic.
// The softmax is online: the running maximum m, sum l and output acc are rescaled when a key's
// score raises m. Global size (n_head, n_tokens), any local size; head_dim <= ATT_SERIAL_HD.
// attention_serial_split_store_* (one decode token): a work-item per (head, key range), global
// size (n_head, n_split), writing the partial results attention_merge combines (the layout and
// ranges of the split kernels of attention.cl). Without it a decode step has only n_head
// work-items: over a long cache a 9-head model keeps one of two cores idle half the time.

#ifndef ATT_SERIAL_HD
#define ATT_SERIAL_HD 256
#endif

// acc += p.x V[0] + p.y V[1] + p.z V[2] + p.w V[3], the four value rows from v0 on, VNB2 apart:
// eight dims a pass (one 256-bit vector on an AVX2 CPU), then four, then one.
#define CLPORT_SERIAL_VALUES4(p, v0, VLOAD8, VLOAD4, VLOAD1, VNB2)                              \
  {                                                                                            \
    const global uchar *r0 = (v0), *r1 = r0 + VNB2, *r2 = r1 + VNB2, *r3 = r2 + VNB2;          \
    int d = 0;                                                                                 \
    for (; d + 8 <= head_dim; d += 8)                                                          \
      vstore8(vload8(d / 8, acc) + ((p).x * VLOAD8(d / 8, r0) + (p).y * VLOAD8(d / 8, r1)) +    \
                  ((p).z * VLOAD8(d / 8, r2) + (p).w * VLOAD8(d / 8, r3)), d / 8, acc);        \
    for (; d + 4 <= head_dim; d += 4)                                                          \
      vstore4(vload4(d / 4, acc) + ((p).x * VLOAD4(d / 4, r0) + (p).y * VLOAD4(d / 4, r1)) +    \
                  ((p).z * VLOAD4(d / 4, r2) + (p).w * VLOAD4(d / 4, r3)), d / 4, acc);        \
    for (; d < head_dim; ++d)                                                                  \
      acc[d] += ((p).x * VLOAD1(d, r0) + (p).y * VLOAD1(d, r1)) + ((p).z * VLOAD1(d, r2) + (p).w * VLOAD1(d, r3)); \
  }
// The online softmax's running maximum M raised to mb when mb is larger: the sum L and the
// output ACC rescaled by exp(M - mb) (0 on the first keys: M starts at -inf).
#define CLPORT_SERIAL_RAISE_MAX(M, L, ACC, mb)                                                 \
  {                                                                                            \
    const float mb_ = (mb);                                                                    \
    if (mb_ > M) {                                                                             \
      const float corr_ = exp(M - mb_);                                                        \
      L *= corr_;                                                                              \
      for (int d_ = 0; d_ < head_dim; ++d_) ACC[d_] *= corr_;                                  \
      M = mb_;                                                                                 \
    }                                                                                          \
  }
// One key's step of the online softmax: score s, value row vr.
#define CLPORT_SERIAL_STEP(s, VALUE4, VALUE1)                                                  \
  {                                                                                            \
    CLPORT_SERIAL_RAISE_MAX(m, l, acc, s)                                                      \
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
// x0 .. x7 = fma(LOAD(i, row k), qd, xk) for the eight key rows r0_ .. r7_: one step of the
// eight chains of CLPORT_SERIAL_SCORE8.
#define CLPORT_SERIAL_FMA8(x, LOAD, i, qd)                                                     \
  x##0 = fma(LOAD(i, r0_), qd, x##0);                                                          \
  x##1 = fma(LOAD(i, r1_), qd, x##1);                                                          \
  x##2 = fma(LOAD(i, r2_), qd, x##2);                                                          \
  x##3 = fma(LOAD(i, r3_), qd, x##3);                                                          \
  x##4 = fma(LOAD(i, r4_), qd, x##4);                                                          \
  x##5 = fma(LOAD(i, r5_), qd, x##5);                                                          \
  x##6 = fma(LOAD(i, r6_), qd, x##6);                                                          \
  x##7 = fma(LOAD(i, r7_), qd, x##7);
// sc[0 .. 8) = scale * (q . key row), eight rows from k0 on, KNB2 apart: the dims are the outer
// loop, so the eight sums are independent chains a CPU overlaps (one row at a time waits on
// each fma of a single chain) and each q element is loaded once for the eight. Named
// accumulators, not an array: PoCL leaves a private array indexed in a loop in memory.
#define CLPORT_SERIAL_SCORE8(sc, k0, KNB2, LOAD8, LOAD4, LOAD1)                                 \
  {                                                                                            \
    const global uchar *r0_ = (k0), *r1_ = r0_ + (KNB2), *r2_ = r1_ + (KNB2), *r3_ = r2_ + (KNB2); \
    const global uchar *r4_ = r3_ + (KNB2), *r5_ = r4_ + (KNB2), *r6_ = r5_ + (KNB2), *r7_ = r6_ + (KNB2); \
    float8 a0 = (float8)(0.0f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;  \
    int d = 0;                                                                                 \
    for (; d + 8 <= head_dim; d += 8) {                                                        \
      const float8 qd = vload8(d / 8, qv);                                                     \
      CLPORT_SERIAL_FMA8(a, LOAD8, d / 8, qd)                                                  \
    }                                                                                          \
    float4 b0 = a0.lo + a0.hi, b1 = a1.lo + a1.hi, b2 = a2.lo + a2.hi, b3 = a3.lo + a3.hi;    \
    float4 b4 = a4.lo + a4.hi, b5 = a5.lo + a5.hi, b6 = a6.lo + a6.hi, b7 = a7.lo + a7.hi;    \
    for (; d + 4 <= head_dim; d += 4) {                                                        \
      const float4 qd = vload4(d / 4, qv);                                                     \
      CLPORT_SERIAL_FMA8(b, LOAD4, d / 4, qd)                                                  \
    }                                                                                          \
    float t0 = (b0.x + b0.y) + (b0.z + b0.w), t1 = (b1.x + b1.y) + (b1.z + b1.w);              \
    float t2 = (b2.x + b2.y) + (b2.z + b2.w), t3 = (b3.x + b3.y) + (b3.z + b3.w);              \
    float t4 = (b4.x + b4.y) + (b4.z + b4.w), t5 = (b5.x + b5.y) + (b5.z + b5.w);              \
    float t6 = (b6.x + b6.y) + (b6.z + b6.w), t7 = (b7.x + b7.y) + (b7.z + b7.w);              \
    for (; d < head_dim; ++d) {                                                                \
      const float qd = qv[d];                                                                  \
      CLPORT_SERIAL_FMA8(t, LOAD1, d, qd)                                                      \
    }                                                                                          \
    sc[0] = t0 * scale;                                                                        \
    sc[1] = t1 * scale;                                                                        \
    sc[2] = t2 * scale;                                                                        \
    sc[3] = t3 * scale;                                                                        \
    sc[4] = t4 * scale;                                                                        \
    sc[5] = t5 * scale;                                                                        \
    sc[6] = t6 * scale;                                                                        \
    sc[7] = t7 * scale;                                                                        \
  }

// A row of head_dim floats x (private) rounded to F16 and, when store is set, stored at dst: the
// row store of the serial kernels (first = 0, step = 1). On x86 (F16C) eight values at a time by
// vcvtps2ph, rounding to nearest even as vstore_half_rte does (common.cl's st_f16 says why).
#if defined(__F16C__) && defined(__x86_64__)
typedef short serial_v8s_unaligned __attribute__((vector_size(16), aligned(1)));
#define CLPORT_KV_ROW_SERIAL_F16(AS, x, dst, store, first, step)                               \
  {                                                                                            \
    int e_ = 0;                                                                                \
    for (; e_ + 8 <= head_dim; e_ += 8) {                                                      \
      const serial_v8s_unaligned h_ = __builtin_ia32_vcvtps2ph256(vload8(e_ / 8, x), 0);      \
      if (store) *(global serial_v8s_unaligned*)((global half*)(dst) + e_) = h_;              \
      vstore8(__builtin_ia32_vcvtph2ps256(h_), e_ / 8, x);                                     \
    }                                                                                          \
    for (; e_ < head_dim; ++e_) {                                                              \
      x[e_] = kv_round_f16(x[e_]);                                                             \
      if (store) st_f16(x[e_], (global uchar*)(dst) + 2 * e_);                                 \
    }                                                                                          \
  }
#else
#define CLPORT_KV_ROW_SERIAL_F16 CLPORT_KV_ROW_F16
#endif
#define CLPORT_KV_ROW_SERIAL_F32 CLPORT_KV_ROW_F32
#define CLPORT_KV_ROW_SERIAL_Q8_0 CLPORT_KV_ROW_Q8_0
#define CLPORT_KV_ROW_SERIAL_Q4_0 CLPORT_KV_ROW_Q4_0

// Query row g rotated at position pos into qv, the pairs' angles into cs (the serial kernel rotates
// the new key with them too). The angles in a loop of their own: with CLPORT_ROPE_POLY it
// vectorizes.
inline void serial_rope_query(float* qv, float2* cs, const global float* g, int head_dim, int pos, int n_rot,
                              int neox, float freq_base, float freq_scale, const global uchar* ff, ulong ff_off,
                              int has_ff) {
  for (int d = 0; d < head_dim; ++d) qv[d] = g[d];
  for (int i = 0; i < n_rot / 2; ++i)
    cs[i] = rope_cos_sin(i, pos, n_rot, freq_base, freq_scale, rope_factor(ff, ff_off, has_ff, i));
  for (int i = 0; i < n_rot / 2; ++i) {
    const int2 e = rope_pair(i, n_rot, neox);
    const float2 r = rope_rotate(qv[e.x], qv[e.y], cs[i]);
    qv[e.x] = r.x;
    qv[e.y] = r.y;
  }
}

#define CLPORT_ATTENTION_SERIAL(NAME, STORE_NEW, SPLIT, CELLS, EXTRA, KLOAD1, KLOAD4, KLOAD8, VLOAD1, VLOAD4, VLOAD8, ROW, \
                                VNB1, VNB2)                                                    \
  kernel void NAME(                                                                            \
      CLPORT_ATTENTION_PARAMS CLPORT_ATTENTION_SPLIT_##SPLIT EXTRA) {                          \
    const int h = get_global_id(0), t = SPLIT ? 0 : get_global_id(1), qpos = CLPORT_ATT_POS_##CELLS(t); \
    const int nsplit = CLPORT_ATT_NSPLIT_##SPLIT, split = SPLIT ? get_global_id(1) : 0;        \
    const int last = split == nsplit - 1;                                                      \
    if (h >= n_head || split >= nsplit) return;                                                \
    const int group = n_head / n_kv_head, kvh = h / group;                                     \
    float qv[ATT_SERIAL_HD], acc[ATT_SERIAL_HD];                                               \
    float2 cs[ATT_SERIAL_HD / 2]; /* the angles of position n_past + t, pair by pair */         \
    serial_rope_query(qv, cs, (const global float*)(q + q_off + h * q_nb1 + t * q_nb2), head_dim, qpos, n_rot, \
                      neox, freq_base, freq_scale, ff, ff_off, has_ff);                        \
    for (int d = 0; d < head_dim; ++d) acc[d] = 0.0f;                                          \
    float m = -INFINITY, l = 0.0f;                                                             \
    /* Keys read from the cache; with STORE_NEW the last one (n_past) is this step's own. */   \
    int n_keys = STORE_NEW ? n_past : qpos + 1;                                                \
    /* The keys read; with SPLIT, this work-item's range of the cached keys. */            \
    const int2 range_ = att_key_range(qpos, n_keys, window, SPLIT, split, nsplit);         \
    const int first = range_.x;                                                            \
    n_keys = range_.y;                                                                     \
    const size_t seq_off = CLPORT_ATT_SEQ_OFF_##CELLS(t);                                      \
    const global uchar* kbase = k + k_off + seq_off + (size_t)kvh * kv_nb1;                    \
    const global uchar* vbase = v + v_off + seq_off + (size_t)kvh * VNB1;                      \
    /* Keys in eights: eight independent scores, their exponentials as one vector (a CPU's     \
       vector exp is most of the cost of a key otherwise), one rescale of acc per eight, and    \
       the value rows added four to a pass over acc. */                                        \
    int j = first;                                                                             \
    for (; j + 8 <= n_keys; j += 8) {                                                          \
      float sc[8];                                                                             \
      CLPORT_SERIAL_SCORE8(sc, kbase + (size_t)j * kv_nb2, kv_nb2, KLOAD8, KLOAD4, KLOAD1)             \
      const float8 s8 = vload8(0, sc);                                                         \
      const float4 m4 = fmax(s8.lo, s8.hi);                                                    \
      const float mb = fmax(fmax(m4.x, m4.y), fmax(m4.z, m4.w));                               \
      CLPORT_SERIAL_RAISE_MAX(m, l, acc, mb)                                                   \
      const float8 p8 = exp(s8 - m);                                                           \
      const float4 l4 = p8.lo + p8.hi;                                                         \
      l += (l4.x + l4.y) + (l4.z + l4.w);                                                      \
      CLPORT_SERIAL_VALUES4(p8.lo, vbase + (size_t)j * VNB2, VLOAD8, VLOAD4, VLOAD1, VNB2)             \
      CLPORT_SERIAL_VALUES4(p8.hi, vbase + (size_t)(j + 4) * VNB2, VLOAD8, VLOAD4, VLOAD1, VNB2)       \
    }                                                                                          \
    for (; j < n_keys; ++j) {                                                                  \
      const global uchar* vr = vbase + (size_t)j * VNB2;                                       \
      float s;                                                                                 \
      CLPORT_SERIAL_SCORE(s, kbase + (size_t)j * kv_nb2, KLOAD4, KLOAD1)                       \
      CLPORT_SERIAL_STEP(s, VLOAD4(d / 4, vr), VLOAD1(d, vr))                                  \
    }                                                                                          \
    if (STORE_NEW && last) {                                                                   \
      /* This token's K (rotated) and V, rounded to the cache type; the first query head of    \
         each KV group stores them at slot n_past, every head computes them itself. One token  \
         (t = 0): K sits at q's position and takes q's angles. */                              \
      float kv_new[ATT_SERIAL_HD], vv_new[ATT_SERIAL_HD];                                      \
      const global float* kg = (const global float*)(kn + kn_off + kvh * kn_nb1);              \
      const global float* vg = (const global float*)(vn + vn_off + kvh * vn_nb1);              \
      for (int d = 0; d < head_dim; ++d) {                                                     \
        kv_new[d] = kg[d];                                                                     \
        vv_new[d] = vg[d];                                                                     \
      }                                                                                        \
      for (int i = 0; i < n_rot / 2; ++i) {                                                    \
        const int2 e = rope_pair(i, n_rot, neox);                                              \
        const float2 r = rope_rotate(kv_new[e.x], kv_new[e.y], cs[i]);                         \
        kv_new[e.x] = r.x;                                                                     \
        kv_new[e.y] = r.y;                                                                     \
      }                                                                                        \
      {                                                                                        \
        const int store = h % group == 0;                                                      \
        global uchar* slot = cache + cache_off + (size_t)kvh * kv_nb1 + (size_t)n_past * kv_nb2; \
        ROW(private, kv_new, slot, store, 0, 1)                                                \
        ROW(private, vv_new, (slot + kv_nb3), store, 0, 1)                                     \
      }                                                                                        \
      float s = 0.0f;                                                                          \
      for (int d = 0; d < head_dim; ++d) s += kv_new[d] * qv[d];                               \
      s *= scale;                                                                              \
      CLPORT_SERIAL_STEP(s, vload4(d / 4, vv_new), vv_new[d])                                  \
    }                                                                                          \
    if (SPLIT) { /* the range's max, sum and unnormalised output (an empty range: -inf, 0) */  \
      global float* pg = CLPORT_ATT_PART_##SPLIT + ((size_t)h * nsplit + split) * (head_dim + 2); \
      pg[0] = m;                                                                               \
      pg[1] = l;                                                                               \
      for (int d = 0; d < head_dim; ++d) pg[2 + d] = acc[d];                                   \
    } else {                                                                                   \
      global float* og = CLPORT_AT(global float*, out, out_off) + ((size_t)t * n_head + h) * head_dim; \
      const float inv_l = 1.0f / l;                                                            \
      for (int d = 0; d < head_dim; ++d) og[d] = acc[d] * inv_l;                               \
    }                                                                                          \
  }

#define CLPORT_ATTENTION_SERIAL_OF(T, t)                                                        \
  CLPORT_ATTENTION_SERIAL(attention_serial_##t, 0, 0, 0, , CLPORT_KV_LOAD_##T, CLPORT_KV_LOAD4_##T, CLPORT_KV_LOAD8_##T, \
                          CLPORT_KV_LOAD_##T, CLPORT_KV_LOAD4_##T, CLPORT_KV_LOAD8_##T, CLPORT_KV_ROW_SERIAL_##T, kv_nb1, \
                          kv_nb2)                                                               \
  CLPORT_ATTENTION_SERIAL(attention_serial_store_##t, 1, 0, 0, , CLPORT_KV_LOAD_##T, CLPORT_KV_LOAD4_##T,     \
                          CLPORT_KV_LOAD8_##T, CLPORT_KV_LOAD_##T, CLPORT_KV_LOAD4_##T, CLPORT_KV_LOAD8_##T,    \
                          CLPORT_KV_ROW_SERIAL_##T, kv_nb1, kv_nb2)                                    \
  CLPORT_ATTENTION_SERIAL(attention_serial_split_store_##t, 1, 1, 0, , CLPORT_KV_LOAD_##T, CLPORT_KV_LOAD4_##T, \
                          CLPORT_KV_LOAD8_##T, CLPORT_KV_LOAD_##T, CLPORT_KV_LOAD4_##T, CLPORT_KV_LOAD8_##T,    \
                          CLPORT_KV_ROW_SERIAL_##T, kv_nb1, kv_nb2)
#if CLPORT_WANT(f32) && CLPORT_ATT_SERIAL
CLPORT_ATTENTION_SERIAL_OF(F32, f32)
#endif
#if CLPORT_WANT(f16) && CLPORT_ATT_SERIAL
CLPORT_ATTENTION_SERIAL_OF(F16, f16)
#endif
// KV_STORE_ROPE_CELLS on CPU devices (the arguments of rope.cl's kv_store_rope_cells_*): a
// work-item per (KV head, token) rotates its K row at the token's position, the angles computed
// once for the row (rope.cl's kernel, a work-item per pair, took 15 us a launch for 4 tokens of 3
// KV heads on PoCL: a division and a modulo per pair, in work-groups of ELT_WG items), and stores
// it and the V row at the token's cell.
#define CLPORT_KV_STORE_CELLS_SERIAL(NAME, ROW)                                                 \
  kernel void NAME(const global uchar* k, ulong k_off, ulong k_nb1, ulong k_nb2, const global uchar* v, \
                   ulong v_off, ulong v_nb1, ulong v_nb2, global uchar* cache, ulong c_off, ulong c_nb1, \
                   ulong c_nb2, ulong c_nb3, int head_dim, int n_kv_head, int n_tokens, int pos0, int n_rot, \
                   int neox, float freq_base, float freq_scale, const global uchar* ff, ulong ff_off,      \
                   int has_ff, const global uchar* cells_base, ulong cells_off, ulong seq_bytes) {         \
    const int h = get_global_id(0), t = get_global_id(1);                                      \
    if (h >= n_kv_head || t >= n_tokens) return;                                               \
    const global int* cell = (const global int*)(cells_base + cells_off) + 2 * t;             \
    const int pos = cell[1];                                                                   \
    float kv[ATT_SERIAL_HD], vv[ATT_SERIAL_HD];                                                \
    float2 cs[ATT_SERIAL_HD / 2];                                                              \
    serial_rope_query(kv, cs, (const global float*)(k + k_off + h * k_nb1 + t * k_nb2), head_dim, pos, n_rot, \
                      neox, freq_base, freq_scale, ff, ff_off, has_ff);                        \
    const global float* vr = (const global float*)(v + v_off + h * v_nb1 + t * v_nb2);        \
    for (int d = 0; d < head_dim; ++d) vv[d] = vr[d];                                          \
    global uchar* kc = cache + c_off + (size_t)cell[0] * seq_bytes + h * c_nb1 + (size_t)pos * c_nb2; \
    ROW(private, kv, kc, 1, 0, 1)                                                              \
    ROW(private, vv, (kc + c_nb3), 1, 0, 1)                                                    \
  }
#if CLPORT_WANT(f32) && CLPORT_ATT_SERIAL
CLPORT_KV_STORE_CELLS_SERIAL(kv_store_rope_cells_serial_f32, CLPORT_KV_ROW_F32)
#endif
#if CLPORT_WANT(f16) && CLPORT_ATT_SERIAL
CLPORT_KV_STORE_CELLS_SERIAL(kv_store_rope_cells_serial_f16, CLPORT_KV_ROW_SERIAL_F16)
#endif

// ROPE_ATTENTION_CELLS on CPU devices: a work-item per (head, token), as above.
#if CLPORT_WANT(f32) && CLPORT_ATT_SERIAL
CLPORT_ATTENTION_SERIAL(attention_serial_cells_f32, 0, 0, 1, CLPORT_ATTENTION_CELLS_PARAMS, CLPORT_KV_LOAD_F32,
                        CLPORT_KV_LOAD4_F32, CLPORT_KV_LOAD8_F32, CLPORT_KV_LOAD_F32, CLPORT_KV_LOAD4_F32,
                        CLPORT_KV_LOAD8_F32, CLPORT_KV_ROW_F32, kv_nb1, kv_nb2)
#endif
#if CLPORT_WANT(f16) && CLPORT_ATT_SERIAL
CLPORT_ATTENTION_SERIAL(attention_serial_cells_f16, 0, 0, 1, CLPORT_ATTENTION_CELLS_PARAMS, CLPORT_KV_LOAD_F16,
                        CLPORT_KV_LOAD4_F16, CLPORT_KV_LOAD8_F16, CLPORT_KV_LOAD_F16, CLPORT_KV_LOAD4_F16,
                        CLPORT_KV_LOAD8_F16, CLPORT_KV_ROW_F16, kv_nb1, kv_nb2)
#endif
#if CLPORT_WANT(q8_0) && CLPORT_ATT_SERIAL
CLPORT_ATTENTION_SERIAL_OF(Q8_0, q8_0)
#endif
#if CLPORT_WANT(q4_0) && CLPORT_ATT_SERIAL
CLPORT_ATTENTION_SERIAL_OF(Q4_0, q4_0)
#endif
#if CLPORT_WANT(mixed) && CLPORT_ATT_SERIAL
CLPORT_ATTENTION_SERIAL(attention_serial_mixed, 0, 0, 0, CLPORT_ATTENTION_MIXED_PARAMS, CLPORT_KV_LOAD_K_ANY,
                        CLPORT_KV_LOAD4_K_ANY, CLPORT_KV_LOAD8_K_ANY, CLPORT_KV_LOAD_V_ANY, CLPORT_KV_LOAD4_V_ANY,
                        CLPORT_KV_LOAD8_V_ANY, CLPORT_KV_ROW_F32, v_nb1, v_nb2)
#endif

// attention_serial_pair_f16 (prompts on CPU devices, F16 cache, no store): a work-item takes two
// consecutive tokens t0 = 2 p, t1 = t0 + 1 (t0 again past the last token) of one head, so that
// each key and value row it shares with both is loaded and converted once for the two queries:
// the plain kernel converts every row once per query, about as much work as its arithmetic.
// Global size (n_head, ceil(n_tokens / 2)); same results as attention_serial_f16 up to the
// order of the online softmax's sums. Keys 4 at a time, so that the 8 score chains, 4 key
// vectors and 2 query vectors stay in registers on a CPU with 16 vector registers.
#if CLPORT_WANT(f16) && CLPORT_ATT_SERIAL
// One query's (m, l, acc) update for four scores s (float4): the weights P of the four value
// rows, after one rescale if the maximum rose.
#define CLPORT_PAIR_UPDATE(m, l, acc, s, P)                                                   \
  {                                                                                           \
    CLPORT_SERIAL_RAISE_MAX(m, l, acc, fmax(fmax(s.x, s.y), fmax(s.z, s.w)))                  \
    P = exp(s - m);                                                                           \
    l += (P.x + P.y) + (P.z + P.w);                                                           \
  }
// Keys from .. to - 1 for one query (QV, ACC, M, L) alone, through the plain kernel's one-key
// steps (which name the query's state qv, acc, m, l).
#define CLPORT_PAIR_ALONE(QV, ACC, M, L, from, to)                                             \
  {                                                                                            \
    const float* qv = QV;                                                                      \
    float* acc = ACC;                                                                          \
    float m = M, l = L;                                                                        \
    for (int i_ = (from); i_ < (to); ++i_) {                                                   \
      const global uchar* vr = vbase + (size_t)i_ * kv_nb2;                                    \
      float s;                                                                                 \
      CLPORT_SERIAL_SCORE(s, kbase + (size_t)i_ * kv_nb2, CLPORT_KV_LOAD4_F16, CLPORT_KV_LOAD_F16) \
      CLPORT_SERIAL_STEP(s, CLPORT_KV_LOAD4_F16(d / 4, vr), CLPORT_KV_LOAD_F16(d, vr))         \
    }                                                                                          \
    M = m;                                                                                     \
    L = l;                                                                                     \
  }
kernel void attention_serial_pair_f16(CLPORT_ATTENTION_PARAMS, int n_tokens) {
  const int h = get_global_id(0), t0 = 2 * (int)get_global_id(1), t1 = min(t0 + 1, n_tokens - 1);
  if (h >= n_head || t0 >= n_tokens) return;
  const int kvh = h / (n_head / n_kv_head);
  float qa[ATT_SERIAL_HD], qb[ATT_SERIAL_HD], acc_a[ATT_SERIAL_HD], acc_b[ATT_SERIAL_HD];
  float2 cs[ATT_SERIAL_HD / 2];
  const int pos_a = n_past + t0, pos_b = n_past + t1;
  serial_rope_query(qa, cs, (const global float*)(q + q_off + h * q_nb1 + t0 * q_nb2), head_dim, pos_a, n_rot,
                    neox, freq_base, freq_scale, ff, ff_off, has_ff);
  serial_rope_query(qb, cs, (const global float*)(q + q_off + h * q_nb1 + t1 * q_nb2), head_dim, pos_b, n_rot,
                    neox, freq_base, freq_scale, ff, ff_off, has_ff);
  for (int d = 0; d < head_dim; ++d) acc_a[d] = acc_b[d] = 0.0f;
  const int2 ra = att_key_range(pos_a, pos_a + 1, window, 0, 0, 1), rb = att_key_range(pos_b, pos_b + 1, window, 0, 0, 1);
  const global uchar* kbase = k + k_off + (size_t)kvh * kv_nb1;
  const global uchar* vbase = v + v_off + (size_t)kvh * kv_nb1;
  float m_a = -INFINITY, l_a = 0.0f, m_b = -INFINITY, l_b = 0.0f;
  // Keys only t0 sees (below t1's window) and only t1 sees (its own position) one at a time;
  // the keys both see four at a time for both.
  CLPORT_PAIR_ALONE(qa, acc_a, m_a, l_a, ra.x, min(rb.x, ra.y))
  const int both_end = ra.y;
  int j = max(ra.x, rb.x);
  for (; j + 4 <= both_end; j += 4) {
    const global half *k0 = (const global half*)(kbase + (size_t)j * kv_nb2), *k1 = (const global half*)((const global uchar*)k0 + kv_nb2),
                      *k2 = (const global half*)((const global uchar*)k1 + kv_nb2), *k3 = (const global half*)((const global uchar*)k2 + kv_nb2);
    float8 a0 = (float8)(0.0f), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    int d = 0;
    for (; d + 8 <= head_dim; d += 8) {
      const float8 xa = vload8(d / 8, qa), xb = vload8(d / 8, qb);
      const float8 w0 = vload_half8(d / 8, k0), w1 = vload_half8(d / 8, k1), w2 = vload_half8(d / 8, k2),
                   w3 = vload_half8(d / 8, k3);
      a0 = fma(w0, xa, a0);
      b0 = fma(w0, xb, b0);
      a1 = fma(w1, xa, a1);
      b1 = fma(w1, xb, b1);
      a2 = fma(w2, xa, a2);
      b2 = fma(w2, xb, b2);
      a3 = fma(w3, xa, a3);
      b3 = fma(w3, xb, b3);
    }
    float4 sa = (float4)(dot(a0.lo + a0.hi, (float4)(1.0f)), dot(a1.lo + a1.hi, (float4)(1.0f)),
                         dot(a2.lo + a2.hi, (float4)(1.0f)), dot(a3.lo + a3.hi, (float4)(1.0f)));
    float4 sb = (float4)(dot(b0.lo + b0.hi, (float4)(1.0f)), dot(b1.lo + b1.hi, (float4)(1.0f)),
                         dot(b2.lo + b2.hi, (float4)(1.0f)), dot(b3.lo + b3.hi, (float4)(1.0f)));
    for (; d < head_dim; ++d) {
      const float4 w = (float4)(vload_half(d, k0), vload_half(d, k1), vload_half(d, k2), vload_half(d, k3));
      sa += w * qa[d];
      sb += w * qb[d];
    }
    sa *= scale;
    sb *= scale;
    float4 pa, pb;
    CLPORT_PAIR_UPDATE(m_a, l_a, acc_a, sa, pa)
    CLPORT_PAIR_UPDATE(m_b, l_b, acc_b, sb, pb)
    const global half *v0 = (const global half*)(vbase + (size_t)j * kv_nb2), *v1 = (const global half*)((const global uchar*)v0 + kv_nb2),
                      *v2 = (const global half*)((const global uchar*)v1 + kv_nb2), *v3 = (const global half*)((const global uchar*)v2 + kv_nb2);
    for (d = 0; d + 8 <= head_dim; d += 8) {
      const float8 u0 = vload_half8(d / 8, v0), u1 = vload_half8(d / 8, v1), u2 = vload_half8(d / 8, v2),
                   u3 = vload_half8(d / 8, v3);
      vstore8(vload8(d / 8, acc_a) + (pa.x * u0 + pa.y * u1) + (pa.z * u2 + pa.w * u3), d / 8, acc_a);
      vstore8(vload8(d / 8, acc_b) + (pb.x * u0 + pb.y * u1) + (pb.z * u2 + pb.w * u3), d / 8, acc_b);
    }
    for (; d < head_dim; ++d) {
      const float4 u = (float4)(vload_half(d, v0), vload_half(d, v1), vload_half(d, v2), vload_half(d, v3));
      acc_a[d] += dot(pa, u);
      acc_b[d] += dot(pb, u);
    }
  }
  // The last shared keys (fewer than four) for both, then t1's own.
  CLPORT_PAIR_ALONE(qa, acc_a, m_a, l_a, j, both_end)
  CLPORT_PAIR_ALONE(qb, acc_b, m_b, l_b, j, rb.y)
  global float* oa = CLPORT_AT(global float*, out, out_off) + ((size_t)t0 * n_head + h) * head_dim;
  global float* ob = CLPORT_AT(global float*, out, out_off) + ((size_t)t1 * n_head + h) * head_dim;
  const float inv_a = 1.0f / l_a, inv_b = 1.0f / l_b;
  for (int d = 0; d < head_dim; ++d) oa[d] = acc_a[d] * inv_a;
  if (t1 != t0)
    for (int d = 0; d < head_dim; ++d) ob[d] = acc_b[d] * inv_b;
}
#endif
