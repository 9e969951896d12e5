// The rotation of RoPE, shared by the rope, KV-store and attention kernels: pair i of a head
// (0 <= i < n_rot / 2) is elements (2i, 2i + 1) in normal mode and (i, i + n_rot / 2) in NeoX
// mode, rotated by theta = pos * freq_scale * freq_base^(-2i / n_rot).

inline int2 rope_pair(int i, int n_rot, int neox) {
  return neox ? (int2)(i, i + n_rot / 2) : (int2)(2 * i, 2 * i + 1);
}

// (cos, sin) of pair i's angle at position pos.
inline float2 rope_cos_sin(int i, int pos, int n_rot, float freq_base, float freq_scale) {
  const float inv_freq = pow(freq_base, -(float)(2 * i) / (float)n_rot);
  const float theta = (float)pos * freq_scale * inv_freq;
  return (float2)(cos(theta), sin(theta));
}

inline float2 rope_rotate(float a, float b, float2 cs) {
  return (float2)(a * cs.x - b * cs.y, a * cs.y + b * cs.x);
}
