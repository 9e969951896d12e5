// GGUF block formats, decoded in portable OpenCL C 1.2.
//
// Blocks are read as bytes (and halves through vload_half, which needs only 2-byte alignment
// and no cl_khr_fp16), so nothing depends on how a compiler would lay out a struct. Every block
// size is even, so a half at an even offset inside a block is 2-byte aligned whenever the row
// starts at an even byte offset (the host checks tensor offsets).
//
// The common interface, for every quantized type T:
//   dq32_T(row, s, &lo, &hi)   decodes the s-th run of 32 consecutive elements of a row
//                              (lo = elements 32s .. 32s+15, hi = 32s+16 .. 32s+31);
//   dot32_T(row, s, x)         dot product of that run with x[0..31].
// Legacy formats hold 32 elements per block (s = block); K-quants hold 256 (8 runs per block).
//
// Layouts (little-endian, packed):
//   Q4_0 18 B: f16 d, u8 qs[16]              x = (nibble - 8) * d
//   Q4_1 20 B: f16 d, f16 m, u8 qs[16]       x = nibble * d + m
//   Q5_0 22 B: f16 d, u32 qh, u8 qs[16]      x = (nibble | bit << 4) - 16) * d
//   Q5_1 24 B: f16 d, f16 m, u32 qh, qs[16]  x = (nibble | bit << 4) * d + m
//   Q8_0 34 B: f16 d, i8 qs[32]              x = q * d
//   Q4_K 144 B: f16 d, f16 dmin, u8 scales[12] (6-bit scale/min pairs), u8 qs[128]
//   Q5_K 176 B: f16 d, f16 dmin, u8 scales[12], u8 qh[32], u8 qs[128]
//   Q6_K 210 B: u8 ql[128], u8 qh[64], i8 scales[16], f16 d
//   Q2_K 84 B: u8 scales[16] (4-bit scale | 4-bit min << 4), u8 qs[64], f16 d, f16 dmin
//   Q3_K 110 B: u8 hmask[32], u8 qs[64], u8 scales[12] (16 6-bit scales + 32), f16 d
//   IQ4_NL 18 B: f16 d, u8 qs[16]                x = kIq4nl[nibble] * d
// For these three a second decoder, dq8_T(row, s, q, &a, &b), gives elements 4q..4q+3 (a) and
// 16+4q..16+4q+3 (b) of run s, the quarter the GPU GEMV split works on.
// In a legacy block, element j < 16 is the low nibble of qs[j], element j + 16 the high nibble.

#define QK_LEGACY 32
#define QK_K 256

// CLPORT_F16_BITS (CPUs): PoCL implements vload_half with ~17 scalar instructions, as much as
// the vector work of a whole 32-element run, so normal halves are widened with integer bit moves
// (exponent rebias 15 -> 127); zeros, subnormals, infinities and NaNs take vload_half.
#ifndef CLPORT_F16_BITS
#define CLPORT_F16_BITS 0
#endif
#if defined(__F16C__) && defined(__x86_64__)
// x86 CPUs with F16C (PoCL defines the target's feature macros): one vcvtph2ps, exact for every
// half, through the compiler's builtin (no cl_khr_fp16 needed). Measured 1.3x on PoCL's Q4_1 GEMV.
inline float ld_f16(const global uchar* p) {
  return __builtin_ia32_vcvtph2ps((short8)(*(const global short*)p, 0, 0, 0, 0, 0, 0, 0))[0];
}
#elif CLPORT_F16_BITS
inline float ld_f16(const global uchar* p) {
  const uint h = *(const global ushort*)p, e = h & 0x7c00u;
  if (e == 0u || e == 0x7c00u) return vload_half(0, (const global half*)p);
  return as_float(((h & 0x8000u) << 16) | (((h & 0x7fffu) << 13) + 0x38000000u));
}
#else
inline float ld_f16(const global uchar* p) { return vload_half(0, (const global half*)p); }
#endif

inline uint ld_u32(const global uchar* p) {
  return (uint)p[0] | ((uint)p[1] << 8) | ((uint)p[2] << 16) | ((uint)p[3] << 24);
}

// The upper half is gathered lane by lane rather than as v.hi: oclgrind 21.10 (Debian, LLVM 14)
// marks the lane that a shufflevector takes from element 11 as uninitialised (it compares mask
// indices with llvm::Value::UndefValueVal, which is 11), and the oclgrind conformance test runs
// these kernels with --uninitialized. Compilers fold both spellings to the same shuffle.
inline float hsum16(float16 v) {
  float8 a = v.lo + (float8)(v.s8, v.s9, v.sa, v.sb, v.sc, v.sd, v.se, v.sf);
  float4 b = a.lo + a.hi;
  float2 c = b.lo + b.hi;
  return c.x + c.y;
}

// The 5th bit of element j (lo) / j + 16 (hi) of a Q5 block, as 0 or 16.
inline int16 q5_high_bits(uint qh, uint first) {
  const uint16 shift = (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) + first;
  return convert_int16(((uint16)(qh) >> shift) & 1u) << 4;
}

inline void dq32_q4_0(const global uchar* row, uint s, float16* lo, float16* hi) {
  const global uchar* b = row + (size_t)s * 18;
  const float d = ld_f16(b);
  const int16 q = convert_int16(vload16(0, b + 2));
  *lo = convert_float16((q & 15) - 8) * d;
  *hi = convert_float16((q >> 4) - 8) * d;
}

inline void dq32_q4_1(const global uchar* row, uint s, float16* lo, float16* hi) {
  const global uchar* b = row + (size_t)s * 20;
  const float d = ld_f16(b), m = ld_f16(b + 2);
  const int16 q = convert_int16(vload16(0, b + 4));
  *lo = convert_float16(q & 15) * d + m;
  *hi = convert_float16(q >> 4) * d + m;
}

inline void dq32_q5_0(const global uchar* row, uint s, float16* lo, float16* hi) {
  const global uchar* b = row + (size_t)s * 22;
  const float d = ld_f16(b);
  const uint qh = ld_u32(b + 2);
  const int16 q = convert_int16(vload16(0, b + 6));
  *lo = convert_float16(((q & 15) | q5_high_bits(qh, 0)) - 16) * d;
  *hi = convert_float16(((q >> 4) | q5_high_bits(qh, 16)) - 16) * d;
}

inline void dq32_q5_1(const global uchar* row, uint s, float16* lo, float16* hi) {
  const global uchar* b = row + (size_t)s * 24;
  const float d = ld_f16(b), m = ld_f16(b + 2);
  const uint qh = ld_u32(b + 4);
  const int16 q = convert_int16(vload16(0, b + 8));
  *lo = convert_float16((q & 15) | q5_high_bits(qh, 0)) * d + m;
  *hi = convert_float16((q >> 4) | q5_high_bits(qh, 16)) * d + m;
}

inline void dq32_q8_0(const global uchar* row, uint s, float16* lo, float16* hi) {
  const global uchar* b = row + (size_t)s * 34;
  const float d = ld_f16(b);
  const global char* qs = (const global char*)(b + 2);
  *lo = convert_float16(vload16(0, qs)) * d;
  *hi = convert_float16(vload16(1, qs)) * d;
}

// 6-bit scale and min j (0..7) of a Q4_K / Q5_K block, packed in 12 bytes: for j < 4 the low 6
// bits of bytes j and j + 4; for j >= 4 a nibble of byte j + 4 below the top 2 bits of bytes
// j - 4 and j. The same three bytes are read either way, so nothing branches on j (work-items
// of one GPU work-group decode different runs).
inline float2 k_scale_min(const global uchar* sc, uint j) {
  const uint jl = j & 3;
  const uint s0 = sc[jl], s4 = sc[jl + 4], s8 = sc[jl + 8];
  const uint a = j < 4 ? (s0 & 63) : ((s8 & 15) | ((s0 >> 6) << 4));
  const uint m = j < 4 ? (s4 & 63) : ((s8 >> 4) | ((s4 >> 6) << 4));
  return (float2)((float)a, (float)m);
}

// Run j (0..7) of a Q4_K block: bytes qs[32 * (j / 2) ..], low nibbles for even j, high for odd.
inline void dq32_q4_k(const global uchar* row, uint s, float16* lo, float16* hi) {
  const global uchar* b = row + (size_t)(s / 8) * 144;
  const uint j = s % 8;
  const float2 sm = k_scale_min(b + 4, j);
  const float d = ld_f16(b) * sm.x, m = ld_f16(b + 2) * sm.y;
  const global uchar* qs = b + 16 + 32 * (j / 2);
  const uint shift = (j & 1) * 4;
  *lo = convert_float16((convert_int16(vload16(0, qs)) >> shift) & 15) * d - m;
  *hi = convert_float16((convert_int16(vload16(1, qs)) >> shift) & 15) * d - m;
}

// Q5_K: as Q4_K plus bit j of qh[l] as the 5th bit of element l of run j.
inline void dq32_q5_k(const global uchar* row, uint s, float16* lo, float16* hi) {
  const global uchar* b = row + (size_t)(s / 8) * 176;
  const uint j = s % 8;
  const float2 sm = k_scale_min(b + 4, j);
  const float d = ld_f16(b) * sm.x, m = ld_f16(b + 2) * sm.y;
  const global uchar* qh = b + 16;
  const global uchar* qs = b + 48 + 32 * (j / 2);
  const uint shift = (j & 1) * 4;
  const int16 h0 = ((convert_int16(vload16(0, qh)) >> j) & 1) << 4;
  const int16 h1 = ((convert_int16(vload16(1, qh)) >> j) & 1) << 4;
  *lo = convert_float16(((convert_int16(vload16(0, qs)) >> shift) & 15) | h0) * d - m;
  *hi = convert_float16(((convert_int16(vload16(1, qs)) >> shift) & 15) | h1) * d - m;
}

// Q6_K run j (0..7): half n = j / 4 (128 elements), group g = j % 4 inside it. Low 4 bits come
// from ql[64n + 32(g & 1) + l] (low nibble for g < 2, high for g >= 2), the top 2 bits from
// qh[32n + l] >> 2g; elements l < 16 use scale 8n + 2g, l >= 16 scale 8n + 2g + 1.
inline void dq32_q6_k(const global uchar* row, uint s, float16* lo, float16* hi) {
  const global uchar* b = row + (size_t)(s / 8) * 210;
  const uint j = s % 8, n = j / 4, g = j % 4;
  const float d = ld_f16(b + 208);
  const global char* sc = (const global char*)(b + 192) + 8 * n + 2 * g;
  const global uchar* ql = b + 64 * n + 32 * (g & 1);
  const global uchar* qh = b + 128 + 32 * n;
  const uint lshift = (g >> 1) * 4, hshift = 2 * g;
  const int16 q0 = (((convert_int16(vload16(0, ql)) >> lshift) & 15) |
                    (((convert_int16(vload16(0, qh)) >> hshift) & 3) << 4)) - 32;
  const int16 q1 = (((convert_int16(vload16(1, ql)) >> lshift) & 15) |
                    (((convert_int16(vload16(1, qh)) >> hshift) & 3) << 4)) - 32;
  *lo = convert_float16(q0) * (d * (float)sc[0]);
  *hi = convert_float16(q1) * (d * (float)sc[1]);
}

// Q2_K / Q3_K run j (0..7) of a super-block: half n = j / 4, group g = j % 4. Element l of the
// run sits in bits 2g, 2g+1 of qs[32n + l], in sub-block 8n + 2g + l / 16; Q3_K's third bit is
// bit 4n + g of hmask[l].
inline void dq32_q2_k(const global uchar* row, uint s, float16* lo, float16* hi) {
  const global uchar* b = row + (size_t)(s / 8) * 84;
  const uint j = s % 8, n = j / 4, g = j % 4;
  const global uchar* sc = b + 8 * n + 2 * g;
  const float d = ld_f16(b + 80), dmin = ld_f16(b + 82);
  const global uchar* qs = b + 16 + 32 * n;
  const int16 q0 = (convert_int16(vload16(0, qs)) >> (int)(2 * g)) & 3;
  const int16 q1 = (convert_int16(vload16(1, qs)) >> (int)(2 * g)) & 3;
  *lo = convert_float16(q0) * (d * (float)(sc[0] & 15)) - dmin * (float)(sc[0] >> 4);
  *hi = convert_float16(q1) * (d * (float)(sc[1] & 15)) - dmin * (float)(sc[1] >> 4);
}

inline void dq8_q2_k(const global uchar* row, uint s, uint q, float4* a, float4* c) {
  const global uchar* b = row + (size_t)(s / 8) * 84;
  const uint j = s % 8, n = j / 4, g = j % 4;
  const global uchar* sc = b + 8 * n + 2 * g;
  const float d = ld_f16(b + 80), dmin = ld_f16(b + 82);
  const global uchar* qs = b + 16 + 32 * n + 4 * q;
  const int4 q0 = (convert_int4(vload4(0, qs)) >> (int)(2 * g)) & 3;
  const int4 q1 = (convert_int4(vload4(4, qs)) >> (int)(2 * g)) & 3;
  *a = convert_float4(q0) * (d * (float)(sc[0] & 15)) - dmin * (float)(sc[0] >> 4);
  *c = convert_float4(q1) * (d * (float)(sc[1] & 15)) - dmin * (float)(sc[1] >> 4);
}

// Signed scale i (0..15) of a Q3_K block: low nibble = nibble i / 8 of byte i % 8, top 2 bits =
// bits 2(i / 4), 2(i / 4) + 1 of byte 8 + i % 4.
inline float q3_k_scale(const global uchar* sc, uint i) {
  const uint low = (sc[i % 8] >> (4 * (i / 8))) & 15u;
  const uint high = (sc[8 + i % 4] >> (2 * (i / 4))) & 3u;
  return (float)((int)(low | (high << 4)) - 32);
}

inline void dq32_q3_k(const global uchar* row, uint s, float16* lo, float16* hi) {
  const global uchar* b = row + (size_t)(s / 8) * 110;
  const uint j = s % 8, n = j / 4, g = j % 4;
  const float d = ld_f16(b + 108);
  const global uchar* qs = b + 32 + 32 * n;
  const int shift = (int)(2 * g), bit = (int)(4 * n + g);
  const int16 q0 = (((convert_int16(vload16(0, qs)) >> shift) & 3) |
                    (((convert_int16(vload16(0, b)) >> bit) & 1) << 2)) - 4;
  const int16 q1 = (((convert_int16(vload16(1, qs)) >> shift) & 3) |
                    (((convert_int16(vload16(1, b)) >> bit) & 1) << 2)) - 4;
  *lo = convert_float16(q0) * (d * q3_k_scale(b + 96, 8 * n + 2 * g));
  *hi = convert_float16(q1) * (d * q3_k_scale(b + 96, 8 * n + 2 * g + 1));
}

inline void dq8_q3_k(const global uchar* row, uint s, uint q, float4* a, float4* c) {
  const global uchar* b = row + (size_t)(s / 8) * 110;
  const uint j = s % 8, n = j / 4, g = j % 4;
  const float d = ld_f16(b + 108);
  const global uchar* qs = b + 32 + 32 * n + 4 * q;
  const global uchar* hm = b + 4 * q;
  const int shift = (int)(2 * g), bit = (int)(4 * n + g);
  const int4 q0 = (((convert_int4(vload4(0, qs)) >> shift) & 3) | (((convert_int4(vload4(0, hm)) >> bit) & 1) << 2)) - 4;
  const int4 q1 = (((convert_int4(vload4(4, qs)) >> shift) & 3) | (((convert_int4(vload4(4, hm)) >> bit) & 1) << 2)) - 4;
  *a = convert_float4(q0) * (d * q3_k_scale(b + 96, 8 * n + 2 * g));
  *c = convert_float4(q1) * (d * q3_k_scale(b + 96, 8 * n + 2 * g + 1));
}

// IQ4_NL's fixed code table (the GGUF format's values).
constant float kIq4nl[16] = {-127.0f, -104.0f, -83.0f, -65.0f, -49.0f, -35.0f, -22.0f, -10.0f,
                             1.0f,    13.0f,   25.0f,  38.0f,  53.0f,  69.0f,  89.0f,  113.0f};

// Table lookups lane by lane (OpenCL C has no vector gather). The vectors are built element by
// element, never by joining smaller vectors (see hsum16 for the oclgrind shuffle problem).
inline float4 iq4_nl_lookup4(uint4 c) {
  return (float4)(kIq4nl[c.x], kIq4nl[c.y], kIq4nl[c.z], kIq4nl[c.w]);
}
#define IQ4_NL_LANE(q, i, SH) kIq4nl[((q).s##i >> (SH)) & 15]
#define IQ4_NL_LOOKUP16(q, SH)                                                                 \
  (float16)(IQ4_NL_LANE(q, 0, SH), IQ4_NL_LANE(q, 1, SH), IQ4_NL_LANE(q, 2, SH), IQ4_NL_LANE(q, 3, SH), \
            IQ4_NL_LANE(q, 4, SH), IQ4_NL_LANE(q, 5, SH), IQ4_NL_LANE(q, 6, SH), IQ4_NL_LANE(q, 7, SH), \
            IQ4_NL_LANE(q, 8, SH), IQ4_NL_LANE(q, 9, SH), IQ4_NL_LANE(q, a, SH), IQ4_NL_LANE(q, b, SH), \
            IQ4_NL_LANE(q, c, SH), IQ4_NL_LANE(q, d, SH), IQ4_NL_LANE(q, e, SH), IQ4_NL_LANE(q, f, SH))

inline void dq32_iq4_nl(const global uchar* row, uint s, float16* lo, float16* hi) {
  const global uchar* b = row + (size_t)s * 18;
  const float d = ld_f16(b);
  const uchar16 q = vload16(0, b + 2);
  *lo = IQ4_NL_LOOKUP16(q, 0) * d;
  *hi = IQ4_NL_LOOKUP16(q, 4) * d;
}

inline void dq8_iq4_nl(const global uchar* row, uint s, uint q, float4* a, float4* c) {
  const global uchar* b = row + (size_t)s * 18;
  const float d = ld_f16(b);
  const uint4 v = convert_uint4(vload4(0, b + 2 + 4 * q));
  *a = iq4_nl_lookup4(v & 15u) * d;
  *c = iq4_nl_lookup4(v >> 4) * d;
}

#define CLPORT_DEFINE_DOT32(T)                                                              \
  inline float dot32_##T(const global uchar* row, uint s, const global float* x) {         \
    float16 lo, hi;                                                                         \
    dq32_##T(row, s, &lo, &hi);                                                             \
    return hsum16(lo * vload16(0, x) + hi * vload16(1, x));                                 \
  }
CLPORT_DEFINE_DOT32(q4_0)
CLPORT_DEFINE_DOT32(q4_1)
CLPORT_DEFINE_DOT32(q5_0)
CLPORT_DEFINE_DOT32(q5_1)
CLPORT_DEFINE_DOT32(q8_0)
CLPORT_DEFINE_DOT32(q4_k)
CLPORT_DEFINE_DOT32(q5_k)
CLPORT_DEFINE_DOT32(q6_k)
CLPORT_DEFINE_DOT32(q2_k)
CLPORT_DEFINE_DOT32(q3_k)
CLPORT_DEFINE_DOT32(iq4_nl)

// Applies M(T) to every quantized type the program keeps (CLPORT_WANT, common.cl), to stamp out
// one kernel per type.
#if CLPORT_WANT(q4_0)
#define CLPORT_IF_WANTED_q4_0(M) M(q4_0)
#else
#define CLPORT_IF_WANTED_q4_0(M)
#endif
#if CLPORT_WANT(q4_1)
#define CLPORT_IF_WANTED_q4_1(M) M(q4_1)
#else
#define CLPORT_IF_WANTED_q4_1(M)
#endif
#if CLPORT_WANT(q5_0)
#define CLPORT_IF_WANTED_q5_0(M) M(q5_0)
#else
#define CLPORT_IF_WANTED_q5_0(M)
#endif
#if CLPORT_WANT(q5_1)
#define CLPORT_IF_WANTED_q5_1(M) M(q5_1)
#else
#define CLPORT_IF_WANTED_q5_1(M)
#endif
#if CLPORT_WANT(q8_0)
#define CLPORT_IF_WANTED_q8_0(M) M(q8_0)
#else
#define CLPORT_IF_WANTED_q8_0(M)
#endif
#if CLPORT_WANT(q4_k)
#define CLPORT_IF_WANTED_q4_k(M) M(q4_k)
#else
#define CLPORT_IF_WANTED_q4_k(M)
#endif
#if CLPORT_WANT(q5_k)
#define CLPORT_IF_WANTED_q5_k(M) M(q5_k)
#else
#define CLPORT_IF_WANTED_q5_k(M)
#endif
#if CLPORT_WANT(q6_k)
#define CLPORT_IF_WANTED_q6_k(M) M(q6_k)
#else
#define CLPORT_IF_WANTED_q6_k(M)
#endif
#if CLPORT_WANT(q2_k)
#define CLPORT_IF_WANTED_q2_k(M) M(q2_k)
#else
#define CLPORT_IF_WANTED_q2_k(M)
#endif
#if CLPORT_WANT(q3_k)
#define CLPORT_IF_WANTED_q3_k(M) M(q3_k)
#else
#define CLPORT_IF_WANTED_q3_k(M)
#endif
#if CLPORT_WANT(iq4_nl)
#define CLPORT_IF_WANTED_iq4_nl(M) M(iq4_nl)
#else
#define CLPORT_IF_WANTED_iq4_nl(M)
#endif
#define CLPORT_FOR_EACH_QUANT(M) \
  CLPORT_IF_WANTED_q4_0(M) \
  CLPORT_IF_WANTED_q4_1(M) \
  CLPORT_IF_WANTED_q5_0(M) \
  CLPORT_IF_WANTED_q5_1(M) \
  CLPORT_IF_WANTED_q8_0(M) \
  CLPORT_IF_WANTED_q4_k(M) \
  CLPORT_IF_WANTED_q5_k(M) \
  CLPORT_IF_WANTED_q6_k(M) \
  CLPORT_IF_WANTED_q2_k(M) \
  CLPORT_IF_WANTED_q3_k(M) \
  CLPORT_IF_WANTED_iq4_nl(M)

// bfloat16: the top 16 bits of a float. Arguments in vload order (index, pointer).
inline float ld_bf16(uint i, const global ushort* p) { return as_float((uint)p[i] << 16); }
inline float4 ld_bf16_4(uint i, const global ushort* p) {
  return as_float4(convert_uint4(vload4(i, p)) << 16);
}

// Element i (kv_T) or elements 4 i4 .. 4 i4 + 3 (kv4_T) of a quantized KV cache row r (bytes) as
// floats, decoded as core/src/quant's dequantizers (the attention kernels' cache loads): Q8_0
// x = q d; Q4_0 x = (nibble - 8) d, element j < 16 the low nibble of qs[j], j + 16 its high nibble.
// Four consecutive elements never straddle a block or a nibble half.
inline float kv_q8_0(const global uchar* r, int i) {
  const global uchar* b = r + (i / 32) * 34;
  return vload_half(0, (const global half*)b) * (float)((const global char*)(b + 2))[i % 32];
}
inline float4 kv4_q8_0(const global uchar* r, int i4) {
  const global uchar* b = r + (i4 / 8) * 34;
  return vload_half(0, (const global half*)b) * convert_float4(vload4(0, (const global char*)(b + 2 + (i4 % 8) * 4)));
}
inline float kv_q4_0(const global uchar* r, int i) {
  const global uchar* b = r + (i / 32) * 18;
  const int j = i % 32;
  const int q = j < 16 ? (b[2 + j] & 15) : (b[2 + j - 16] >> 4);
  return vload_half(0, (const global half*)b) * (float)(q - 8);
}
inline float4 kv4_q4_0(const global uchar* r, int i4) {
  const global uchar* b = r + (i4 / 8) * 18;
  const int j = (i4 % 8) * 4;
  const int4 q = convert_int4(vload4(0, b + 2 + (j & 15)));
  return vload_half(0, (const global half*)b) * convert_float4((j < 16 ? (q & 15) : (q >> 4)) - 8);
}
