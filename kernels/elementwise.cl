// Element-wise ops on contiguous F32 tensors; one work-item per element, global size rounded
// up to ELT_WG (extra work-items return).

#ifndef ELT_WG
#define ELT_WG 64
#endif

#define CLPORT_ELT_KERNEL kernel __attribute__((reqd_work_group_size(ELT_WG, 1, 1))) void

CLPORT_ELT_KERNEL silu_f32(const global uchar* a, ulong a_off, global uchar* dst, ulong dst_off,
                           uint n) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const float x = CLPORT_AT(const global float*, a, a_off)[i];
  CLPORT_AT(global float*, dst, dst_off)[i] = x / (1.0f + exp(-x));
}

CLPORT_ELT_KERNEL swiglu_f32(const global uchar* gate, ulong gate_off, const global uchar* up,
                             ulong up_off, global uchar* dst, ulong dst_off, uint n) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const float g = CLPORT_AT(const global float*, gate, gate_off)[i];
  const float u = CLPORT_AT(const global float*, up, up_off)[i];
  CLPORT_AT(global float*, dst, dst_off)[i] = g / (1.0f + exp(-g)) * u;
}

// GELU in its tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
CLPORT_ELT_KERNEL geglu_f32(const global uchar* gate, ulong gate_off, const global uchar* up,
                            ulong up_off, global uchar* dst, ulong dst_off, uint n) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const float g = CLPORT_AT(const global float*, gate, gate_off)[i];
  const float u = CLPORT_AT(const global float*, up, up_off)[i];
  const float inner = 0.7978845608f * (g + 0.044715f * g * g * g);
  CLPORT_AT(global float*, dst, dst_off)[i] = 0.5f * g * (1.0f + tanh(inner)) * u;
}

CLPORT_ELT_KERNEL scale_f32(const global uchar* a, ulong a_off, global uchar* dst, ulong dst_off,
                            uint n, float s) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  CLPORT_AT(global float*, dst, dst_off)[i] = CLPORT_AT(const global float*, a, a_off)[i] * s;
}

// Index of element i of a (shape ne) inside b (shape bne, each bne[d] dividing ne[d]).
inline uint broadcast_index(uint i, int4 ne, int4 bne) {
  const uint i0 = i % ne.x;
  i /= ne.x;
  const uint i1 = i % ne.y;
  i /= ne.y;
  const uint i2 = i % ne.z;
  const uint i3 = i / ne.z;
  return (((i3 % bne.w) * bne.z + i2 % bne.z) * bne.y + i1 % bne.y) * bne.x + i0 % bne.x;
}

#define CLPORT_BINARY(NAME, OP)                                                               \
  CLPORT_ELT_KERNEL NAME(const global uchar* a, ulong a_off, const global uchar* b,          \
                         ulong b_off, global uchar* dst, ulong dst_off, uint n, int4 ne,     \
                         int4 bne) {                                                          \
    const size_t i = get_global_id(0);                                                        \
    if (i >= n) return;                                                                       \
    const float x = CLPORT_AT(const global float*, a, a_off)[i];                              \
    /* b of a's shape (a residual add) needs no index arithmetic: eight integer divisions   \
       per element were most of a CPU's time for such an add at prompt sizes. */            \
    const uint bi = all(ne == bne) ? (uint)i : broadcast_index(i, ne, bne);                   \
    const float y = CLPORT_AT(const global float*, b, b_off)[bi];                             \
    CLPORT_AT(global float*, dst, dst_off)[i] = x OP y;                                       \
  }
CLPORT_BINARY(add_f32, +)
CLPORT_BINARY(mul_f32, *)
