// Adreno split layout: repacks GGUF weight blocks on the device (no host round trip) into
// separate quant and scale arrays, transposed so that row n of the weight is the fastest index.
// A GEMV work-item serves one row, so neighbouring work-items read neighbouring 32-bit words.
//
// For a weight [K, N] (N rows of K elements), with B = K / 32 chunks of 32 elements per row:
//   Q4_0  q: uint  [(b * 4 + j) * N + n]   16 nibble bytes of block b as 4 little-endian words
//         s: half  [b * N + n]             scale d
//   Q4_1  q: as Q4_0;  s: half [b * N + n] = d, [B * N + b * N + n] = m
//   Q8_0  q: uint  [(b * 8 + j) * N + n]   32 signed bytes as 8 words;  s: half [b * N + n]
//   Q6_K  (K / 256 = NB super-blocks) q: uint [(bb * 48 + j) * N + n]: words 0..31 = ql[128],
//         words 32..47 = qh[64];  s: half [bb * N + n] = d;  sc: char [(bb * 16 + i) * N + n]
//   F16   q: half  [k * N + n] (element-wise transpose; any K)
// Scales are copied as raw 16-bit patterns (ushort), so no cl_khr_fp16 is needed.
//
// NDRange: global (round_up(N, 64), units per row), one work-item per (row, block).

inline uint adreno_word(const global uchar* p) {
  return (uint)p[0] | ((uint)p[1] << 8) | ((uint)p[2] << 16) | ((uint)p[3] << 24);
}

inline ushort adreno_u16(const global uchar* p) { return (ushort)((uint)p[0] | ((uint)p[1] << 8)); }

kernel void adreno_repack_q4_0(const global uchar* src, ulong src_off, ulong row_stride, int N,
                               int B, global uint* q, global ushort* s) {
  const int n = (int)get_global_id(0), b = (int)get_global_id(1);
  if (n >= N || b >= B) return;
  const global uchar* blk = src + src_off + (ulong)n * row_stride + (ulong)b * 18;
  s[(size_t)b * N + n] = adreno_u16(blk);
  for (int j = 0; j < 4; ++j) q[((size_t)b * 4 + j) * N + n] = adreno_word(blk + 2 + 4 * j);
}

kernel void adreno_repack_q4_1(const global uchar* src, ulong src_off, ulong row_stride, int N,
                               int B, global uint* q, global ushort* s) {
  const int n = (int)get_global_id(0), b = (int)get_global_id(1);
  if (n >= N || b >= B) return;
  const global uchar* blk = src + src_off + (ulong)n * row_stride + (ulong)b * 20;
  s[(size_t)b * N + n] = adreno_u16(blk);
  s[(size_t)B * N + (size_t)b * N + n] = adreno_u16(blk + 2);
  for (int j = 0; j < 4; ++j) q[((size_t)b * 4 + j) * N + n] = adreno_word(blk + 4 + 4 * j);
}

kernel void adreno_repack_q8_0(const global uchar* src, ulong src_off, ulong row_stride, int N,
                               int B, global uint* q, global ushort* s) {
  const int n = (int)get_global_id(0), b = (int)get_global_id(1);
  if (n >= N || b >= B) return;
  const global uchar* blk = src + src_off + (ulong)n * row_stride + (ulong)b * 34;
  s[(size_t)b * N + n] = adreno_u16(blk);
  for (int j = 0; j < 8; ++j) q[((size_t)b * 8 + j) * N + n] = adreno_word(blk + 2 + 4 * j);
}

// Here B counts 256-element super-blocks.
kernel void adreno_repack_q6_k(const global uchar* src, ulong src_off, ulong row_stride, int N,
                               int B, global uint* q, global ushort* s, global char* sc) {
  const int n = (int)get_global_id(0), b = (int)get_global_id(1);
  if (n >= N || b >= B) return;
  const global uchar* blk = src + src_off + (ulong)n * row_stride + (ulong)b * 210;
  for (int j = 0; j < 48; ++j) q[((size_t)b * 48 + j) * N + n] = adreno_word(blk + 4 * j);
  for (int i = 0; i < 16; ++i) sc[((size_t)b * 16 + i) * N + n] = (char)blk[192 + i];
  s[(size_t)b * N + n] = adreno_u16(blk + 208);
}

// Here B is K (elements per row).
kernel void adreno_repack_f16(const global uchar* src, ulong src_off, ulong row_stride, int N,
                              int B, global ushort* q) {
  const int n = (int)get_global_id(0), k = (int)get_global_id(1);
  if (n >= N || k >= B) return;
  q[(size_t)k * N + n] = adreno_u16(src + src_off + (ulong)n * row_stride + (ulong)k * 2);
}
