// Embedding lookup from a weight's repacked layouts, so that a repacked weight needs no plain
// copy for GET_ROWS (a tied token embedding is both the output projection and the lookup
// table). Needs blocks.cl in front (ld_f16). Same contract as get_rows.cl: dst[D, n] =
// dequant(weight[D, rows])[:, idx[n]], a row index outside [0, rows) gives a zero row, one
// work-item per run of 32 elements of one looked-up row.

#ifndef ELT_WG
#define ELT_WG 64
#endif

// ---- Rows8 (layout described in mul_mat_gemv_q8a_x8.cl) ------------------------------------
// A unit (block or super-block) of 8 rows: `lane` is the row within the group; the quant bytes
// of a row are spread over 32-byte words, 4 bytes of each.

// Byte j of lane's quant bytes in a unit whose words start at `words`.
inline uchar x8_byte(const global uchar* words, int lane, int j) { return words[32 * (j >> 2) + 4 * lane + (j & 3)]; }

// Element e (0..31) of lane's block; head = bytes of halves per row (2: d; 4: d, m).
inline float x8_q4_0(const global uchar* u, int lane, int e) {
  const uchar b = x8_byte(u + 16, lane, e & 15);
  return (float)((e < 16 ? b & 15 : b >> 4) - 8) * ld_f16(u + 2 * lane);
}
inline float x8_q4_1(const global uchar* u, int lane, int e) {
  const uchar b = x8_byte(u + 32, lane, e & 15);
  return (float)(e < 16 ? b & 15 : b >> 4) * ld_f16(u + 2 * lane) + ld_f16(u + 16 + 2 * lane);
}
// Q5: the block's 32 fifth bits come first (a word of their own), then the nibble words.
inline int x8_q5_code(const global uchar* words, int lane, int e) {
  const uint qh = (uint)x8_byte(words, lane, 0) | ((uint)x8_byte(words, lane, 1) << 8) |
                  ((uint)x8_byte(words, lane, 2) << 16) | ((uint)x8_byte(words, lane, 3) << 24);
  const uchar b = x8_byte(words + 32, lane, e & 15);
  return (e < 16 ? b & 15 : b >> 4) | (int)(((qh >> e) & 1u) << 4);
}
inline float x8_q5_0(const global uchar* u, int lane, int e) {
  return (float)(x8_q5_code(u + 16, lane, e) - 16) * ld_f16(u + 2 * lane);
}
inline float x8_q5_1(const global uchar* u, int lane, int e) {
  return (float)x8_q5_code(u + 32, lane, e) * ld_f16(u + 2 * lane) + ld_f16(u + 16 + 2 * lane);
}
inline float x8_q8_0(const global uchar* u, int lane, int e) {
  return (float)(char)x8_byte(u + 16, lane, e) * ld_f16(u + 2 * lane);
}
// Element v (0..255) of a Q4_K super-block: run j = v / 32 of 32 values, the low nibbles of
// bytes 32 (j / 2) .. for even j, the high ones for odd j; scales and minimums unpacked to bytes.
inline float x8_q4_k(const global uchar* u, int lane, int v) {
  const int j = v >> 5;
  const uchar b = x8_byte(u + 160, lane, 32 * (j >> 1) + (v & 31));
  const int q = (j & 1) ? b >> 4 : b & 15;
  return ld_f16(u + 2 * lane) * (float)u[32 + 8 * j + lane] * (float)q -
         ld_f16(u + 16 + 2 * lane) * (float)u[96 + 8 * j + lane];
}
// Element v of a Q6_K super-block: two halves of 128 values; in half n, quarter c (32 values)
// takes the low (c < 2) or high nibbles of ql[64 n + 32 (c & 1) + l] and bits 2c, 2c + 1 of
// qh[32 n + l]; its scale is sc[8 n + l / 16 + 2 c].
inline float x8_q6_k(const global uchar* u, int lane, int v) {
  const int n = v >> 7, c = (v >> 5) & 3, l = v & 31;
  const uchar ql = x8_byte(u + 144, lane, 64 * n + 32 * (c & 1) + l);
  const uchar qh = x8_byte(u + 1168, lane, 32 * n + l);
  const int q = ((c < 2 ? ql & 15 : ql >> 4) | (((qh >> (2 * c)) & 3) << 4)) - 32;
  return ld_f16(u + 2 * lane) * (float)(char)u[16 + 8 * (8 * n + (l >> 4) + 2 * c) + lane] * (float)q;
}

// VALUES: elements per unit (32, or 256 for a K-quant super-block); UNIT_BYTES: a unit of 8 rows.
#define CLPORT_GET_ROWS_X8(T, VALUES, UNIT_BYTES)                                                \
  kernel __attribute__((reqd_work_group_size(ELT_WG, 1, 1))) void get_rows_x8_##T(              \
      const global uchar* w, const global uchar* idx, ulong idx_off, global uchar* dst, ulong dst_off, int D, \
      int rows) {                                                                                \
    const int s = get_global_id(0), t = get_global_id(1);                                       \
    if (s >= D / 32) return;                                                                     \
    const int r = CLPORT_AT(const global int*, idx, idx_off)[t];                                \
    global float* out = CLPORT_AT(global float*, dst, dst_off) + (size_t)t * D + 32 * s;        \
    const bool valid = r >= 0 && r < rows;                                                       \
    const int per_unit = (VALUES) / 32, units = D / (VALUES), row = valid ? r : 0;              \
    const global uchar* u = w + ((size_t)(row / 8) * units + s / per_unit) * (UNIT_BYTES);      \
    for (int e = 0; e < 32; ++e) out[e] = valid ? x8_##T(u, row % 8, 32 * (s % per_unit) + e) : 0.0f; \
  }
#if CLPORT_WANT(q4_0)
CLPORT_GET_ROWS_X8(q4_0, 32, 144)
#endif
#if CLPORT_WANT(q4_1)
CLPORT_GET_ROWS_X8(q4_1, 32, 160)
#endif
#if CLPORT_WANT(q5_0)
CLPORT_GET_ROWS_X8(q5_0, 32, 176)
#endif
#if CLPORT_WANT(q5_1)
CLPORT_GET_ROWS_X8(q5_1, 32, 192)
#endif
#if CLPORT_WANT(q8_0)
CLPORT_GET_ROWS_X8(q8_0, 32, 272)
#endif
#if CLPORT_WANT(q4_k)
CLPORT_GET_ROWS_X8(q4_k, 256, 1184)
#endif
#if CLPORT_WANT(q6_k)
CLPORT_GET_ROWS_X8(q6_k, 256, 1680)
#endif

// ---- Split16 (layout described in mul_mat_gemv_packed.cl) -----------------------------------
// Block i = row * (D / 32) + b: its quant bytes at q + 16 i (Q8_0: 32 i), its scale (and Q4_1
// minimum) at s + 2 i (Q4_1: 4 i).
inline float packed_q4_0(const global uchar* q, const global uchar* s, size_t i, int e) {
  const uchar b = q[16 * i + (e & 15)];
  return (float)((e < 16 ? b & 15 : b >> 4) - 8) * ld_f16(s + 2 * i);
}
inline float packed_q4_1(const global uchar* q, const global uchar* s, size_t i, int e) {
  const uchar b = q[16 * i + (e & 15)];
  return (float)(e < 16 ? b & 15 : b >> 4) * ld_f16(s + 4 * i) + ld_f16(s + 4 * i + 2);
}
inline float packed_q8_0(const global uchar* q, const global uchar* s, size_t i, int e) {
  return (float)(char)q[32 * i + e] * ld_f16(s + 2 * i);
}

#define CLPORT_GET_ROWS_PACKED(T)                                                                \
  kernel __attribute__((reqd_work_group_size(ELT_WG, 1, 1))) void get_rows_packed_##T(          \
      const global uchar* q, const global uchar* s, const global uchar* idx, ulong idx_off, global uchar* dst, \
      ulong dst_off, int D, int rows) {                                                          \
    const int b = get_global_id(0), t = get_global_id(1);                                       \
    if (b >= D / 32) return;                                                                     \
    const int r = CLPORT_AT(const global int*, idx, idx_off)[t];                                \
    global float* out = CLPORT_AT(global float*, dst, dst_off) + (size_t)t * D + 32 * b;        \
    const bool valid = r >= 0 && r < rows;                                                       \
    const size_t i = (size_t)(valid ? r : 0) * (size_t)(D / 32) + (size_t)b;                    \
    for (int e = 0; e < 32; ++e) out[e] = valid ? packed_##T(q, s, i, e) : 0.0f;                 \
  }
#if CLPORT_WANT(q4_0)
CLPORT_GET_ROWS_PACKED(q4_0)
#endif
#if CLPORT_WANT(q4_1)
CLPORT_GET_ROWS_PACKED(q4_1)
#endif
#if CLPORT_WANT(q8_0)
CLPORT_GET_ROWS_PACKED(q8_0)
#endif
