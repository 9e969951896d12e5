// Row-wise softmax of x * scale, one work-group of SOFTMAX_WG per row, max-subtracted.
// Needs reduce.cl in front. Global size: (SOFTMAX_WG, rows).

#ifndef SOFTMAX_WG
#define SOFTMAX_WG 64
#endif

kernel __attribute__((reqd_work_group_size(SOFTMAX_WG, 1, 1))) void softmax_f32(
    const global uchar* src, ulong src_off, global uchar* dst, ulong dst_off, int ncols,
    float scale) {
  local float scratch[SOFTMAX_WG];
  const size_t row = get_group_id(1);
  const uint lid = get_local_id(0);
  const global float* x = CLPORT_AT(const global float*, src, src_off) + row * ncols;
  global float* y = CLPORT_AT(global float*, dst, dst_off) + row * ncols;
  float mx = -INFINITY;
  for (int i = lid; i < ncols; i += SOFTMAX_WG) mx = fmax(mx, x[i] * scale);
  mx = wg_reduce_max(mx, scratch, SOFTMAX_WG);
  float sum = 0.0f;
  for (int i = lid; i < ncols; i += SOFTMAX_WG) sum += exp(x[i] * scale - mx);
  sum = wg_reduce_sum(sum, scratch, SOFTMAX_WG);
  const float inv = 1.0f / sum;
  for (int i = lid; i < ncols; i += SOFTMAX_WG) y[i] = exp(x[i] * scale - mx) * inv;
}
