// Copy / convert between F32 and F16 with arbitrary byte strides on both sides (e.g. writing a
// slot of the KV cache). Element i is taken in src's logical order (shape sne) and written to
// dst's position of the same linear index (shape dne); both hold the same element count.
// F32 -> F16 rounds to nearest even (vstore_half_rte). Global size: count rounded up to ELT_WG.

#ifndef ELT_WG
#define ELT_WG 64
#endif

// Whether a tensor of elements es bytes apart is packed in its logical order (offset i * es).
inline int is_packed(int4 ne, ulong4 nb, ulong es) {
  return nb.x == es && nb.y == es * ne.x && nb.z == nb.y * ne.y && nb.w == nb.z * ne.z;
}

inline ulong strided_offset(uint i, int4 ne, ulong4 nb) {
  const uint i0 = i % ne.x;
  i /= ne.x;
  const uint i1 = i % ne.y;
  i /= ne.y;
  const uint i2 = i % ne.z;
  const uint i3 = i / ne.z;
  return i0 * nb.x + i1 * nb.y + i2 * nb.z + i3 * nb.w;
}

#define CLPORT_SIZE_f32 4
#define CLPORT_SIZE_f16 2
#define CLPORT_LOAD_AS_F32_f32(p) (*(const global float*)(p))
#define CLPORT_LOAD_AS_F32_f16(p) vload_half(0, (const global half*)(p))
#define CLPORT_STORE_F32_AS_f32(v, p) (*(global float*)(p) = (v))
#define CLPORT_STORE_F32_AS_f16(v, p) st_f16((v), (global uchar*)(p))

#define CLPORT_COPY(S, D)                                                                     \
  kernel __attribute__((reqd_work_group_size(ELT_WG, 1, 1))) void copy_##S##_##D(           \
      const global uchar* src, ulong src_off, int4 sne, ulong4 snb, global uchar* dst,        \
      ulong dst_off, int4 dne, ulong4 dnb, uint n) {                                          \
    const uint i = get_global_id(0);                                                          \
    if (i >= n) return;                                                                       \
    /* Packed sides skip the index arithmetic (twelve integer divisions per element). */      \
    const ulong so = is_packed(sne, snb, CLPORT_SIZE_##S) ? i * CLPORT_SIZE_##S : strided_offset(i, sne, snb); \
    const ulong dof = is_packed(dne, dnb, CLPORT_SIZE_##D) ? i * CLPORT_SIZE_##D : strided_offset(i, dne, dnb); \
    const float v = CLPORT_LOAD_AS_F32_##S(src + src_off + so);                               \
    CLPORT_STORE_F32_AS_##D(v, dst + dst_off + dof);                                          \
  }
CLPORT_COPY(f32, f32)
CLPORT_COPY(f32, f16)
CLPORT_COPY(f16, f32)
CLPORT_COPY(f16, f16)
