// Integer GEMV over weights repacked eight rows at a time (the "x8" layout of CPU devices,
// described and written by mul_mat_gemv_q8a_x8_layout.cl), on the same 8-bit activation blocks as
// mul_mat_gemv_q8a.cl (Q8Block32, the row quantizer, the x86 vector types). Both go in front, and
// mul_mat_gemv_q8a_x16.cl (two row groups in 512-bit vectors).
//
// Why: in the GGUF layout a work-item reduces each (row, block) product on its own: unpack the
// block, multiply, convert, scale, and later a horizontal sum, ~17 x86 instructions per block
// of PoCL's code. Here the 8 rows of a group are the 8 lanes of one vector: an activation dword
// (4 codes) is broadcast against 4 codes of each of the 8 rows, so a block of 8 rows is 8
// multiply-adds, one conversion and one scale multiply for all 8 rows (~6.5 instructions per
// row-block), and each work-item streams one contiguous run of memory.

// Activation rows per work-item of the x8a kernels: 8, or 4 where M is at most 4 (a step of a few
// sequences, whose rows past M would repeat the last row's work), as op_launch_q8a.cpp launches
// them (the row functions come in these two counts, x8m_rows_T_4 and _8). The weights' words are
// unpacked once per work-item for all its rows, and the unpacking is a third of the instructions
// of a word for 4 rows: a Gemma 3 prompt's Q5_0 products took 13% less time at 8 rows than at 4
// on PoCL x86.
#define X8A_ROWS 8
inline int x8a_rows(int M) { return M <= 4 ? 4 : X8A_ROWS; }

#if defined(__AVX2__) && defined(__x86_64__) && !defined(CLPORT_Q8A_PORTABLE)
typedef uchar x8_v32u __attribute__((vector_size(32), aligned(1)));

// 4 activation codes in every dword of a register.
inline q8a_v32c x8_broadcast4(const global char* codes) {
  return __builtin_astype((int8)(*(const global int*)codes), q8a_v32c);
}

// Lane r: the integer dot of row r's 32 codes (the 4 words at q) with activation codes xc.
// vpmaddubsw pair sums are at most 2 * 15 * 127 = 3810 in size, so the eight summed per 16-bit
// lane stay below 2^15; one vpmaddwd then adds each row's pair of lanes.
inline int8 x8_dot_q4(const global uchar* q, const global char* xc) {
  const q8a_v16s ones = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  q8a_v16s s = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int k = 0; k < 4; ++k) {
    const x8_v32u w = *(const global x8_v32u*)(q + 32 * k);
    s += __builtin_ia32_pmaddubsw256((q8a_v32c)(w & (uchar)15), x8_broadcast4(xc + 4 * k));
    s += __builtin_ia32_pmaddubsw256((q8a_v32c)(w >> (uchar)4), x8_broadcast4(xc + 16 + 4 * k));
  }
  return __builtin_astype(__builtin_ia32_pmaddwd256(s, ones), int8);
}

// Bit 16 of each byte 4r + t where bit first + t of row r's fifth-bit word (dword r of qh) is
// set: the byte that holds the 4 bits is spread over the dword (vpshufb), then each byte tests
// its own bit.
inline x8_v32u x8_fifth_bits(x8_v32u qh, int first) {
  const q8a_v32c spread = {0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12,
                           0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12};
  const x8_v32u bits = {1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8,
                        1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8};
  const x8_v32u picked = (x8_v32u)__builtin_ia32_pshufb256((q8a_v32c)qh, spread + (char)(first / 8));
  const x8_v32u mask = bits << (uchar)(first % 8);
  return (x8_v32u)((picked & mask) == mask) & (uchar)16;
}

// Q5_0 / Q5_1 (qh: the fifth-bit word, q: the 4 quant words). Codes reach 31, so pair sums
// reach 2 * 31 * 127 and four of them are summed at most in 16 bits: the low and the high codes
// get a vpmaddwd each.
inline int8 x8_dot_q5(const global uchar* qh, const global uchar* q, const global char* xc) {
  const q8a_v16s ones = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  q8a_v16s lo = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, hi = lo;
  const x8_v32u h = *(const global x8_v32u*)qh;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const x8_v32u w = *(const global x8_v32u*)(q + 32 * k);
    lo += __builtin_ia32_pmaddubsw256((q8a_v32c)((w & (uchar)15) | x8_fifth_bits(h, 4 * k)), x8_broadcast4(xc + 4 * k));
    hi += __builtin_ia32_pmaddubsw256((q8a_v32c)((w >> (uchar)4) | x8_fifth_bits(h, 16 + 4 * k)),
                                      x8_broadcast4(xc + 16 + 4 * k));
  }
  return __builtin_astype(__builtin_ia32_pmaddwd256(lo, ones) + __builtin_ia32_pmaddwd256(hi, ones), int8);
}

// The same for signed 8-bit codes (Q8_0's 8 words): |w| times x with w's sign moved onto x, as
// in q8a_dot_signed. A pair sum reaches 2 * 128 * 127, so each word's pairs are widened to 32
// bits before they are added.
inline int8 x8_dot_q8(const global uchar* q, const global char* xc) {
  const q8a_v16s ones = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  q8a_v8i s = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int k = 0; k < 8; ++k) {
    const q8a_v32c w = (q8a_v32c)(*(const global x8_v32u*)(q + 32 * k));
    const q8a_v32c x = x8_broadcast4(xc + 4 * k);
    s += __builtin_ia32_pmaddwd256(
        __builtin_ia32_pmaddubsw256(__builtin_ia32_psignb256(w, w), __builtin_ia32_psignb256(x, w)), ones);
  }
  return __builtin_astype(s, int8);
}

// Each row's byte b (8 bytes from p, row r at p[r]) as the 16-bit pair (b, b) of 32-bit lane r:
// the multiplier vpmaddwd applies to that row's two 16-bit lanes. Signed (Q6_K) or unsigned.
inline q8a_v16s x8_pairs_u8(const global uchar* p) {
  const int8 v = convert_int8(vload8(0, p));
  return __builtin_astype(v | (v << 16), q8a_v16s);
}
inline q8a_v16s x8_pairs_i8(const global uchar* p) {
  const int8 v = convert_int8(vload8(0, (const global char*)p));
  return __builtin_astype((v & 0xffff) | (v << 16), q8a_v16s);
}

// The dots of R activation rows (codes xc[r]) against one unit of the 8 rows, the unit's words
// loaded and unpacked once for all of them; each row's integer sums are those of the one-row
// functions above (Q4_K and Q6_K included: the unpacking of a word is a third to a half of its
// instructions for 4 rows). Written once for R = 4 and R = 8 as a macro, and unrolled and inlined
// by request: PoCL's compiler left the word loop rolled, reloading and unpacking every word once
// per activation row, called these functions with their arrays in memory, and did not unroll
// the row loops where the count was a parameter made constant by inlining (a Gemma 3 prompt's
// Q5_0 products 1.5x slower).
#define X8M_DOT_FUNCS(R)                                                                                                      \
  inline __attribute__((always_inline)) void x8m_dot_q4_##R(const global uchar* q, const global char* const* xc, int8* out) { \
    const q8a_v16s ones = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};                                                   \
    const q8a_v16s zero = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};                                                   \
    q8a_v16s s[R];                                                                                                            \
    _Pragma("unroll")                                                                                                         \
    for (int r = 0; r < R; ++r) s[r] = zero;                                                                                  \
    _Pragma("unroll")                                                                                                         \
    for (int k = 0; k < 4; ++k) {                                                                                             \
      const x8_v32u w = *(const global x8_v32u*)(q + 32 * k);                                                                 \
      const q8a_v32c lo = (q8a_v32c)(w & (uchar)15), hi = (q8a_v32c)(w >> (uchar)4);                                          \
      _Pragma("unroll")                                                                                                       \
      for (int r = 0; r < R; ++r) {                                                                                           \
        s[r] += __builtin_ia32_pmaddubsw256(lo, x8_broadcast4(xc[r] + 4 * k));                                                \
        s[r] += __builtin_ia32_pmaddubsw256(hi, x8_broadcast4(xc[r] + 16 + 4 * k));                                           \
      }                                                                                                                       \
    }                                                                                                                         \
    _Pragma("unroll")                                                                                                         \
    for (int r = 0; r < R; ++r) out[r] = __builtin_astype(__builtin_ia32_pmaddwd256(s[r], ones), int8);                       \
  }                                                                                                                           \
  inline __attribute__((always_inline)) void x8m_dot_q5_##R(const global uchar* qh, const global uchar* q,                    \
                                                        const global char* const* xc, int8* out) {                            \
    const q8a_v16s ones = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};                                                   \
    const q8a_v16s zero = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};                                                   \
    q8a_v16s lo_sum[R], hi_sum[R];                                                                                            \
    _Pragma("unroll")                                                                                                         \
    for (int r = 0; r < R; ++r) lo_sum[r] = hi_sum[r] = zero;                                                                 \
    const x8_v32u h = *(const global x8_v32u*)qh;                                                                             \
    _Pragma("unroll")                                                                                                         \
    for (int k = 0; k < 4; ++k) {                                                                                             \
      const x8_v32u w = *(const global x8_v32u*)(q + 32 * k);                                                                 \
      const q8a_v32c lo = (q8a_v32c)((w & (uchar)15) | x8_fifth_bits(h, 4 * k));                                              \
      const q8a_v32c hi = (q8a_v32c)((w >> (uchar)4) | x8_fifth_bits(h, 16 + 4 * k));                                         \
      _Pragma("unroll")                                                                                                       \
      for (int r = 0; r < R; ++r) {                                                                                           \
        lo_sum[r] += __builtin_ia32_pmaddubsw256(lo, x8_broadcast4(xc[r] + 4 * k));                                           \
        hi_sum[r] += __builtin_ia32_pmaddubsw256(hi, x8_broadcast4(xc[r] + 16 + 4 * k));                                      \
      }                                                                                                                       \
    }                                                                                                                         \
    _Pragma("unroll")                                                                                                         \
    for (int r = 0; r < R; ++r)                                                                                               \
      out[r] = __builtin_astype(__builtin_ia32_pmaddwd256(lo_sum[r], ones) + __builtin_ia32_pmaddwd256(hi_sum[r], ones),      \
                                int8);                                                                                        \
  }                                                                                                                           \
  inline __attribute__((always_inline)) void x8m_dot_q8_##R(const global uchar* q, const global char* const* xc, int8* out) { \
    const q8a_v16s ones = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};                                                   \
    const q8a_v8i zero = {0, 0, 0, 0, 0, 0, 0, 0};                                                                            \
    q8a_v8i s[R];                                                                                                             \
    _Pragma("unroll")                                                                                                         \
    for (int r = 0; r < R; ++r) s[r] = zero;                                                                                  \
    _Pragma("unroll")                                                                                                         \
    for (int k = 0; k < 8; ++k) {                                                                                             \
      const q8a_v32c w = (q8a_v32c)(*(const global x8_v32u*)(q + 32 * k));                                                    \
      const q8a_v32c magnitude = __builtin_ia32_psignb256(w, w);                                                              \
      _Pragma("unroll")                                                                                                       \
      for (int r = 0; r < R; ++r) {                                                                                           \
        const q8a_v32c x = x8_broadcast4(xc[r] + 4 * k);                                                                      \
        s[r] += __builtin_ia32_pmaddwd256(__builtin_ia32_pmaddubsw256(magnitude, __builtin_ia32_psignb256(x, w)), ones);      \
      }                                                                                                                       \
    }                                                                                                                         \
    _Pragma("unroll")                                                                                                         \
    for (int r = 0; r < R; ++r) out[r] = __builtin_astype(s[r], int8);                                                        \
  }                                                                                                                           \
  inline __attribute__((always_inline)) void x8m_dot_q4_k_##R(const global uchar* blk, const global char* const* xc,          \
                                                          int8* out) {                                                        \
    const q8a_v16s zero16 = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};                                                 \
    const q8a_v8i zero = {0, 0, 0, 0, 0, 0, 0, 0};                                                                            \
    q8a_v8i s[R];                                                                                                             \
    _Pragma("unroll")                                                                                                         \
    for (int r = 0; r < R; ++r) s[r] = zero;                                                                                  \
    _Pragma("unroll")                                                                                                         \
    for (int p = 0; p < 4; ++p) {                                                                                             \
      q8a_v16s lo[R], hi[R];                                                                                                  \
      _Pragma("unroll")                                                                                                       \
      for (int r = 0; r < R; ++r) lo[r] = hi[r] = zero16;                                                                     \
      _Pragma("unroll")                                                                                                       \
      for (int k = 0; k < 8; ++k) {                                                                                           \
        const x8_v32u w = *(const global x8_v32u*)(blk + 160 + 256 * p + 32 * k);                                             \
        const q8a_v32c wl = (q8a_v32c)(w & (uchar)15), wh = (q8a_v32c)(w >> (uchar)4);                                        \
        _Pragma("unroll")                                                                                                     \
        for (int r = 0; r < R; ++r) {                                                                                         \
          lo[r] += __builtin_ia32_pmaddubsw256(wl, x8_broadcast4(xc[r] + 64 * p + 4 * k));                                    \
          hi[r] += __builtin_ia32_pmaddubsw256(wh, x8_broadcast4(xc[r] + 64 * p + 32 + 4 * k));                               \
        }                                                                                                                     \
      }                                                                                                                       \
      const q8a_v16s sc_lo = x8_pairs_u8(blk + 32 + 16 * p), sc_hi = x8_pairs_u8(blk + 40 + 16 * p);                          \
      _Pragma("unroll")                                                                                                       \
      for (int r = 0; r < R; ++r)                                                                                             \
        s[r] += __builtin_ia32_pmaddwd256(lo[r], sc_lo) + __builtin_ia32_pmaddwd256(hi[r], sc_hi);                            \
    }                                                                                                                         \
    _Pragma("unroll")                                                                                                         \
    for (int r = 0; r < R; ++r) out[r] = __builtin_astype(s[r], int8);                                                        \
  }                                                                                                                           \
  inline __attribute__((always_inline)) void x8m_dot_q6_k_##R(const global uchar* blk, const global char* const* xc,          \
                                                          int8* out) {                                                        \
    const q8a_v16s zero16 = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};                                                 \
    const q8a_v8i zero = {0, 0, 0, 0, 0, 0, 0, 0};                                                                            \
    q8a_v8i s[R];                                                                                                             \
    _Pragma("unroll")                                                                                                         \
    for (int r = 0; r < R; ++r) s[r] = zero;                                                                                  \
    _Pragma("unroll")                                                                                                         \
    for (int j = 0; j < 8; ++j) {                                                                                             \
      const int n = j / 4, g = j % 4;                                                                                         \
      const global uchar* ql = blk + 144 + 32 * (16 * n + 8 * (g & 1));                                                       \
      const global uchar* qh = blk + 1168 + 32 * 8 * n;                                                                       \
      const uchar lshift = (uchar)((g >> 1) * 4), hshift = (uchar)(2 * g);                                                    \
      _Pragma("unroll")                                                                                                       \
      for (int h = 0; h < 4; ++h) {                                                                                           \
        q8a_v16s pairs[R];                                                                                                    \
        _Pragma("unroll")                                                                                                     \
        for (int r = 0; r < R; ++r) pairs[r] = zero16;                                                                        \
        _Pragma("unroll")                                                                                                     \
        for (int k = 2 * h; k < 2 * h + 2; ++k) {                                                                             \
          const x8_v32u l = *(const global x8_v32u*)(ql + 32 * k), u = *(const global x8_v32u*)(qh + 32 * k);                 \
          const q8a_v32c w = (q8a_v32c)(((l >> lshift) & (uchar)15) | (((u >> hshift) & (uchar)3) << (uchar)4));              \
          _Pragma("unroll")                                                                                                   \
          for (int r = 0; r < R; ++r)                                                                                         \
            pairs[r] += __builtin_ia32_pmaddubsw256(w, x8_broadcast4(xc[r] + 32 * j + 4 * k));                                \
        }                                                                                                                     \
        const q8a_v16s sc = x8_pairs_i8(blk + 16 + 8 * (2 * j + h / 2));                                                      \
        _Pragma("unroll")                                                                                                     \
        for (int r = 0; r < R; ++r) s[r] += __builtin_ia32_pmaddwd256(pairs[r], sc);                                          \
      }                                                                                                                       \
    }                                                                                                                         \
    _Pragma("unroll")                                                                                                         \
    for (int r = 0; r < R; ++r) out[r] = __builtin_astype(s[r], int8);                                                        \
  }
X8M_DOT_FUNCS(1)
X8M_DOT_FUNCS(4)
X8M_DOT_FUNCS(8)

// One activation row's K-quant dots, the R = 1 forms of the above. Q4_K: lane r = sum over runs j
// of sc[j][r] * dot(run j of row r, codes). Q6_K: lane r = sum over runs i of 16 of sc[i][r] *
// dot(run i of row r, codes), codes 0..63 (the offset of 32 is the caller's); a pair sum reaches
// 2 * 63 * 127, so two words are summed at most before vpmaddwd applies the run's scale, and the
// loops are unrolled so that every shift is a constant (a variable byte shift costs PoCL's code a
// mask computed per word: 20 instructions a word instead of 8).
inline int8 x8_dot_q4_k(const global uchar* blk, const global char* xc) {
  int8 out;
  x8m_dot_q4_k_1(blk, &xc, &out);
  return out;
}
inline int8 x8_dot_q6_k(const global uchar* blk, const global char* xc) {
  int8 out;
  x8m_dot_q6_k_1(blk, &xc, &out);
  return out;
}
#else
// Sums of each run of 4 lanes (one row's partial sums).
inline int4 x8_sum4(int16 v) {
  return (int4)(v.s0 + v.s1 + v.s2 + v.s3, v.s4 + v.s5 + v.s6 + v.s7, v.s8 + v.s9 + v.sa + v.sb,
                v.sc + v.sd + v.se + v.sf);
}
inline int8 x8_dot_q4(const global uchar* q, const global char* xc) {
  int16 rows0 = (int16)(0), rows1 = (int16)(0);  // lane 4r + t: rows 0..3, rows 4..7
  for (int k = 0; k < 4; ++k) {
    const char4 lo = vload4(k, xc), hi = vload4(4 + k, xc);
    const int16 a = convert_int16((char16)(lo, lo, lo, lo)), c = convert_int16((char16)(hi, hi, hi, hi));
    const int16 w0 = convert_int16(vload16(0, q + 32 * k)), w1 = convert_int16(vload16(1, q + 32 * k));
    rows0 += (w0 & 15) * a + (w0 >> 4) * c;
    rows1 += (w1 & 15) * a + (w1 >> 4) * c;
  }
  return (int8)(x8_sum4(rows0), x8_sum4(rows1));
}
inline int8 x8_dot_q5(const global uchar* qh, const global uchar* q, const global char* xc) {
  int16 rows0 = (int16)(0), rows1 = (int16)(0);
  const uint8 h = vload8(0, (const global uint*)qh);
  const uint16 h0 = (uint16)(h.s0, h.s0, h.s0, h.s0, h.s1, h.s1, h.s1, h.s1, h.s2, h.s2, h.s2, h.s2, h.s3, h.s3, h.s3, h.s3);
  const uint16 h1 = (uint16)(h.s4, h.s4, h.s4, h.s4, h.s5, h.s5, h.s5, h.s5, h.s6, h.s6, h.s6, h.s6, h.s7, h.s7, h.s7, h.s7);
  const uint16 t = (uint16)(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3);
  for (int k = 0; k < 4; ++k) {
    const char4 lo = vload4(k, xc), hi = vload4(4 + k, xc);
    const int16 a = convert_int16((char16)(lo, lo, lo, lo)), c = convert_int16((char16)(hi, hi, hi, hi));
    const int16 w0 = convert_int16(vload16(0, q + 32 * k)), w1 = convert_int16(vload16(1, q + 32 * k));
    const uint16 s_lo = t + (uint)(4 * k), s_hi = t + (uint)(16 + 4 * k);
    rows0 += ((w0 & 15) | as_int16(((h0 >> s_lo) & 1u) << 4)) * a + ((w0 >> 4) | as_int16(((h0 >> s_hi) & 1u) << 4)) * c;
    rows1 += ((w1 & 15) | as_int16(((h1 >> s_lo) & 1u) << 4)) * a + ((w1 >> 4) | as_int16(((h1 >> s_hi) & 1u) << 4)) * c;
  }
  return (int8)(x8_sum4(rows0), x8_sum4(rows1));
}
inline int8 x8_dot_q8(const global uchar* q, const global char* xc) {
  int16 rows0 = (int16)(0), rows1 = (int16)(0);
  for (int k = 0; k < 8; ++k) {
    const char4 x = vload4(k, xc);
    const int16 a = convert_int16((char16)(x, x, x, x));
    const global char* w = (const global char*)(q + 32 * k);
    rows0 += convert_int16(vload16(0, w)) * a;
    rows1 += convert_int16(vload16(1, w)) * a;
  }
  return (int8)(x8_sum4(rows0), x8_sum4(rows1));
}

// Row sums of the codes (w >> shift) & mask of words words at q (codes 4k .. 4k+3 in word k)
// times activation codes xc, plus (high) ((h >> hshift) & 3) << 4 from the words at qh when qh
// is not NULL.
inline int8 x8_dot_words(const global uchar* q, const global uchar* qh, int words, uchar shift, uchar hshift,
                         const global char* xc) {
  int16 rows0 = (int16)(0), rows1 = (int16)(0);
  for (int k = 0; k < words; ++k) {
    const char4 x = vload4(k, xc);
    const int16 a = convert_int16((char16)(x, x, x, x));
    uchar16 w0 = (vload16(0, q + 32 * k) >> shift) & (uchar)15, w1 = (vload16(1, q + 32 * k) >> shift) & (uchar)15;
    if (qh) {
      w0 |= ((vload16(0, qh + 32 * k) >> hshift) & (uchar)3) << (uchar)4;
      w1 |= ((vload16(1, qh + 32 * k) >> hshift) & (uchar)3) << (uchar)4;
    }
    rows0 += convert_int16(w0) * a;
    rows1 += convert_int16(w1) * a;
  }
  return (int8)(x8_sum4(rows0), x8_sum4(rows1));
}

inline int8 x8_dot_q4_k(const global uchar* blk, const global char* xc) {
  int8 s = (int8)(0);
  for (int j = 0; j < 8; ++j)
    s += x8_dot_words(blk + 160 + 256 * (j / 2), 0, 8, (uchar)((j & 1) * 4), (uchar)0, xc + 32 * j) *
         convert_int8(vload8(0, blk + 32 + 8 * j));
  return s;
}

inline int8 x8_dot_q6_k(const global uchar* blk, const global char* xc) {
  int8 s = (int8)(0);
  for (int j = 0; j < 8; ++j) {
    const int n = j / 4, g = j % 4;
    const global uchar* ql = blk + 144 + 32 * (16 * n + 8 * (g & 1));
    const global uchar* qh = blk + 1168 + 32 * 8 * n;
    for (int part = 0; part < 2; ++part)  // codes 16 part .. 16 part + 15: one scale
      s += x8_dot_words(ql + 128 * part, qh + 128 * part, 4, (uchar)((g >> 1) * 4), (uchar)(2 * g),
                        xc + 32 * j + 16 * part) *
           convert_int8(vload8(0, (const global char*)(blk + 16 + 8 * (2 * j + part))));
  }
  return s;
}

// The dots of R activation rows, one row at a time.
#define X8M_DOT_FUNCS(R)                                                                                         \
  inline void x8m_dot_q4_##R(const global uchar* q, const global char* const* xc, int8* out) {                  \
    for (int r = 0; r < R; ++r) out[r] = x8_dot_q4(q, xc[r]);                                                   \
  }                                                                                                             \
  inline void x8m_dot_q5_##R(const global uchar* qh, const global uchar* q, const global char* const* xc,        \
                             int8* out) {                                                                       \
    for (int r = 0; r < R; ++r) out[r] = x8_dot_q5(qh, q, xc[r]);                                               \
  }                                                                                                             \
  inline void x8m_dot_q8_##R(const global uchar* q, const global char* const* xc, int8* out) {                  \
    for (int r = 0; r < R; ++r) out[r] = x8_dot_q8(q, xc[r]);                                                   \
  }                                                                                                             \
  inline void x8m_dot_q4_k_##R(const global uchar* blk, const global char* const* xc, int8* out) {              \
    for (int r = 0; r < R; ++r) out[r] = x8_dot_q4_k(blk, xc[r]);                                               \
  }                                                                                                             \
  inline void x8m_dot_q6_k_##R(const global uchar* blk, const global char* const* xc, int8* out) {              \
    for (int r = 0; r < R; ++r) out[r] = x8_dot_q6_k(blk, xc[r]);                                               \
  }
X8M_DOT_FUNCS(4)
X8M_DOT_FUNCS(8)
#endif

// Prefetches the lines of the unit (block or super-block) X8_AHEAD bytes ahead of blk in the
// work-item's stream. On PoCL x86 that ran a Q4_1 4096 x 4096 stream 10-20% faster in five of
// five alternating runs of a standalone harness (the hardware prefetcher alone left the kernel
// at 75-80% of a bare read loop). Elsewhere nothing (oclgrind has no prefetch).
#define X8_AHEAD 2048
#if defined(__x86_64__)
#define X8_PREFETCH(blk, bytes)                                                               \
  for (int line = 0; line < (bytes); line += 64) __builtin_prefetch((blk) + X8_AHEAD + line)
#else
#define X8_PREFETCH(blk, bytes)
#endif

// Eight half scales as floats.
inline float8 x8_half8(const global uchar* p) {
#if defined(__F16C__) && defined(__x86_64__)
  return __builtin_astype(__builtin_ia32_vcvtph2ps256(vload8(0, (const global short*)p)), float8);
#else
  return (float8)(ld_f16(p), ld_f16(p + 2), ld_f16(p + 4), ld_f16(p + 6), ld_f16(p + 8), ld_f16(p + 10),
                  ld_f16(p + 12), ld_f16(p + 14));
#endif
}

// The 8 rows of a group (wg: its first block) against activation row xq (blocks Q8Block32
// blocks): the sum over blocks of d_w d_x dot, plus the part the activation sums s_x =
// d_x sum(q_x) carry, CARRIED times s_x per block: Q4_0's and Q5_0's code offsets (-8 d_w,
// -16 d_w), Q4_1's and Q5_1's minimum m_w (the 8 halves after the scales), none for Q8_0.
// DOT(blk, codes) is the dtype's integer dot of the block's 8 rows.
#define CLPORT_X8_ROWS_32(T, DOT, CARRIED)                                                    \
  inline float8 x8_rows_##T(const global uchar* wg, const global uchar* xq, int blocks) {    \
    float8 acc = (float8)(0.0f), carried = (float8)(0.0f);                                    \
    for (int b = 0; b < blocks; ++b) {                                                        \
      const global uchar* blk = wg + (size_t)b * X8_BYTES_##T;                                \
      X8_PREFETCH(blk, X8_BYTES_##T);                                                         \
      const global uchar* a = xq + (size_t)b * Q8A_BLOCK_BYTES;                               \
      const float dx = *(const global float*)a, sx = *(const global float*)(a + 4);          \
      const float8 d = x8_half8(blk);                                                         \
      acc += convert_float8(DOT(blk, (const global char*)(a + 8))) * (d * dx);               \
      carried += (CARRIED) * sx;                                                              \
    }                                                                                         \
    return acc + carried;                                                                     \
  }
// The dot products by where each layout keeps its words (after X8_SCALES_T bytes of halves;
// Q5's first word holds the fifth bits).
#define X8_DOT_q4_0(blk, codes) x8_dot_q4((blk) + X8_SCALES_q4_0, codes)
#define X8_DOT_q4_1(blk, codes) x8_dot_q4((blk) + X8_SCALES_q4_1, codes)
#define X8_DOT_q5_0(blk, codes) x8_dot_q5((blk) + X8_SCALES_q5_0, (blk) + X8_SCALES_q5_0 + 32, codes)
#define X8_DOT_q5_1(blk, codes) x8_dot_q5((blk) + X8_SCALES_q5_1, (blk) + X8_SCALES_q5_1 + 32, codes)
#define X8_DOT_q8_0(blk, codes) x8_dot_q8((blk) + X8_SCALES_q8_0, codes)
CLPORT_X8_ROWS_32(q4_0, X8_DOT_q4_0, -8.0f * d)
CLPORT_X8_ROWS_32(q4_1, X8_DOT_q4_1, x8_half8(blk + 16))
CLPORT_X8_ROWS_32(q5_0, X8_DOT_q5_0, -16.0f * d)
CLPORT_X8_ROWS_32(q5_1, X8_DOT_q5_1, x8_half8(blk + 16))
CLPORT_X8_ROWS_32(q8_0, X8_DOT_q8_0, (float8)(0.0f))

// K-quants over Q8BlockK activations (d_x, 256 codes, 16 sums of 16 codes): one super-block of
// the group's 8 rows against codes, in units of d_x. Q4_K's minimums and Q6_K's offset of 32
// come from the activation sums.
// From the super-block's integer dot (x8_dot_q4_k / x8_dot_q6_k, or a row of the x8m ones).
inline float8 x8_super_dot_q4_k(const global uchar* blk, int8 dot, const global short* bsums) {
  int8 mins = (int8)(0);
  for (int j = 0; j < 8; ++j) mins += convert_int8(vload8(0, blk + 96 + 8 * j)) * (bsums[2 * j] + bsums[2 * j + 1]);
  return convert_float8(dot) * x8_half8(blk) - convert_float8(mins) * x8_half8(blk + 16);
}
inline float8 x8_super_dot_q6_k(const global uchar* blk, int8 dot, const global short* bsums) {
  int8 offset = (int8)(0);
  for (int i = 0; i < 16; ++i) offset += convert_int8(vload8(0, (const global char*)(blk + 16 + 8 * i))) * bsums[i];
  return convert_float8(dot - 32 * offset) * x8_half8(blk);
}
inline float8 x8_super_q4_k(const global uchar* blk, const global char* codes, const global short* bsums) {
  return x8_super_dot_q4_k(blk, x8_dot_q4_k(blk, codes), bsums);
}
inline float8 x8_super_q6_k(const global uchar* blk, const global char* codes, const global short* bsums) {
  return x8_super_dot_q6_k(blk, x8_dot_q6_k(blk, codes), bsums);
}

#define CLPORT_X8_ROWS_K(T)                                                                   \
  inline float8 x8_rows_##T(const global uchar* wg, const global uchar* xq, int supers) {    \
    float8 acc = (float8)(0.0f);                                                              \
    for (int sb = 0; sb < supers; ++sb) {                                                     \
      const global uchar* blk = wg + (size_t)sb * X8_BYTES_##T;                               \
      X8_PREFETCH(blk, X8_BYTES_##T);                                                         \
      const global uchar* a = xq + (size_t)sb * Q8A_KBLOCK_BYTES;                             \
      acc += x8_super_##T(blk, (const global char*)(a + 4), (const global short*)(a + 260)) * \
             *(const global float*)a;                                                         \
    }                                                                                         \
    return acc;                                                                               \
  }
CLPORT_X8_ROWS_K(q4_k)
CLPORT_X8_ROWS_K(q6_k)

// a[r]: activation row min(r, last)'s unit u (a block or super-block of UNIT_BYTES), codes[r]: its
// codes, CODES bytes in (rows past the last repeat it).
#define X8_ACT_ROWS(R, u, UNIT_BYTES, CODES)                                                  \
  const global uchar* a[R];                                                                   \
  const global char* codes[R];                                                                \
  _Pragma("unroll") for (int r = 0; r < R; ++r) {                                             \
    a[r] = xq + min(r, last) * xq_row + (size_t)(u) * (UNIT_BYTES);                           \
    codes[r] = (const global char*)(a[r] + (CODES));                                          \
  }

// x8_rows_T for R activation rows at once (xq: the first, xq_row bytes apart; rows past `last`
// read row last's codes): each weight unit is read and unpacked once for all of them (MDOT, the
// x8m_dot functions). A step over several sequences is such a mat-mul of a few rows. Each row's
// arithmetic is x8_rows_T's.
#define CLPORT_X8_MROWS_32(T, MDOT, CARRIED, R)                                               \
  inline void x8m_rows_##T##_##R(const global uchar* wg, const global uchar* xq, size_t xq_row, int last, \
                                 int blocks, float8* out) {                                   \
    float8 acc[R], carried[R];                                                                \
    _Pragma("unroll") for (int r = 0; r < R; ++r) acc[r] = carried[r] = (float8)(0.0f);      \
    for (int b = 0; b < blocks; ++b) {                                                        \
      const global uchar* blk = wg + (size_t)b * X8_BYTES_##T;                                \
      X8_PREFETCH(blk, X8_BYTES_##T);                                                         \
      const float8 d = x8_half8(blk), c = (CARRIED);                                          \
      X8_ACT_ROWS(R, b, Q8A_BLOCK_BYTES, 8)                                                   \
      int8 dots[R];                                                                           \
      MDOT(R, blk, codes, dots);                                                              \
      _Pragma("unroll") for (int r = 0; r < R; ++r) {                                         \
        const float dx = *(const global float*)a[r], sx = *(const global float*)(a[r] + 4);  \
        acc[r] += convert_float8(dots[r]) * (d * dx);                                         \
        carried[r] += c * sx;                                                                 \
      }                                                                                       \
    }                                                                                         \
    _Pragma("unroll") for (int r = 0; r < R; ++r) out[r] = acc[r] + carried[r];               \
  }
#define X8M_DOT_q4_0(R, blk, codes, out) x8m_dot_q4_##R((blk) + X8_SCALES_q4_0, codes, out)
#define X8M_DOT_q4_1(R, blk, codes, out) x8m_dot_q4_##R((blk) + X8_SCALES_q4_1, codes, out)
#define X8M_DOT_q5_0(R, blk, codes, out) x8m_dot_q5_##R((blk) + X8_SCALES_q5_0, (blk) + X8_SCALES_q5_0 + 32, codes, out)
#define X8M_DOT_q5_1(R, blk, codes, out) x8m_dot_q5_##R((blk) + X8_SCALES_q5_1, (blk) + X8_SCALES_q5_1 + 32, codes, out)
#define X8M_DOT_q8_0(R, blk, codes, out) x8m_dot_q8_##R((blk) + X8_SCALES_q8_0, codes, out)
#define CLPORT_X8_MROWS_32_BOTH(T, MDOT, CARRIED) \
  CLPORT_X8_MROWS_32(T, MDOT, CARRIED, 4)         \
  CLPORT_X8_MROWS_32(T, MDOT, CARRIED, 8)
CLPORT_X8_MROWS_32_BOTH(q4_0, X8M_DOT_q4_0, -8.0f * d)
CLPORT_X8_MROWS_32_BOTH(q4_1, X8M_DOT_q4_1, x8_half8(blk + 16))
CLPORT_X8_MROWS_32_BOTH(q5_0, X8M_DOT_q5_0, -16.0f * d)
CLPORT_X8_MROWS_32_BOTH(q5_1, X8M_DOT_q5_1, x8_half8(blk + 16))
CLPORT_X8_MROWS_32_BOTH(q8_0, X8M_DOT_q8_0, (float8)(0.0f))

#define CLPORT_X8_MROWS_K(T, R)                                                               \
  inline void x8m_rows_##T##_##R(const global uchar* wg, const global uchar* xq, size_t xq_row, int last, \
                                 int supers, float8* out) {                                   \
    float8 acc[R];                                                                            \
    _Pragma("unroll") for (int r = 0; r < R; ++r) acc[r] = (float8)(0.0f);                    \
    for (int sb = 0; sb < supers; ++sb) {                                                     \
      const global uchar* blk = wg + (size_t)sb * X8_BYTES_##T;                               \
      X8_PREFETCH(blk, X8_BYTES_##T);                                                         \
      X8_ACT_ROWS(R, sb, Q8A_KBLOCK_BYTES, 4)                                                 \
      int8 dots[R];                                                                           \
      x8m_dot_##T##_##R(blk, codes, dots);                                                    \
      _Pragma("unroll") for (int r = 0; r < R; ++r)                                           \
        acc[r] += x8_super_dot_##T(blk, dots[r], (const global short*)(a[r] + 260)) * *(const global float*)a[r]; \
    }                                                                                         \
    _Pragma("unroll") for (int r = 0; r < R; ++r) out[r] = acc[r];                            \
  }
CLPORT_X8_MROWS_K(q4_k, 4)
CLPORT_X8_MROWS_K(q4_k, 8)
CLPORT_X8_MROWS_K(q6_k, 4)
CLPORT_X8_MROWS_K(q6_k, 8)

// Two row groups (rows at wg0 and wg1; has1: whether the second is one of the weight's, else
// wg1 is wg0 again) against R activation rows, out0 / out1: an x8a work-item's products. Where the
// CPU has 512-bit vectors (mul_mat_gemv_q8a_x16.cl) the 32-value types take both groups in each
// instruction at 8 rows, with each lane's arithmetic that of x8m_rows_T; otherwise, and for Q8_0
// (no vpsignb in 512 bits) and the K-quants, the groups one after the other.
#define CLPORT_X8P_TWICE(T, R)                                                                \
  inline void x8p_rows_##T##_##R(const global uchar* wg0, const global uchar* wg1, int has1,  \
                                 const global uchar* xq, size_t xq_row, int last, int units,  \
                                 float8* out0, float8* out1) {                                \
    x8m_rows_##T##_##R(wg0, xq, xq_row, last, units, out0);                                   \
    if (has1) x8m_rows_##T##_##R(wg1, xq, xq_row, last, units, out1);                         \
  }
#if defined(X16_PAIRED)
#define CLPORT_X8P_X16(T, MDOT16, CARRIED16, R)                                               \
  inline void x8p_rows_##T##_##R(const global uchar* wg0, const global uchar* wg1, int has1,  \
                                 const global uchar* xq, size_t xq_row, int last, int blocks, \
                                 float8* out0, float8* out1) {                                \
    float16 acc[R], carried[R];                                                               \
    _Pragma("unroll") for (int r = 0; r < R; ++r) acc[r] = carried[r] = (float16)(0.0f);     \
    for (int b = 0; b < blocks; ++b) {                                                        \
      const global uchar* blk0 = wg0 + (size_t)b * X8_BYTES_##T;                              \
      const global uchar* blk1 = wg1 + (size_t)b * X8_BYTES_##T;                              \
      X8_PREFETCH(blk0, X8_BYTES_##T);                                                        \
      X8_PREFETCH(blk1, X8_BYTES_##T);                                                        \
      const float16 d = (float16)(x8_half8(blk0), x8_half8(blk1)), c = (CARRIED16);           \
      X8_ACT_ROWS(R, b, Q8A_BLOCK_BYTES, 8)                                                   \
      int16 dots[R];                                                                          \
      MDOT16(R, blk0, blk1, codes, dots);                                                     \
      _Pragma("unroll") for (int r = 0; r < R; ++r) {                                         \
        const float dx = *(const global float*)a[r], sx = *(const global float*)(a[r] + 4);  \
        acc[r] += convert_float16(dots[r]) * (d * dx);                                        \
        carried[r] += c * sx;                                                                 \
      }                                                                                       \
    }                                                                                         \
    _Pragma("unroll") for (int r = 0; r < R; ++r) {                                           \
      const float16 v = acc[r] + carried[r];                                                  \
      out0[r] = v.lo;                                                                         \
      out1[r] = v.hi;                                                                         \
    }                                                                                         \
  }
#define X16M_DOT_q4_0(R, b0, b1, codes, out) x16m_dot_q4_##R((b0) + X8_SCALES_q4_0, (b1) + X8_SCALES_q4_0, codes, out)
#define X16M_DOT_q4_1(R, b0, b1, codes, out) x16m_dot_q4_##R((b0) + X8_SCALES_q4_1, (b1) + X8_SCALES_q4_1, codes, out)
#define X16M_DOT_q5_0(R, b0, b1, codes, out)                                                                \
  x16m_dot_q5_##R((b0) + X8_SCALES_q5_0, (b1) + X8_SCALES_q5_0, (b0) + X8_SCALES_q5_0 + 32, (b1) + X8_SCALES_q5_0 + 32, \
                  codes, out)
#define X16M_DOT_q5_1(R, b0, b1, codes, out)                                                                \
  x16m_dot_q5_##R((b0) + X8_SCALES_q5_1, (b1) + X8_SCALES_q5_1, (b0) + X8_SCALES_q5_1 + 32, (b1) + X8_SCALES_q5_1 + 32, \
                  codes, out)
#define X16_MINIMUMS (float16)(x8_half8(blk0 + 16), x8_half8(blk1 + 16))
// 8 activation rows only: at 4 (a decode step of a few sequences) the 512-bit form ran slower
// than the 256-bit one twice (SmolLM2, 4 sequences on PoCL: the Q4_1 SwiGLU product 2.5-2.6 ms a
// step against 1.9-2.1), at 8 faster (a 155-token prompt: SmolLM2's Q4_1 products 10-17% less
// time, Gemma 3's Q5_0 about 24% less).
#define CLPORT_X8P_BOTH(T, MDOT16, CARRIED16) \
  CLPORT_X8P_TWICE(T, 4)                      \
  CLPORT_X8P_X16(T, MDOT16, CARRIED16, 8)
CLPORT_X8P_BOTH(q4_0, X16M_DOT_q4_0, -8.0f * d)
CLPORT_X8P_BOTH(q4_1, X16M_DOT_q4_1, X16_MINIMUMS)
CLPORT_X8P_BOTH(q5_0, X16M_DOT_q5_0, -16.0f * d)
CLPORT_X8P_BOTH(q5_1, X16M_DOT_q5_1, X16_MINIMUMS)
#else
CLPORT_X8P_TWICE(q4_0, 4)
CLPORT_X8P_TWICE(q4_0, 8)
CLPORT_X8P_TWICE(q4_1, 4)
CLPORT_X8P_TWICE(q4_1, 8)
CLPORT_X8P_TWICE(q5_0, 4)
CLPORT_X8P_TWICE(q5_0, 8)
CLPORT_X8P_TWICE(q5_1, 4)
CLPORT_X8P_TWICE(q5_1, 8)
#endif
CLPORT_X8P_TWICE(q8_0, 4)
CLPORT_X8P_TWICE(q8_0, 8)
CLPORT_X8P_TWICE(q4_k, 4)
CLPORT_X8P_TWICE(q4_k, 8)
CLPORT_X8P_TWICE(q6_k, 4)
CLPORT_X8P_TWICE(q6_k, 8)

// Rows 8 grp .. 8 grp + 7 of y, those that exist (n < N); the others read as 0 and are not
// written.
inline float8 x8_load(const global float* y, int grp, int N) {
  if (8 * grp + 8 <= N) return vload8(grp, y);
  float lanes[8];
  for (int r = 0; r < 8; ++r) lanes[r] = 8 * grp + r < N ? y[8 * grp + r] : 0.0f;
  return vload8(0, lanes);
}
inline void x8_store(global float* y, int grp, int N, float8 v) {
  if (8 * grp + 8 <= N) {
    vstore8(v, grp, y);
    return;
  }
  float lanes[8];
  vstore8(v, 0, lanes);
  for (int r = 0; 8 * grp + r < N; ++r) y[8 * grp + r] = lanes[r];
}

inline float8 x8_swiglu(float8 gate, float8 up) { return gate / (1.0f + exp(-gate)) * up; }

// The three epilogues, for row group grp of activation row m: W x; W x + res (res may be dst
// itself: each element is read, then written, by one work-item); silu(Wg x) * (Wu x). A
// layout's "row" is a row group: w_row_bytes bytes from w + w_off (and u + u_off).
#define CLPORT_X8_Y global float* y = CLPORT_AT(global float*, dst, dst_off) + (size_t)m * N;
#define CLPORT_X8_ROWS(T, BASE, OFF) x8_rows_##T((BASE) + (OFF) + (size_t)grp * w_row_bytes, xq, units)
#define CLPORT_X8_EPILOGUE_PLAIN(T) CLPORT_X8_Y x8_store(y, grp, N, CLPORT_X8_ROWS(T, w, w_off));
#define CLPORT_X8_EPILOGUE_ADD(T)                                                             \
  CLPORT_X8_Y                                                                                 \
  const global float* rv = CLPORT_AT(const global float*, res, res_off) + (size_t)m * N;     \
  x8_store(y, grp, N, CLPORT_X8_ROWS(T, w, w_off) + x8_load(rv, grp, N));
#define CLPORT_X8_EPILOGUE_SWIGLU(T)                                                          \
  CLPORT_X8_Y                                                                                 \
  x8_store(y, grp, N, x8_swiglu(CLPORT_X8_ROWS(T, w, w_off), CLPORT_X8_ROWS(T, u, u_off)));

// The same epilogues over the activation rows m0 .. m0 + last of an x8a work-item, for its row
// groups grp and (has1) grp1, which takes X8A_ROWS rows or (M at most 4) 4: the row count a
// constant in each branch.
#define CLPORT_X8M_ROWS(T, BASE, OFF, OUT0, OUT1)                                             \
  if (rows == 4)                                                                              \
    x8p_rows_##T##_4((BASE) + (OFF) + (size_t)grp * w_row_bytes, (BASE) + (OFF) + (size_t)grp1 * w_row_bytes, has1, \
                     xq, xq_row, last, units, OUT0, OUT1);                                    \
  else                                                                                        \
    x8p_rows_##T##_8((BASE) + (OFF) + (size_t)grp * w_row_bytes, (BASE) + (OFF) + (size_t)grp1 * w_row_bytes, has1, \
                     xq, xq_row, last, units, OUT0, OUT1)
#define CLPORT_X8M_Y(r) global float* y = CLPORT_AT(global float*, dst, dst_off) + (size_t)(m0 + (r)) * N;
#define CLPORT_X8M_EPILOGUE_PLAIN(T)                                                          \
  float8 v[X8A_ROWS], v1[X8A_ROWS];                                                           \
  CLPORT_X8M_ROWS(T, w, w_off, v, v1);                                                        \
  for (int r = 0; r <= last; ++r) {                                                           \
    CLPORT_X8M_Y(r)                                                                           \
    x8_store(y, grp, N, v[r]);                                                                \
    if (has1) x8_store(y, grp1, N, v1[r]);                                                    \
  }
#define CLPORT_X8M_EPILOGUE_ADD(T)                                                            \
  float8 v[X8A_ROWS], v1[X8A_ROWS];                                                           \
  CLPORT_X8M_ROWS(T, w, w_off, v, v1);                                                        \
  for (int r = 0; r <= last; ++r) {                                                           \
    CLPORT_X8M_Y(r)                                                                           \
    const global float* rv = CLPORT_AT(const global float*, res, res_off) + (size_t)(m0 + r) * N; \
    x8_store(y, grp, N, v[r] + x8_load(rv, grp, N));                                          \
    if (has1) x8_store(y, grp1, N, v1[r] + x8_load(rv, grp1, N));                             \
  }
#define CLPORT_X8M_EPILOGUE_SWIGLU(T)                                                         \
  float8 gate[X8A_ROWS], up[X8A_ROWS], gate1[X8A_ROWS], up1[X8A_ROWS];                        \
  CLPORT_X8M_ROWS(T, w, w_off, gate, gate1);                                                  \
  CLPORT_X8M_ROWS(T, u, u_off, up, up1);                                                      \
  for (int r = 0; r <= last; ++r) {                                                           \
    CLPORT_X8M_Y(r)                                                                           \
    x8_store(y, grp, N, x8_swiglu(gate[r], up[r]));                                           \
    if (has1) x8_store(y, grp1, N, x8_swiglu(gate1[r], up1[r]));                              \
  }

// The activation blocks per dtype: values per block (the weight's units: blocks or
// super-blocks), their bytes, the quantizer.
#define X8_VALUES_q4_0 32
#define X8_VALUES_q4_1 32
#define X8_VALUES_q8_0 32
#define X8_VALUES_q5_0 32
#define X8_VALUES_q5_1 32
#define X8_VALUES_q4_k 256
#define X8_VALUES_q6_k 256
#define X8_ACT_BYTES_q4_0 Q8A_BLOCK_BYTES
#define X8_ACT_BYTES_q4_1 Q8A_BLOCK_BYTES
#define X8_ACT_BYTES_q8_0 Q8A_BLOCK_BYTES
#define X8_ACT_BYTES_q5_0 Q8A_BLOCK_BYTES
#define X8_ACT_BYTES_q5_1 Q8A_BLOCK_BYTES
#define X8_ACT_BYTES_q4_k Q8A_KBLOCK_BYTES
#define X8_ACT_BYTES_q6_k Q8A_KBLOCK_BYTES
#define X8_QUANTIZE_q4_0 q8a_quantize_row_32
#define X8_QUANTIZE_q4_1 q8a_quantize_row_32
#define X8_QUANTIZE_q8_0 q8a_quantize_row_32
#define X8_QUANTIZE_q5_0 q8a_quantize_row_32
#define X8_QUANTIZE_q5_1 q8a_quantize_row_32
#define X8_QUANTIZE_q4_k q8a_quantize_row_k
#define X8_QUANTIZE_q6_k q8a_quantize_row_k

// The kernels take the arguments of the q8a / q8s kernels of mul_mat_gemv_q8a.cl (the host
// launches both families alike).
// x8a: a work-item per (two row groups, x8a_rows(M) activation rows), over activation rows
// quantized in front; M is the number of activation rows.
#define CLPORT_X8A_PROLOGUE(T)                                                                \
  const int groups = (N + 7) / 8, grp = 2 * get_global_id(0), grp1 = min(grp + 1, groups - 1); \
  const int has1 = grp + 1 < groups, rows = x8a_rows(M), m0 = get_global_id(1) * rows;       \
  const int units = K / X8_VALUES_##T, last = min(rows, M - m0) - 1;                          \
  const size_t xq_row = (size_t)units * X8_ACT_BYTES_##T;                                     \
  const global uchar* xq = xa + xa_off + (size_t)m0 * xq_row;

// x8s: one activation row; each of a few work-items quantizes it into its own slice of scratch
// (as the q8s kernels do), then walks a contiguous share of the row groups.
#define CLPORT_X8S_PROLOGUE(T)                                                                \
  const int m = 0, units = K / X8_VALUES_##T;                                                 \
  global uchar* xq = scratch + (size_t)get_global_id(0) * units * X8_ACT_BYTES_##T;         \
  X8_QUANTIZE_##T(CLPORT_AT(const global float*, x, x_off), CLPORT_AT(const global float*, g, g_off), norm, \
                  eps, xq, K);                                                                \
  const int groups = (N + 7) / 8, share = (groups + get_global_size(0) - 1) / get_global_size(0); \
  const int grp_end = min(groups, (int)(get_global_id(0) + 1) * share);                       \
  for (int grp = get_global_id(0) * share; grp < grp_end; ++grp)

// x8f: a few activation rows (M at most X8A_ROWS, a decode step of a few sequences); each of a
// few work-items quantizes them all into its own slice of scratch, as x8s does the one row, then
// walks a contiguous share of the row-group pairs with the x8a row functions, so each row's
// result is the same bits as in an x8a call. One launch instead of a quantize launch in front:
// on PoCL the quantize launch of each mat-mul cost about as much as the products of its rows.
#define CLPORT_X8F_PROLOGUE(T)                                                                \
  const int units = K / X8_VALUES_##T, rows = x8a_rows(M), m0 = 0, last = M - 1;              \
  const size_t xq_row = (size_t)units * X8_ACT_BYTES_##T;                                     \
  global uchar* xq = scratch + get_global_id(0) * (size_t)M * xq_row;                         \
  for (int m = 0; m < M; ++m)                                                                 \
    X8_QUANTIZE_##T(CLPORT_AT(const global float*, x, x_off) + (size_t)m * K,                \
                    CLPORT_AT(const global float*, g, g_off), norm, eps, xq + m * xq_row, K); \
  const int groups = (N + 7) / 8, pairs = (groups + 1) / 2;                                   \
  const int share = (pairs + get_global_size(0) - 1) / get_global_size(0);                    \
  const int pair_end = min(pairs, (int)(get_global_id(0) + 1) * share);                       \
  for (int pair = get_global_id(0) * share; pair < pair_end; ++pair) {                        \
    const int grp = 2 * pair, grp1 = min(grp + 1, groups - 1), has1 = grp + 1 < groups;

#define CLPORT_X8_KERNELS(T)                                                                  \
  kernel __attribute__((reqd_work_group_size(1, 1, 1))) void mul_mat_gemv_x8a_##T(CLPORT_Q8A_ARGS, int M) { \
    CLPORT_X8A_PROLOGUE(T)                                                                    \
    CLPORT_X8M_EPILOGUE_PLAIN(T)                                                              \
  }                                                                                           \
  kernel __attribute__((reqd_work_group_size(1, 1, 1))) void mul_mat_gemv_x8a_add_##T(       \
      CLPORT_Q8A_ARGS, const global uchar* res, ulong res_off, int M) {                       \
    CLPORT_X8A_PROLOGUE(T)                                                                    \
    CLPORT_X8M_EPILOGUE_ADD(T)                                                                \
  }                                                                                           \
  kernel __attribute__((reqd_work_group_size(1, 1, 1))) void mul_mat_gemv_x8a_swiglu_##T(    \
      CLPORT_Q8A_ARGS, const global uchar* u, ulong u_off, int M) {                           \
    CLPORT_X8A_PROLOGUE(T)                                                                    \
    CLPORT_X8M_EPILOGUE_SWIGLU(T)                                                             \
  }                                                                                           \
  kernel __attribute__((reqd_work_group_size(1, 1, 1))) void mul_mat_gemv_x8f_##T(CLPORT_Q8S_ARGS, int M) { \
    CLPORT_X8F_PROLOGUE(T) CLPORT_X8M_EPILOGUE_PLAIN(T) }                                     \
  }                                                                                           \
  kernel __attribute__((reqd_work_group_size(1, 1, 1))) void mul_mat_gemv_x8f_add_##T(       \
      CLPORT_Q8S_ARGS, const global uchar* res, ulong res_off, int M) {                       \
    CLPORT_X8F_PROLOGUE(T) CLPORT_X8M_EPILOGUE_ADD(T) }                                       \
  }                                                                                           \
  kernel __attribute__((reqd_work_group_size(1, 1, 1))) void mul_mat_gemv_x8f_swiglu_##T(    \
      CLPORT_Q8S_ARGS, const global uchar* u, ulong u_off, int M) {                           \
    CLPORT_X8F_PROLOGUE(T) CLPORT_X8M_EPILOGUE_SWIGLU(T) }                                    \
  }                                                                                           \
  kernel __attribute__((reqd_work_group_size(1, 1, 1))) void mul_mat_gemv_x8s_##T(CLPORT_Q8S_ARGS) { \
    CLPORT_X8S_PROLOGUE(T) { CLPORT_X8_EPILOGUE_PLAIN(T) }                                    \
  }                                                                                           \
  kernel __attribute__((reqd_work_group_size(1, 1, 1))) void mul_mat_gemv_x8s_add_##T(       \
      CLPORT_Q8S_ARGS, const global uchar* res, ulong res_off) {                              \
    CLPORT_X8S_PROLOGUE(T) { CLPORT_X8_EPILOGUE_ADD(T) }                                      \
  }                                                                                           \
  kernel __attribute__((reqd_work_group_size(1, 1, 1))) void mul_mat_gemv_x8s_swiglu_##T(    \
      CLPORT_Q8S_ARGS, const global uchar* u, ulong u_off) {                                  \
    CLPORT_X8S_PROLOGUE(T) { CLPORT_X8_EPILOGUE_SWIGLU(T) }                                   \
  }

#if CLPORT_WANT(q4_0)
CLPORT_X8_KERNELS(q4_0)
#endif
#if CLPORT_WANT(q4_1)
CLPORT_X8_KERNELS(q4_1)
#endif
#if CLPORT_WANT(q5_0)
CLPORT_X8_KERNELS(q5_0)
#endif
#if CLPORT_WANT(q5_1)
CLPORT_X8_KERNELS(q5_1)
#endif
#if CLPORT_WANT(q8_0)
CLPORT_X8_KERNELS(q8_0)
#endif
#if CLPORT_WANT(q4_k)
CLPORT_X8_KERNELS(q4_k)
#endif
#if CLPORT_WANT(q6_k)
CLPORT_X8_KERNELS(q6_k)
#endif
