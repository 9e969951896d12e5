// The "x8" layout of quantized weights on CPU devices (mul_mat_gemv_q8a_x8.cl multiplies by
// it) and the kernels that repack GGUF rows into it. Goes in front of mul_mat_gemv_q8a_x8.cl.
//
// Layout, per group of 8 weight rows (rows 8g .. 8g+7; rows past N are zero) and block b (32
// values), at byte (g * (K / 32) + b) * X8_BYTES_T, the same bytes as the 8 GGUF blocks:
//   Q4_0, 144 B: f16 d[8], then 4 words of 32 bytes;
//   Q4_1, 160 B: f16 d[8], f16 m[8], then the same 4 words;
//   Q5_0, 176 B: f16 d[8], the fifth-bit word (row r's 32 fifth bits as dword r), then the
//     4 words of the low 4 bits; Q5_1, 192 B: f16 d[8], f16 m[8], then the same 5 words;
//   Q8_0, 272 B: f16 d[8], then 8 words of 32 bytes.
//   Q4_K, 1184 B per super-block (256 values): f16 d[8], f16 dmin[8], the 6-bit scales and
//     minimums decoded to bytes, sc[j][r] then m[j][r] (j the run of 32 values), then 32
//     words of the 128 quant bytes (bytes 32p .. 32p+31: run 2p in the low nibbles, run 2p + 1
//     in the high ones);
//   Q6_K, 1680 B per super-block: f16 d[8], the scales sc[i][r] (int8, i the run of 16
//     values), then 32 words of the 128 ql bytes and 16 words of the 64 qh bytes.
// Word k holds bytes 4k .. 4k+3 of each row's quant bytes, row r at bytes 4r .. 4r+3. For the
// 4-bit types the low nibbles are codes 4k .. 4k+3 of the row, the high nibbles codes
// 16+4k .. 16+4k+3 (a GGUF block keeps code j in the low nibble of byte j and code j + 16 in
// its high nibble); for Q8_0 the bytes are codes 4k .. 4k+3.

#define X8_BYTES_q4_0 144
#define X8_BYTES_q4_1 160
#define X8_BYTES_q8_0 272
#define X8_SCALES_q4_0 16  // bytes of half scales in front of the quant words
#define X8_SCALES_q4_1 32
#define X8_SCALES_q8_0 16
#define X8_BYTES_q5_0 176
#define X8_BYTES_q5_1 192
#define X8_SCALES_q5_0 16
#define X8_SCALES_q5_1 32
#define X8_BYTES_q4_k 1184
#define X8_BYTES_q6_k 1680

// Repacking: work-item (u, i) writes unit u (block or super-block) of row group g = first_group
// + i (the host repacks a large weight in slices of groups). The unit's first byte in the layout
// (unit_bytes each), or NULL for a work-item past the row's units.
inline global uchar* x8_pack_target(global uchar* dst, int units, int unit_bytes, int g) {
  const int u = get_global_id(0);
  return u < units ? dst + ((size_t)g * units + u) * unit_bytes : 0;
}
// Row 8g + r's GGUF unit (gguf_bytes each); *keep is 0 for a row past N, whose bytes are then
// written as zeros (row N - 1 is read in its place).
inline const global uchar* x8_pack_source(const global uchar* src, ulong row_bytes, int N, int gguf_bytes, int g,
                                          int r, uchar* keep) {
  const int n = 8 * g + r;
  *keep = n < N ? 0xff : 0;
  return src + (size_t)min(n, N - 1) * row_bytes + (size_t)get_global_id(0) * gguf_bytes;
}

// Word k (of words) of row r's bytes at in, into words at out (row r at 4r).
inline void x8_pack_words(const global uchar* in, int words, int r, uchar keep, global uchar* out) {
  for (int k = 0; k < words; ++k)
    for (int t = 0; t < 4; ++t) out[32 * k + 4 * r + t] = in[4 * k + t] & keep;
}

// A 32-value GGUF block: head = the bytes of halves it starts with (2: d; 4: d, m), then words
// 4-byte words of quants; gguf_bytes its size.
inline void x8_pack_block(const global uchar* src, ulong row_bytes, int units, int N, int head, int words,
                          int gguf_bytes, int g, global uchar* dst) {
  global uchar* out = x8_pack_target(dst, units, 8 * gguf_bytes, g);
  if (!out) return;
  for (int r = 0; r < 8; ++r) {
    uchar keep;
    const global uchar* in = x8_pack_source(src, row_bytes, N, gguf_bytes, g, r, &keep);
    for (int h = 0; h < head / 2; ++h) {
      out[16 * h + 2 * r] = in[2 * h] & keep;
      out[16 * h + 2 * r + 1] = in[2 * h + 1] & keep;
    }
    x8_pack_words(in + head, words, r, keep, out + 8 * head);
  }
}

// The 32-value types: halves (head bytes), quant words, GGUF block bytes. Q5_0 / Q5_1 keep the
// fifth bits (a GGUF block's 4 bytes after the halves) as their first word.
#define CLPORT_X8_PACK_KERNEL(T, HEAD, WORDS, GGUF_BYTES)                                      \
  kernel void x8_pack_##T(const global uchar* src, ulong src_off, ulong row_bytes, int blocks, int N, \
                          global uchar* dst, int first_group) {                               \
    x8_pack_block(src + src_off, row_bytes, blocks, N, HEAD, WORDS, GGUF_BYTES, first_group + get_global_id(1), dst); \
  }
#if CLPORT_WANT(q4_0)
CLPORT_X8_PACK_KERNEL(q4_0, 2, 4, 18)
#endif
#if CLPORT_WANT(q4_1)
CLPORT_X8_PACK_KERNEL(q4_1, 4, 4, 20)
#endif
#if CLPORT_WANT(q5_0)
CLPORT_X8_PACK_KERNEL(q5_0, 2, 5, 22)
#endif
#if CLPORT_WANT(q5_1)
CLPORT_X8_PACK_KERNEL(q5_1, 4, 5, 24)
#endif
#if CLPORT_WANT(q8_0)
CLPORT_X8_PACK_KERNEL(q8_0, 2, 8, 34)
#endif

// K-quants (supers = K / 256 super-blocks a row).
#if CLPORT_WANT(q4_k)
kernel void x8_pack_q4_k(const global uchar* src, ulong src_off, ulong row_bytes, int supers, int N,
                         global uchar* dst, int first_group) {
  const int g = first_group + get_global_id(1);
  global uchar* out = x8_pack_target(dst, supers, X8_BYTES_q4_k, g);
  if (!out) return;
  for (int r = 0; r < 8; ++r) {
    uchar keep;
    const global uchar* in = x8_pack_source(src + src_off, row_bytes, N, 144, g, r, &keep);
    for (int h = 0; h < 4; ++h) out[16 * (h / 2) + 2 * r + h % 2] = in[h] & keep;
    // The 6-bit scale / minimum pairs of the 8 runs (GGUF's packing: runs 0..3 in the low 6 bits
    // of bytes 0..3 / 4..7, runs 4..7 split over bytes 8..11 and the top 2 bits of 0..7).
    const global uchar* a = in + 4;
    for (int j = 0; j < 8; ++j) {
      const uchar sc = j < 4 ? a[j] & 63 : (a[j + 4] & 15) | ((a[j - 4] >> 6) << 4);
      const uchar m = j < 4 ? a[j + 4] & 63 : (a[j + 4] >> 4) | ((a[j] >> 6) << 4);
      out[32 + 8 * j + r] = sc & keep;
      out[96 + 8 * j + r] = m & keep;
    }
    x8_pack_words(in + 16, 32, r, keep, out + 160);
  }
}
#endif

#if CLPORT_WANT(q6_k)
kernel void x8_pack_q6_k(const global uchar* src, ulong src_off, ulong row_bytes, int supers, int N,
                         global uchar* dst, int first_group) {
  const int g = first_group + get_global_id(1);
  global uchar* out = x8_pack_target(dst, supers, X8_BYTES_q6_k, g);
  if (!out) return;
  for (int r = 0; r < 8; ++r) {
    uchar keep;
    const global uchar* in = x8_pack_source(src + src_off, row_bytes, N, 210, g, r, &keep);
    out[2 * r] = in[208] & keep;
    out[2 * r + 1] = in[209] & keep;
    for (int i = 0; i < 16; ++i) out[16 + 8 * i + r] = in[192 + i] & keep;
    x8_pack_words(in, 32, r, keep, out + 144);         // ql
    x8_pack_words(in + 128, 16, r, keep, out + 1168);  // qh
  }
}
#endif
