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

#ifdef CLPORT_ROPE_POLY
// (cos x, sin x) by straight-line arithmetic (CPU devices): x = n pi/2 + r with |r| <= pi/4 by
// Cody-Waite steps (pi/2 as three floats, each product exact in the fma: r is good to an ulp
// for |x| well past 1e5, i.e. any position times a frequency <= 1), then the Taylor series of
// sin (to r^9) and cos (to r^10), both below float rounding on [-pi/4, pi/4], and the quadrant
// n picks and signs them. No calls and no branches, so a CPU compiler vectorizes a loop over
// the pairs; the builtins (an argument-reduction call per value on PoCL) were most of the
// prompt attention's and the KV store's time.
inline __attribute__((always_inline)) float2 rope_cos_sin_of(float x) {
  const float n = rint(x * 0x1.45f306p-1f);
  float r = fma(n, -0x1.921fb6p+0f, x);
  r = fma(n, 0x1.777a5cp-25f, r);
  r = fma(n, 0x1.ee59dap-50f, r);
  const float z = r * r;
  const float s = fma(r * z, fma(z, fma(z, fma(z, 1.0f / 362880.0f, -1.0f / 5040.0f), 1.0f / 120.0f), -1.0f / 6.0f), r);
  const float c = fma(z, fma(z, fma(z, fma(z, fma(z, -1.0f / 3628800.0f, 1.0f / 40320.0f), -1.0f / 720.0f), 1.0f / 24.0f), -0.5f), 1.0f);
  const int q = (int)n;
  const float sin_q = (q & 1) ? c : s, cos_q = (q & 1) ? s : c;
  return (float2)(((q + 1) & 2) ? -cos_q : cos_q, (q & 2) ? -sin_q : sin_q);
}
// 2^x for the inverse frequencies (-126 < x <= 0 here): x = n + f, |f| <= 1/2, 2^f by its
// series in f ln 2 to the 7th power (below float rounding), 2^n put into the exponent bits.
inline __attribute__((always_inline)) float rope_exp2(float x) {
  const float n = rint(fmax(x, -126.0f));
  const float f = x - n;
  float p = 0x1.ffcbfcp-17f;
  p = fma(p, f, 0x1.430912p-13f);
  p = fma(p, f, 0x1.5d87fep-10f);
  p = fma(p, f, 0x1.3b2ab6p-7f);
  p = fma(p, f, 0x1.c6b08ep-5f);
  p = fma(p, f, 0x1.ebfbep-3f);
  p = fma(p, f, 0x1.62e43p-1f);
  p = fma(p, f, 1.0f);
  return p * as_float(((int)n + 127) << 23);
}
#else
inline float2 rope_cos_sin_of(float x) { return (float2)(cos(x), sin(x)); }
inline float rope_exp2(float x) { return exp2(x); }
#endif

// (cos, sin) of pair i's angle at position pos, the angle divided by the pair's factor. exp2 of
// a product instead of pow: on PoCL, pow was most of a decode step's attention time; rope
// conformance NMSE stays ~1e-12 at position 500. (No sincos: oclgrind's uninitialised-value
// check cannot follow its private out-pointer.)
inline __attribute__((always_inline)) float2 rope_cos_sin(int i, int pos, int n_rot, float freq_base, float freq_scale,
                                                         float factor) {
  const float inv_freq = rope_exp2(log2(freq_base) * (-(float)(2 * i) / (float)n_rot));
  return rope_cos_sin_of((float)pos * freq_scale * inv_freq / factor);
}

inline float2 rope_rotate(float a, float b, float2 cs) {
  return (float2)(a * cs.x - b * cs.y, a * cs.y + b * cs.x);
}
