// RMSNorm: y = x / sqrt(mean(x^2) + eps) [* weight], one work-group of NORM_WG per row.
// Needs reduce.cl in front. Global size: (NORM_WG, rows).

#ifndef NORM_WG
#define NORM_WG 64
#endif

kernel __attribute__((reqd_work_group_size(NORM_WG, 1, 1))) void rms_norm_f32(
    const global uchar* src, ulong src_off, const global uchar* weight, ulong weight_off,
    int has_weight, global uchar* dst, ulong dst_off, int ncols, float eps) {
  local float scratch[NORM_WG];
  const size_t row = get_group_id(1);
  const uint lid = get_local_id(0);
  const global float* x = CLPORT_AT(const global float*, src, src_off) + row * ncols;
  global float* y = CLPORT_AT(global float*, dst, dst_off) + row * ncols;
  float ss = 0.0f;
  for (int i = lid; i < ncols; i += NORM_WG) ss = fma(x[i], x[i], ss);
  ss = wg_reduce_sum(ss, scratch, NORM_WG);
  const float inv = 1.0f / sqrt(ss / (float)ncols + eps);
  const global float* g = CLPORT_AT(const global float*, weight, weight_off);
  for (int i = lid; i < ncols; i += NORM_WG) y[i] = x[i] * inv * (has_weight ? g[i] : 1.0f);
}
