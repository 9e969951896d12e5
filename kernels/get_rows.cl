// Embedding lookup with dequantization: dst[D, n] = dequant(src0[D, rows])[:, idx[n]].
// Needs blocks.cl in front. Global size: (items per row rounded up to ELT_WG, n); quantized
// types decode one 32-element run per work-item, plain types copy one element per work-item.
// A row index outside [0, rows) yields a zero row (never an out-of-bounds read).

#ifndef ELT_WG
#define ELT_WG 64
#endif

#define CLPORT_GET_ROWS_Q(T)                                                                  \
  kernel __attribute__((reqd_work_group_size(ELT_WG, 1, 1))) void get_rows_##T(             \
      const global uchar* src, ulong src_off, ulong src_row_bytes, const global uchar* idx,  \
      ulong idx_off, global uchar* dst, ulong dst_off, int D, int rows) {                    \
    const int s = get_global_id(0), t = get_global_id(1);                                    \
    if (s >= D / 32) return;                                                                  \
    const int r = CLPORT_AT(const global int*, idx, idx_off)[t];                             \
    global float* out = CLPORT_AT(global float*, dst, dst_off) + (size_t)t * D + 32 * s;     \
    float16 lo = (float16)(0.0f), hi = (float16)(0.0f);                                      \
    if (r >= 0 && r < rows) dq32_##T(src + src_off + (size_t)r * src_row_bytes, s, &lo, &hi); \
    vstore16(lo, 0, out);                                                                     \
    vstore16(hi, 1, out);                                                                     \
  }
CLPORT_FOR_EACH_QUANT(CLPORT_GET_ROWS_Q)

#if CLPORT_WANT(f32)
kernel __attribute__((reqd_work_group_size(ELT_WG, 1, 1))) void get_rows_f32(
    const global uchar* src, ulong src_off, ulong src_row_bytes, const global uchar* idx,
    ulong idx_off, global uchar* dst, ulong dst_off, int D, int rows) {
  const int i = get_global_id(0), t = get_global_id(1);
  if (i >= D) return;
  const int r = CLPORT_AT(const global int*, idx, idx_off)[t];
  float v = 0.0f;
  if (r >= 0 && r < rows) v = CLPORT_AT(const global float*, src, src_off + (size_t)r * src_row_bytes)[i];
  CLPORT_AT(global float*, dst, dst_off)[(size_t)t * D + i] = v;
}
#endif

#if CLPORT_WANT(f16)
kernel __attribute__((reqd_work_group_size(ELT_WG, 1, 1))) void get_rows_f16(
    const global uchar* src, ulong src_off, ulong src_row_bytes, const global uchar* idx,
    ulong idx_off, global uchar* dst, ulong dst_off, int D, int rows) {
  const int i = get_global_id(0), t = get_global_id(1);
  if (i >= D) return;
  const int r = CLPORT_AT(const global int*, idx, idx_off)[t];
  float v = 0.0f;
  if (r >= 0 && r < rows)
    v = vload_half(i, CLPORT_AT(const global half*, src, src_off + (size_t)r * src_row_bytes));
  CLPORT_AT(global float*, dst, dst_off)[(size_t)t * D + i] = v;
}
#endif

#if CLPORT_WANT(bf16)
kernel __attribute__((reqd_work_group_size(ELT_WG, 1, 1))) void get_rows_bf16(
    const global uchar* src, ulong src_off, ulong src_row_bytes, const global uchar* idx,
    ulong idx_off, global uchar* dst, ulong dst_off, int D, int rows) {
  const int i = get_global_id(0), t = get_global_id(1);
  if (i >= D) return;
  const int r = CLPORT_AT(const global int*, idx, idx_off)[t];
  float v = 0.0f;
  if (r >= 0 && r < rows)
    v = ld_bf16(i, CLPORT_AT(const global ushort*, src, src_off + (size_t)r * src_row_bytes));
  CLPORT_AT(global float*, dst, dst_off)[(size_t)t * D + i] = v;
}
#endif
