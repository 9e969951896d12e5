// GEMV on the "packed" weight layout (the opt-in prepare_weight of the shared runner, tuning
// key gemv_packed): the GGUF blocks of a Q4_0, Q4_1
// or Q8_0 weight split into a quant array and a scale array, so that every block's quants are
// one (Q4) or two (Q8_0) aligned 16-byte words. Needs blocks.cl and mul_mat_gemv.cl in front
// (GEMV_WG, GEMV_ROWS, the work-group reduction and the store are theirs).
//
// Layout of a weight [K, N] (N rows of K elements), B = K / 32 blocks per row, i = n * B + b:
//   Q4_0  q: uint4 [i]            the block's 16 nibble bytes, in GGUF order
//         s: ushort [i]           scale d (raw half bits)
//   Q4_1  q: as Q4_0              s: uint [i] = d | m << 16 (raw half bits)
//   Q8_0  q: uint4 [2 i + h]      signed bytes 16h .. 16h + 15
//         s: ushort [i]           scale d
// Same byte count as the GGUF blocks; the GEMV reads it with 16-byte loads where the GGUF layout
// (18-, 20-, 34-byte blocks) only allows 2-byte ones.
//
// One work-item takes one whole block of GEMV_ROWS rows per step: 8 float4 loads of x (shared by
// the rows), then per row one 16-byte quant load and one scale.

// Why the decode looks like this: the GEMV on a GPU was bound by integer instructions, not by
// memory (a probe streaming the same bytes ran 2x faster). Here a field at bit p of a word
// becomes a float with ONE and-or: (v & (mask << p)) | 0x4B000000 is the float 2^23 + n * 2^p
// (exact for fields below bit 23), and one subtraction of 2^23 (plus the Q8 sign offset) leaves
// n * 2^p exactly. The 2^-p goes into x (exact: a power of two), which the rows share. Per
// element that is one integer op, one add and one multiply-add; the shift-based decode needed
// two integer ops, and integer ops issue at half the float rate on current GPUs. Measured on an
// H200 (measurements/README.md): Q4_0 / Q4_1 12-15% faster than the plain GEMV at 4096 x 14336,
// Q8_0 15% slower, small shapes unchanged (the per-kernel floor dominates them).
#define GP_MAGIC 0x4B000000u
#define GP_2P23 8388608.0f

// Scaled x for the four nibble positions used per word: bits 0 and 8 pair with x[4w..4w+3]
// (scales 1, 2^-8, 1, 2^-8 after the word's upper half is shifted down), bits 4 and 12 with
// x[16+4w..] (2^-4, 2^-12, ...).
#define GP_SCALE_LO (float4)(1.0f, 0.00390625f, 1.0f, 0.00390625f)
#define GP_SCALE_HI (float4)(0.0625f, 0.000244140625f, 0.0625f, 0.000244140625f)

// The nibbles at bits {0, 8} (mask 15) or {4, 12} (mask 240) of v's low half and of its high
// half, as exact floats n * 2^p.
inline float4 gp_nibbles(uint v, uint mask) {
  const uint h = v >> 16;
  const uint4 u = ((uint4)(v, v, h, h) & (uint4)(mask, mask << 8, mask, mask << 8)) | GP_MAGIC;
  return as_float4(u) - GP_2P23;
}

// Dot product of one packed Q4 block (16 bytes, GGUF nibble order: byte j holds element j low
// and j + 16 high) with x scaled as GP_SCALE_LO (xa[w] = x[4w..]) and GP_SCALE_HI (xb[w]).
inline float gp_q4_dot(uint4 q, const float4* xa, const float4* xb) {
  return dot(gp_nibbles(q.x, 15u), xa[0]) + dot(gp_nibbles(q.x, 240u), xb[0]) +
         dot(gp_nibbles(q.y, 15u), xa[1]) + dot(gp_nibbles(q.y, 240u), xb[1]) +
         dot(gp_nibbles(q.z, 15u), xa[2]) + dot(gp_nibbles(q.z, 240u), xb[2]) +
         dot(gp_nibbles(q.w, 15u), xa[3]) + dot(gp_nibbles(q.w, 240u), xb[3]);
}

// Four signed bytes of v (elements 4w..4w+3) as exact floats q * (1, 2^8, 1, 2^8): the sign bit
// flipped makes them 0..255, and the 128 offset goes into the subtraction.
inline float4 gp_bytes(uint v) {
  v ^= 0x80808080u;
  const uint h = v >> 16;
  const uint4 u = ((uint4)(v, v, h, h) & (uint4)(255u, 65280u, 255u, 65280u)) | GP_MAGIC;
  return as_float4(u) - (float4)(GP_2P23 + 128.0f, GP_2P23 + 32768.0f, GP_2P23 + 128.0f, GP_2P23 + 32768.0f);
}

inline float gp_q8_dot(uint4 q0, uint4 q1, const float4* xs) {
  return dot(gp_bytes(q0.x), xs[0]) + dot(gp_bytes(q0.y), xs[1]) + dot(gp_bytes(q0.z), xs[2]) +
         dot(gp_bytes(q0.w), xs[3]) + dot(gp_bytes(q1.x), xs[4]) + dot(gp_bytes(q1.y), xs[5]) +
         dot(gp_bytes(q1.z), xs[6]) + dot(gp_bytes(q1.w), xs[7]);
}

// Raw half bits to float (vload_half from private memory needs no cl_khr_fp16).
inline float gp_half(uint bits) {
  const ushort h = (ushort)(bits & 0xFFFFu);
  return vload_half(0, (const half*)&h);
}

// x[32b .. 32b + 31] as 8 float4 (16-byte loads when x is aligned; K is a multiple of 32, so
// every row is when the first one is).
inline void gp_load_x(const global float* xr, uint b, bool aligned, float4* xv) {
  const global float* p = xr + 32 * (size_t)b;
  for (int i = 0; i < 8; ++i) xv[i] = aligned ? ((const global float4*)p)[i] : vload4(i, p);
}

#define CLPORT_GEMV_PACKED_ARGS                                                                \
  const global uint4 *q, const global void *s, const global uchar *x, ulong x_off,           \
      global uchar *dst, ulong dst_off, int K, int N

#define CLPORT_GEMV_PACKED_BEGIN                                                               \
  CLPORT_GEMV_LOCALS                                                                           \
  const int n0 = get_group_id(0) * GEMV_ROWS, m = get_global_id(1);                           \
  const global float* xr = CLPORT_AT(const global float*, x, x_off) + (size_t)m * K;          \
  const bool x_aligned = ((ulong)xr % 16) == 0;                                                \
  const uint nb = (uint)K / 32;                                                                \
  size_t row[GEMV_ROWS]; /* first block of each row; rows past N are clamped, never stored */ \
  float acc[GEMV_ROWS];                                                                        \
  for (int r = 0; r < GEMV_ROWS; ++r) {                                                        \
    row[r] = (size_t)min(n0 + r, N - 1) * nb;                                                  \
    acc[r] = 0.0f;                                                                             \
  }

// Q4_0 (value d * (n - 8)) and Q4_1 (d * n + m): the offset and the min multiply sum x once per
// block and row.
#define CLPORT_GEMV_PACKED_Q4(T, SCALE_T, TERM)                                                \
  kernel __attribute__((reqd_work_group_size(GEMV_WG, 1, 1))) void mul_mat_gemv_packed_##T(  \
      CLPORT_GEMV_PACKED_ARGS) {                                                               \
    CLPORT_GEMV_PACKED_BEGIN                                                                   \
    const global SCALE_T* sc = (const global SCALE_T*)s;                                       \
    for (uint b = get_local_id(0); b < nb; b += GEMV_WG) {                                     \
      float4 xv[8], xa[4], xb[4];                                                              \
      gp_load_x(xr, b, x_aligned, xv);                                                         \
      float4 sum4 = (float4)(0.0f);                                                            \
      for (int w = 0; w < 4; ++w) {                                                            \
        xa[w] = xv[w] * GP_SCALE_LO;                                                           \
        xb[w] = xv[w + 4] * GP_SCALE_HI;                                                       \
        sum4 += xv[w] + xv[w + 4];                                                             \
      }                                                                                        \
      const float xsum = sum4.x + sum4.y + sum4.z + sum4.w;                                    \
      for (int r = 0; r < GEMV_ROWS; ++r) {                                                    \
        const float qx = gp_q4_dot(q[row[r] + b], xa, xb);                                     \
        const uint bits = sc[row[r] + b];                                                      \
        acc[r] += TERM;                                                                        \
      }                                                                                        \
    }                                                                                          \
    CLPORT_GEMV_FINISH()                                                                       \
  }
#if CLPORT_WANT(q4_0)
CLPORT_GEMV_PACKED_Q4(q4_0, ushort, gp_half(bits) * (qx - 8.0f * xsum))
#endif
#if CLPORT_WANT(q4_1)
CLPORT_GEMV_PACKED_Q4(q4_1, uint, gp_half(bits) * qx + gp_half(bits >> 16) * xsum)
#endif

#if CLPORT_WANT(q8_0)
kernel __attribute__((reqd_work_group_size(GEMV_WG, 1, 1))) void mul_mat_gemv_packed_q8_0(
    CLPORT_GEMV_PACKED_ARGS) {
  CLPORT_GEMV_PACKED_BEGIN
  const global ushort* sc = (const global ushort*)s;
  for (uint b = get_local_id(0); b < nb; b += GEMV_WG) {
    float4 xs[8];
    gp_load_x(xr, b, x_aligned, xs);
    for (int i = 0; i < 8; ++i) xs[i] *= GP_SCALE_LO;
    for (int r = 0; r < GEMV_ROWS; ++r) {
      const size_t i = row[r] + b;
      acc[r] += gp_half(sc[i]) * gp_q8_dot(q[2 * i], q[2 * i + 1], xs);
    }
  }
  CLPORT_GEMV_FINISH()
}
#endif

// Repack kernels: GGUF rows (row_bytes apart, blocks only 2-byte aligned) into the arrays above.
// One work-item per (block b, row n); NDRange (B, N).
inline uint gp_word(const global uchar* p) {
  const global ushort* h = (const global ushort*)p;
  return (uint)h[0] | ((uint)h[1] << 16);
}

inline uint4 gp_quad(const global uchar* p) {
  return (uint4)(gp_word(p), gp_word(p + 4), gp_word(p + 8), gp_word(p + 12));
}

#define CLPORT_PACK_ARGS                                                                       \
  const global uchar *src, ulong src_off, ulong row_bytes, int B, int N, global uint4 *q,     \
      global void *s

#define CLPORT_PACK_BEGIN(BLOCK_BYTES)                                                         \
  const int b = get_global_id(0), n = get_global_id(1);                                       \
  if (b >= B || n >= N) return;                                                                \
  const size_t i = (size_t)n * B + b;                                                          \
  const global uchar* blk = src + src_off + (size_t)n * row_bytes + (size_t)b * (BLOCK_BYTES);

#if CLPORT_WANT(q4_0)
kernel void pack_q4_0(CLPORT_PACK_ARGS) {
  CLPORT_PACK_BEGIN(18)
  ((global ushort*)s)[i] = *(const global ushort*)blk;
  q[i] = gp_quad(blk + 2);
}
#endif

#if CLPORT_WANT(q4_1)
kernel void pack_q4_1(CLPORT_PACK_ARGS) {
  CLPORT_PACK_BEGIN(20)
  ((global uint*)s)[i] = gp_word(blk);
  q[i] = gp_quad(blk + 4);
}
#endif

#if CLPORT_WANT(q8_0)
kernel void pack_q8_0(CLPORT_PACK_ARGS) {
  CLPORT_PACK_BEGIN(34)
  ((global ushort*)s)[i] = *(const global ushort*)blk;
  q[2 * i] = gp_quad(blk + 2);
  q[2 * i + 1] = gp_quad(blk + 18);
}
#endif
