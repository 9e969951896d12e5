// Intel sub-group GEMV (decode path): dst[N, M] = x[K, M] . W[K, N]^T for small M, weights in the
// plain GGUF layout. Needs common.cl and blocks.cl (the shared block decoders) in front.
//
// One sub-group of SG_SIZE lanes owns one output row; a work-group holds SG_ROWS sub-groups, so
// it computes SG_ROWS consecutive rows (global size: (ceil(N / SG_ROWS) * SG_SIZE * SG_ROWS, M)).
// Lanes stride over the row (32-element runs for quantized weights, 8-element chunks for F16)
// and the partial sums meet in one sub-group reduction: no local memory, no barrier. That is
// the point on Intel EUs, where a sub-group is one hardware thread and a local-memory tree
// reduction costs SLM traffic and work-group barriers for every output row.
//
// Sub-group features are compile-time guarded on the compiler's extension macros, so the same
// file builds everywhere:
//   cl_intel_subgroups + cl_intel_required_subgroup_size  real sub-groups of exactly SG_SIZE
//                                                          lanes, sub_group_reduce_add (the
//                                                          host adds -DCLPORT_INTEL_REQD_SG=1
//                                                          when the device lists the second:
//                                                          not every compiler defines its macro);
//   + cl_intel_subgroups_short + cl_khr_fp16               F16 rows through block reads
//                                                          (when the host says rows are aligned);
//   none of them (or -DCLPORT_NO_SUBGROUPS)                the same lane/row mapping with a
//                                                          local-memory reduction per sub-group.
// Quantized blocks (18/20/34/144/210 bytes) leave rows only 2-byte aligned in the GGUF layout,
// so they are read with ordinary loads; block reads for them need a repacked layout.

#ifndef SG_SIZE
#define SG_SIZE 16
#endif
#ifndef SG_ROWS
#define SG_ROWS 4
#endif
#define SG_WG (SG_SIZE * SG_ROWS)

#if defined(cl_intel_subgroups) && !defined(CLPORT_NO_SUBGROUPS) && \
    (defined(cl_intel_required_subgroup_size) || defined(CLPORT_INTEL_REQD_SG))
#define INTEL_SG 1
#define INTEL_SG_ATTR __attribute__((intel_reqd_sub_group_size(SG_SIZE)))
#else
#define INTEL_SG 0
#define INTEL_SG_ATTR
#endif

// The kernels are named after the path they were compiled for (intel_gemv_sg_q4_0 or
// intel_gemv_local_q4_0): the host asks for the sub-group names, so a compiler that silently
// lacks the extension macros fails kernel creation (and the host falls back knowingly), and
// profiles say which path ran.
#if INTEL_SG
#define INTEL_GEMV_NAME(T) intel_gemv_sg_##T
#else
#define INTEL_GEMV_NAME(T) intel_gemv_local_##T
#endif

#if INTEL_SG && defined(cl_intel_subgroups_short) && defined(cl_khr_fp16)
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define INTEL_BLOCK_F16 1
#else
#define INTEL_BLOCK_F16 0
#endif

#if INTEL_SG
inline uint sg_lane(void) { return get_sub_group_local_id(); }
inline uint sg_index(void) { return get_sub_group_id(); }
// Sum over the sub-group, in every lane.
inline float sg_sum(float v, local float* scratch) {
  (void)scratch;
  return sub_group_reduce_add(v);
}
#else
inline uint sg_lane(void) { return get_local_id(0) % SG_SIZE; }
inline uint sg_index(void) { return get_local_id(0) / SG_SIZE; }
// Emulated sub-group sum: a tree inside each SG_SIZE-lane slice of local memory. Every
// work-item of the work-group must call it (it has barriers); the sum lands in lane 0.
inline float sg_sum(float v, local float* scratch) {
  const uint lid = get_local_id(0), lane = lid % SG_SIZE;
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint half_n = SG_SIZE / 2; half_n > 0; half_n >>= 1) {
    if (lane < half_n) scratch[lid] += scratch[lid + half_n];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return scratch[lid - lane];
}
#endif

#define INTEL_GEMV_ARGS                                                                        \
  const global uchar *w, ulong w_off, ulong w_row_bytes, const global uchar *x, ulong x_off,  \
      global uchar *dst, ulong dst_off, int K, int N

// Rows past N (the last work-group) are computed on row N - 1 so that every lane reaches the
// reduction, and never stored.
#define INTEL_GEMV_Q(T)                                                                       \
  kernel __attribute__((reqd_work_group_size(SG_WG, 1, 1))) INTEL_SG_ATTR void              \
  INTEL_GEMV_NAME(T)(INTEL_GEMV_ARGS) {                                                      \
    local float scratch[SG_WG];                                                               \
    const int n = (int)(get_group_id(0) * SG_ROWS + sg_index()), m = (int)get_global_id(1); \
    const global uchar* row = w + w_off + (size_t)min(n, N - 1) * w_row_bytes;               \
    const global float* xr = CLPORT_AT(const global float*, x, x_off) + (size_t)m * K;       \
    float acc = 0.0f;                                                                         \
    const uint nrun = (uint)K / 32;                                                           \
    for (uint s = sg_lane(); s < nrun; s += SG_SIZE) acc += dot32_##T(row, s, xr + 32 * s);   \
    const float sum = sg_sum(acc, scratch);                                                   \
    if (sg_lane() == 0 && n < N) CLPORT_AT(global float*, dst, dst_off)[(size_t)m * N + n] = sum; \
  }
INTEL_GEMV_Q(q4_0)
INTEL_GEMV_Q(q4_1)
INTEL_GEMV_Q(q8_0)
INTEL_GEMV_Q(q4_k)
INTEL_GEMV_Q(q6_k)

// F16 rows in chunks of 8 * SG_SIZE halves, then a lane-strided tail for K % (8 * SG_SIZE).
// aligned != 0 (the host checked 16-byte aligned row starts and x rows) allows block reads;
// it is a kernel argument, so the branch is uniform.
kernel __attribute__((reqd_work_group_size(SG_WG, 1, 1))) INTEL_SG_ATTR void INTEL_GEMV_NAME(f16)(
    INTEL_GEMV_ARGS, int aligned) {
  local float scratch[SG_WG];
  const int n = (int)(get_group_id(0) * SG_ROWS + sg_index()), m = (int)get_global_id(1);
  const global half* row = CLPORT_AT(const global half*, w, w_off + (size_t)min(n, N - 1) * w_row_bytes);
  const global float* xr = CLPORT_AT(const global float*, x, x_off) + (size_t)m * K;
  const uint lane = sg_lane();
  const uint nchunk = (uint)K / (8 * SG_SIZE);
  float8 acc8 = (float8)(0.0f);
#if INTEL_BLOCK_F16
  if (aligned != 0) {
    // Lane l receives elements base + l + k * SG_SIZE (k = 0..7) of both W and x.
    for (uint base = 0; base < nchunk * 8 * SG_SIZE; base += 8 * SG_SIZE) {
      const ushort8 wb = intel_sub_group_block_read_us8((const global ushort*)(row + base));
      const uint8 xb = intel_sub_group_block_read8((const global uint*)(xr + base));
      acc8 += convert_float8(as_half8(wb)) * as_float8(xb);
    }
  } else
#endif
  {
    (void)aligned;
    // Lane l takes the contiguous 8 elements base + 8l .. base + 8l + 7. Written as one bounded
    // loop over `at`: PoCL 5.0 summed wrongly (K < 8 * SG_SIZE, no whole chunk) when this was a
    // loop over a chunk count followed by the tail.
    for (uint at = 8 * lane; at < nchunk * 8 * SG_SIZE; at += 8 * SG_SIZE)
      acc8 += vload_half8(0, row + at) * vload8(0, xr + at);
  }
  const float4 acc4 = acc8.lo + acc8.hi;
  float acc = (acc4.x + acc4.y) + (acc4.z + acc4.w);
  for (uint i = nchunk * 8 * SG_SIZE + lane; i < (uint)K; i += SG_SIZE) acc += vload_half(i, row) * xr[i];
  const float sum = sg_sum(acc, scratch);
  if (lane == 0 && n < N) CLPORT_AT(global float*, dst, dst_off)[(size_t)m * N + n] = sum;
}
