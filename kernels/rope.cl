// Rotary position embedding on x[head_dim, n_head, n_tokens] (in place allowed: every
// work-item reads its pair before writing it). One work-item per pair of elements; global size
// head_dim / 2 * n_head * n_tokens rounded up to ELT_WG.
//   mode 0 (normal): pairs (2i, 2i + 1) for 2i < n_rot;
//   mode 2 (NeoX):   pairs (i, i + n_rot / 2) for i < n_rot / 2;
// rotated by theta = (pos0 + t) * freq_scale * freq_base^(-2i / n_rot). Elements at or past n_rot
// are copied unchanged.

#ifndef ELT_WG
#define ELT_WG 64
#endif

kernel __attribute__((reqd_work_group_size(ELT_WG, 1, 1))) void rope_f32(
    const global uchar* src, ulong src_off, global uchar* dst, ulong dst_off, int head_dim,
    int n_head, int n_tokens, int pos0, int n_rot, int neox, float freq_base, float freq_scale) {
  const int half_dim = head_dim / 2;
  const size_t gid = get_global_id(0);
  if (gid >= (size_t)half_dim * n_head * n_tokens) return;
  const int i = gid % half_dim;
  const size_t head = gid / half_dim;  // (token, head) flattened
  const int t = head / n_head;
  const global float* x = CLPORT_AT(const global float*, src, src_off) + head * head_dim;
  global float* y = CLPORT_AT(global float*, dst, dst_off) + head * head_dim;
  const int n_rot_half = n_rot / 2;
  if (i >= n_rot_half) {  // pass-through region: elements n_rot + 2(i - n_rot/2) and the next
    const int e = n_rot + 2 * (i - n_rot_half);
    const float a = x[e], b = x[e + 1];
    y[e] = a;
    y[e + 1] = b;
    return;
  }
  const int e0 = neox ? i : 2 * i;
  const int e1 = neox ? i + n_rot_half : 2 * i + 1;
  const float inv_freq = pow(freq_base, -(float)(2 * i) / (float)n_rot);
  const float theta = (float)(pos0 + t) * freq_scale * inv_freq;
  const float c = cos(theta), s = sin(theta);
  const float a = x[e0], b = x[e1];
  y[e0] = a * c - b * s;
  y[e1] = a * s + b * c;
}
