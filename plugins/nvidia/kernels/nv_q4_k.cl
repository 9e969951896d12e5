// Q4_K weights as the file stores them (GGUF), which the nvidia kernels read in place: super-blocks
// of 256 values, 9 words of 16 bytes. Word 0 holds f16 d and dmin, then 12 bytes of 6-bit
// sub-block scales and minimums; words 1 .. 8 are 4 runs of 32 bytes, run p holding values
// 64 p .. 64 p + 31 in its low nibbles and the next 32 in its high ones. Value j of sub-block b
// (32 values) is d sc_b q_j - dmin m_b: a Q4_1 block of scale d sc_b and minimum -dmin m_b.

// Byte k (0 .. 11) of the scales in a super-block's word 0.
inline uint nv_q4k_byte(uint4 head, int k) {
  const uint w = k < 4 ? head.y : k < 8 ? head.z : head.w;
  return (w >> (8 * (k & 3))) & 0xFFu;
}

// The 6-bit scale (x) and minimum (y) of sub-block b (0 .. 7), from word 0.
inline int2 nv_q4k_scale_min(uint4 head, int b) {
  if (b < 4) return (int2)(nv_q4k_byte(head, b) & 63, nv_q4k_byte(head, b + 4) & 63);
  return (int2)((nv_q4k_byte(head, b + 4) & 15) | ((nv_q4k_byte(head, b - 4) >> 6) << 4),
                (nv_q4k_byte(head, b + 4) >> 4) | ((nv_q4k_byte(head, b) >> 6) << 4));
}

// d sc_b (x) and -dmin m_b (y) of sub-block b of the super-block at super_block: the Q4_1 pair.
inline float2 nv_q4k_scale(const global uint4* super_block, int b) {
  const int2 sm = nv_q4k_scale_min(super_block[0], b);
  const global half* h = (const global half*)super_block;
  return (float2)(vload_half(0, h) * (float)sm.x, -vload_half(1, h) * (float)sm.y);
}
