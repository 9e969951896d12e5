// Integer dots of two row groups of the x8 layout at once, in 512-bit vectors (CPUs with
// AVX-512BW): the words of block b of groups g and g + 1 side by side, lanes 0..7 rows 8g ..
// 8g + 7, lanes 8..15 rows 8(g + 1) .. 8(g + 1) + 7. mul_mat_gemv_q8a_x8.cl (which follows and
// owns the layout) takes them in its x8a kernels, each work-item two row groups.
//
// Why: the x8a kernels are bound by the instructions they issue, not by memory. Per 32-byte word
// and activation row they broadcast 4 codes, multiply-add and accumulate (3 instructions for 8
// weight rows), plus the word's unpacking shared by the rows; in 64-byte vectors the same 3
// instructions cover 16 weight rows and the unpacking covers both groups.
//
// Each row's integer sums are those of the x8 functions (the same pair sums in the same 16-bit
// lanes).

#if defined(__AVX512BW__) && defined(__x86_64__) && !defined(CLPORT_Q8A_PORTABLE)
#define X16_PAIRED 1
typedef uchar x16_v32u __attribute__((vector_size(32), aligned(1)));
typedef uchar x16_v64u __attribute__((vector_size(64)));
typedef char x16_v64c __attribute__((vector_size(64)));
typedef short x16_v32s __attribute__((vector_size(64)));

// The 32-byte words at q0 and q1 as one vector (q0's first).
inline x16_v64u x16_words(const global uchar* q0, const global uchar* q1) {
  const x16_v32u a = *(const global x16_v32u*)q0, b = *(const global x16_v32u*)q1;
  return __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42,
                                 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63);
}

// 4 activation codes in every dword.
inline x16_v64c x16_broadcast4(const global char* codes) {
  return __builtin_astype((int16)(*(const global int*)codes), x16_v64c);
}

// x8_fifth_bits for both groups: vpshufb works within 128-bit lanes, so the spread pattern is
// the 32-byte one's first half four times.
inline x16_v64u x16_fifth_bits(x16_v64u qh, int first) {
  const x16_v64c spread = {0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12, 0, 0, 0, 0, 4, 4,
                           4, 4, 8, 8, 8, 8, 12, 12, 12, 12, 0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8,
                           12, 12, 12, 12, 0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12};
  const x16_v64u bits = {1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 1, 2,
                         4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8,
                         1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8};
  const x16_v64u picked = (x16_v64u)__builtin_ia32_pshufb512((x16_v64c)qh, spread + (char)(first / 8));
  const x16_v64u mask = bits << (uchar)(first % 8);
  return (x16_v64u)((picked & mask) == mask) & (uchar)16;
}

// The dots of R activation rows (codes xc[r]) against one block of both groups (quant words at
// q0 / q1, Q5's fifth-bit words at h0 / h1), into out[r]. A macro of the row count, unrolled by
// hand, as the x8m functions (PoCL's compiler keeps a loop over a parameter rolled); the x8a
// kernels take them at 8 rows.
#define X16M_DOT_FUNCS(R)                                                                                          \
  inline __attribute__((always_inline)) void x16m_dot_q4_##R(const global uchar* q0, const global uchar* q1,       \
                                                             const global char* const* xc, int16* out) {           \
    const x16_v32s ones = (x16_v32s)__builtin_astype((int16)(0x00010001), x16_v32s);                               \
    x16_v32s s[R];                                                                                                 \
    _Pragma("unroll") for (int r = 0; r < R; ++r) s[r] = (x16_v32s)__builtin_astype((int16)(0), x16_v32s);       \
    _Pragma("unroll") for (int k = 0; k < 4; ++k) {                                                                \
      const x16_v64u w = x16_words(q0 + 32 * k, q1 + 32 * k);                                                      \
      const x16_v64c lo = (x16_v64c)(w & (uchar)15), hi = (x16_v64c)(w >> (uchar)4);                               \
      _Pragma("unroll") for (int r = 0; r < R; ++r) {                                                              \
        s[r] += __builtin_ia32_pmaddubsw512(lo, x16_broadcast4(xc[r] + 4 * k));                                    \
        s[r] += __builtin_ia32_pmaddubsw512(hi, x16_broadcast4(xc[r] + 16 + 4 * k));                               \
      }                                                                                                            \
    }                                                                                                              \
    _Pragma("unroll") for (int r = 0; r < R; ++r) out[r] = __builtin_astype(__builtin_ia32_pmaddwd512(s[r], ones), int16); \
  }                                                                                                                \
  inline __attribute__((always_inline)) void x16m_dot_q5_##R(const global uchar* h0, const global uchar* h1,       \
                                                             const global uchar* q0, const global uchar* q1,       \
                                                             const global char* const* xc, int16* out) {           \
    const x16_v32s ones = (x16_v32s)__builtin_astype((int16)(0x00010001), x16_v32s);                               \
    x16_v32s lo_sum[R], hi_sum[R];                                                                                 \
    _Pragma("unroll") for (int r = 0; r < R; ++r) lo_sum[r] = hi_sum[r] =                                          \
        (x16_v32s)__builtin_astype((int16)(0), x16_v32s);                                                          \
    const x16_v64u h = x16_words(h0, h1);                                                                          \
    _Pragma("unroll") for (int k = 0; k < 4; ++k) {                                                                \
      const x16_v64u w = x16_words(q0 + 32 * k, q1 + 32 * k);                                                      \
      const x16_v64c lo = (x16_v64c)((w & (uchar)15) | x16_fifth_bits(h, 4 * k));                                  \
      const x16_v64c hi = (x16_v64c)((w >> (uchar)4) | x16_fifth_bits(h, 16 + 4 * k));                             \
      _Pragma("unroll") for (int r = 0; r < R; ++r) {                                                              \
        lo_sum[r] += __builtin_ia32_pmaddubsw512(lo, x16_broadcast4(xc[r] + 4 * k));                               \
        hi_sum[r] += __builtin_ia32_pmaddubsw512(hi, x16_broadcast4(xc[r] + 16 + 4 * k));                          \
      }                                                                                                            \
    }                                                                                                              \
    _Pragma("unroll") for (int r = 0; r < R; ++r) out[r] =                                                         \
        __builtin_astype(__builtin_ia32_pmaddwd512(lo_sum[r], ones) + __builtin_ia32_pmaddwd512(hi_sum[r], ones), int16); \
  }
X16M_DOT_FUNCS(8)
#endif
