// The GEMV of nv_gemv.cl (decode) on Q6_K weights read in place, so the weight keeps one copy:
// the file's super-blocks of 256 values, 210 bytes each (GGUF), rows back to back from an even
// byte offset. A super-block holds ql[128] (the low 4 bits), qh[64] (the high 2), 16 signed 8-bit
// scales (one per 16 values) and f16 d: value 128 h + 32 k + l (half h, quarter k, l < 32) has its
// low bits in the low (k < 2) or high nibble of ql[64 h + 32 (k % 2) + l], its high bits at bit
// 2 k of qh[32 h + l], and is d scale[8 h + 2 k + l / 16] (q - 32).
//
// A lane's unit of work is one half: 128 values, four activation blocks, from 24 words of quants,
// 2 of scales and the f16 d. 210 is not a multiple of 4, so a super-block starts 4-byte aligned or
// 2 bytes past it; a run of n words is then assembled from n + 1 aligned loads (NV_WORDS_AT), the
// same loads either way, so that the lanes of a warp do not part.
//
// The activations take one scale per 256 values (nv_quantize_float4's `wide`), the CPU path's
// Q8_K blocks. A block of 32 codes meets two scales: d dx (scale_lo sum_lo(q x) + scale_hi sum_hi).
// clport-requires: nv_gemv.cl

// The n words of bytes from p (2-byte aligned) on into out: aligned word i and i + 1 shifted
// together by the misalignment. A misaligned run's loads start 2 bytes before p (inside the
// buffer: p is 2 past an aligned address) and end 2 bytes past the run, which stays inside the
// super-block for every run read here (the last, the scales of half 1, is followed by d); an
// aligned run loads its last word twice instead of reaching past it.
#define NV_WORDS_AT(p, n, out)                                                                  \
  {                                                                                             \
    const uint shift_ = (uint)((size_t)(p) & 2) * 8;                                             \
    const global uint* w_ = (const global uint*)((p) - shift_ / 8);                             \
    uint prev_ = w_[0];                                                                         \
    for (int i_ = 0; i_ < (n); ++i_) {                                                          \
      const uint next_ = w_[shift_ != 0 || i_ + 1 < (n) ? i_ + 1 : i_];                         \
      (out)[i_] = (uint)(as_ulong((uint2)(prev_, next_)) >> shift_);                            \
      prev_ = next_;                                                                            \
    }                                                                                           \
  }

// Half h of the super-block at blk against activation blocks b0 .. b0 + 3 (codes in xq: 0 .. 15 at
// b, 16 .. 31 at nb + b; scales in xds).
inline float nv_half_q6_k(const global uchar* blk, int h, local const int4* xq, local const float2* xds, int nb,
                          int b0) {
  uint ql[16], qh[8], scale_words[2];
  NV_WORDS_AT(blk + 64 * h, 16, ql)
  NV_WORDS_AT(blk + 128 + 32 * h, 8, qh)
  NV_WORDS_AT(blk + 192 + 8 * h, 2, scale_words)
  const float d = vload_half(0, (const global half*)(blk + 208));
  float sum = 0.0f;
  for (int k = 0; k < 4; ++k) {
    uint q[8];
    for (int j = 0; j < 8; ++j) {
      const uint v = ((ql[8 * (k & 1) + j] >> (4 * (k >> 1))) & 0x0F0F0F0Fu) | (((qh[j] >> (2 * k)) & 0x03030303u) << 4);
      // v - 32 in each byte, as signed bytes: with bit 7 set no byte borrows from the next.
      q[j] = ((v | 0x80808080u) - 0x20202020u) ^ 0x80808080u;
    }
    const int4 xa = xq[b0 + k], xb = xq[nb + b0 + k];
    int lo = nv_dp4a(q[0], xa.x, 0);
    lo = nv_dp4a(q[1], xa.y, lo);
    lo = nv_dp4a(q[2], xa.z, lo);
    lo = nv_dp4a(q[3], xa.w, lo);
    int hi = nv_dp4a(q[4], xb.x, 0);
    hi = nv_dp4a(q[5], xb.y, hi);
    hi = nv_dp4a(q[6], xb.z, hi);
    hi = nv_dp4a(q[7], xb.w, hi);
    const uint sw = scale_words[k >> 1] >> (16 * (k & 1));
    const float scale_lo = (float)(char)(sw & 0xFFu), scale_hi = (float)(char)((sw >> 8) & 0xFFu);
    sum += xds[b0 + k].x * (scale_lo * (float)lo + scale_hi * (float)hi);
  }
  return d * sum;
}

// Step 2 over halves: lane l takes halves l, l + 32, ... of each of its warp's rows (base: the
// weight's first byte, rows of nb / 8 super-blocks).
#define NV_GEMV_LOOP_Q6K(STEP)                                                                  \
  for (int u = lane; u < nb / 4; u += 32) {                                                     \
    for (int r = 0; r < NV_RPW; ++r) {                                                          \
      /* rows past N repeat the last row; their sums are never stored */                        \
      const size_t row = (size_t)min(first + r, N - 1);                                         \
      STEP(r, (const global uchar*)ws + (row * (nb / 8) + u / 2) * 210, u % 2, 4 * u);          \
    }                                                                                           \
  }

#define NV_STEP_q6_k(r, blk, h, b0) acc[r] += nv_half_q6_k(blk, h, xq, xds, nb, b0)
// The row function reads the weight from its first byte, `ws` (wq is not read).
NV_ROWS_FN_LOOP(nv_rows_q6_k, NV_GEMV_LOOP_Q6K, NV_STEP_q6_k)

// MUL_MAT, RMS_NORM_MUL_MAT (norm) and MUL_MAT_ADD (has_res) as nv_gemv.cl's kernels. (No SwiGLU
// form: a gate and up pair in Q6_K takes the shared kernels.)
NV_GEMV_IN_PLACE_KERNEL(nv_gemv_q6_k, nv_rows_q6_k)
