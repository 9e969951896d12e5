// Combines the n_split partial results of a split attention: per (token, head), n_split ranges
// of head_dim + 2 floats (the range's largest score m, its sum of exp(score - m) l and its
// output not yet divided by l). Global size (round_up(head_dim, work-group), n_head, n_tokens).
// A range without keys (m = -inf, l = 0) adds nothing. The split kernels of attention.cl and the
// nvidia plugin's decode attention write this form, and so do the serial split kernels of CPU
// devices (attention_serial.cl).
kernel void attention_merge(const global float* part, int n_split, int head_dim, global uchar* out, ulong out_off) {
  const int d = get_global_id(0), h = get_global_id(1), t = get_global_id(2), n_head = get_global_size(1);
  if (d >= head_dim) return;
  const size_t row = (size_t)t * n_head + h;
  const global float* ph = part + row * n_split * (head_dim + 2);
  float m = -INFINITY;
  for (int s = 0; s < n_split; ++s) m = fmax(m, ph[(size_t)s * (head_dim + 2)]);
  float l = 0.0f, acc = 0.0f;
  for (int s = 0; s < n_split; ++s) {
    const global float* p = ph + (size_t)s * (head_dim + 2);
    const float w = p[1] > 0.0f ? exp(p[0] - m) : 0.0f;
    l = fma(p[1], w, l);
    acc = fma(p[2 + d], w, acc);
  }
  ((global float*)(out + out_off))[row * head_dim + d] = acc / l;
}
