// The rotation of RoPE, shared by the rope, KV-store and attention kernels: pair i of a head
// (0 <= i < n_rot / 2) is elements (2i, 2i + 1) in normal mode and (i, i + n_rot / 2) in NeoX
// mode, rotated by theta = pos * freq_scale * freq_base^(-2i / n_rot) / factor_i.

inline int2 rope_pair(int i, int n_rot, int neox) {
  return neox ? (int2)(i, i + n_rot / 2) : (int2)(2 * i, 2 * i + 1);
}

// Frequency factor of pair i: ff[i] (F32, ff_off bytes into the buffer) when the op carries
// factors (has_ff: Llama 3.x rope_freqs, Phi-3 LongRoPE), else 1.
inline float rope_factor(const global uchar* ff, ulong ff_off, int has_ff, int i) {
  return has_ff ? ((const global float*)(ff + ff_off))[i] : 1.0f;
}

// (cos, sin) of pair i's angle at position pos, the angle divided by the pair's factor. exp2 of
// a product instead of pow: on PoCL, pow was most of a decode step's attention time; rope
// conformance NMSE stays ~1e-12 at position 500. (No sincos: oclgrind's uninitialised-value
// check cannot follow its private out-pointer.)
inline float2 rope_cos_sin(int i, int pos, int n_rot, float freq_base, float freq_scale, float factor) {
  const float inv_freq = exp2(log2(freq_base) * (-(float)(2 * i) / (float)n_rot));
  const float theta = (float)pos * freq_scale * inv_freq / factor;
  return (float2)(cos(theta), sin(theta));
}

inline float2 rope_rotate(float a, float b, float2 cs) {
  return (float2)(a * cs.x - b * cs.y, a * cs.y + b * cs.x);
}
