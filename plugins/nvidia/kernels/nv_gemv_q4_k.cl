// The GEMV of nv_gemv.cl (decode) on Q4_K weights read in place: the file's super-blocks
// (nv_q4_k.cl), rows back to back from a 16-byte aligned byte offset, so the weight keeps one copy.
//
// A lane's unit of work is one run: 64 values, two blocks of the activation row, three 16-byte
// loads (the header, read by the 4 lanes of one super-block, comes from L1). Against the
// activation block's (dx, dx sum(codes)) a block contributes d sc dx sum(q qx) - dmin m dx sum(qx),
// Q4_1's sum with scale d sc and minimum -dmin m.
//
// The activations take one scale per 256 values (nv_quantize_float4's `wide`), the CPU path's
// Q8_K blocks, so that both paths mean the same numbers.
// clport-requires: nv_gemv.cl
// clport-requires: nv_q4_k.cl

// Run p of super-block s (words from wq) against the two activation blocks of its 64 values:
// codes xa0 / xb0 and scales ds0 meet the low nibbles, xa1 / xb1 / ds1 the high ones.
inline float nv_run_q4_k(const global uint4* wq, size_t s, int p, int4 xa0, int4 xb0, int4 xa1, int4 xb1,
                         float2 ds0, float2 ds1) {
  const global uint4* sb = wq + s * 9;
  const uint4 head = sb[0], lo = sb[1 + 2 * p], hi = sb[2 + 2 * p];
  const float d = vload_half(0, (const global half*)sb), dmin = vload_half(1, (const global half*)sb);
  const int2 sm0 = nv_q4k_scale_min(head, 2 * p), sm1 = nv_q4k_scale_min(head, 2 * p + 1);
  const int dot0 = nv_dot_codes(NV_LO(lo), NV_LO(hi), xa0, xb0);
  const int dot1 = nv_dot_codes(NV_HI(lo), NV_HI(hi), xa1, xb1);
  return d * ((float)sm0.x * ds0.x * (float)dot0 + (float)sm1.x * ds1.x * (float)dot1) -
         dmin * ((float)sm0.y * ds0.y + (float)sm1.y * ds1.y);
}

// Runs per lane and loop trip: the blocks of NV_BPT, two to a run (at least one). A run's three
// loads keep a lane's memory busy on their own (H100, 8B-shape generation: 269 tok/s with one run
// a trip, 256 with two, 218 with four).
#define NV_RUNS_PER_TRIP (NV_BPT > 1 ? NV_BPT / 2 : 1)

// Step 2 over runs: NV_RUNS_PER_TRIP runs per lane and loop trip (u, u + 32, ...; past the row's
// end clamped to its last run and masked by a zero (d, s)), every row of the warp against them.
#define NV_GEMV_LOOP_Q4K(STEP)                                                                  \
  for (int u0 = lane; u0 < nb / 2; u0 += 32 * NV_RUNS_PER_TRIP) {                               \
    int ru[NV_RUNS_PER_TRIP];                                                                   \
    int4 xa[2 * NV_RUNS_PER_TRIP], xb[2 * NV_RUNS_PER_TRIP];                                    \
    float2 ds[2 * NV_RUNS_PER_TRIP];                                                            \
    for (int u = 0; u < NV_RUNS_PER_TRIP; ++u) {                                                \
      ru[u] = min(u0 + 32 * u, nb / 2 - 1);                                                     \
      const bool live_ = u0 + 32 * u < nb / 2;                                                   \
      for (int h = 0; h < 2; ++h) {                                                             \
        xa[2 * u + h] = xq[2 * ru[u] + h];                                                      \
        xb[2 * u + h] = xq[nb + 2 * ru[u] + h];                                                 \
        ds[2 * u + h] = live_ ? xds[2 * ru[u] + h] : (float2)(0.0f);                            \
      }                                                                                         \
    }                                                                                           \
    for (int r = 0; r < NV_RPW; ++r) {                                                          \
      /* rows past N repeat the last row; their sums are never stored */                        \
      const size_t first_sb = (size_t)min(first + r, N - 1) * (nb / 8);                         \
      for (int u = 0; u < NV_RUNS_PER_TRIP; ++u) {                                              \
        STEP(r, first_sb + ru[u] / 4, ru[u] % 4, xa[2 * u], xb[2 * u], xa[2 * u + 1], xb[2 * u + 1], \
             ds[2 * u], ds[2 * u + 1]);                                                         \
      }                                                                                         \
    }                                                                                           \
  }

#define NV_STEP_q4_k(r, s, p, xa0, xb0, xa1, xb1, ds0, ds1) \
  acc[r] += nv_run_q4_k(wq, s, p, xa0, xb0, xa1, xb1, ds0, ds1)
#define NV_SWIGLU_STEP_q4_k(r, s, p, xa0, xb0, xa1, xb1, ds0, ds1) \
  acc_g[r] += nv_run_q4_k(gq, s, p, xa0, xb0, xa1, xb1, ds0, ds1); \
  acc_u[r] += nv_run_q4_k(uq, s, p, xa0, xb0, xa1, xb1, ds0, ds1)
NV_ROWS_FN_LOOP(nv_rows_q4_k, NV_GEMV_LOOP_Q4K, NV_STEP_q4_k)
NV_SWIGLU_ROWS_FN_LOOP(nv_swiglu_rows_q4_k, NV_GEMV_LOOP_Q4K, NV_SWIGLU_STEP_q4_k)

// A weight's words from byte offset off of its buffer.
#define NV_AT_OFFSET(w, off) ((const global uint4*)((const global uchar*)(w) + (off)))

// MUL_MAT, RMS_NORM_MUL_MAT (norm) and MUL_MAT_ADD (has_res) as nv_gemv.cl's kernels.
NV_GEMV_IN_PLACE_KERNEL(nv_gemv_q4_k, nv_rows_q4_k)

// RMS_NORM_MUL_MAT_SWIGLU, gate and up each at their byte offset.
kernel __attribute__((reqd_work_group_size(NV_WG, 1, 1))) void nv_gemv_swiglu_q4_k(
    const global uint4* gate, ulong gate_off, const global uint4* up, ulong up_off, const global uchar* x,
    ulong x_off, const global uchar* g, ulong g_off, float eps, global uchar* dst, ulong dst_off, int K, int N,
    local int4* xq, local float2* xds) {
  local float red[2 * NV_ROWS * NV_RED_STRIDE];
  local float spans[NV_WG / 8];
  const size_t m = get_group_id(0);
  nv_quantize_row((const global float*)(x + x_off) + m * K, (const global float*)(g + g_off), 1, eps, K, xq, xds,
                  red, 1, spans);
  const global uint4 *gq = NV_AT_OFFSET(gate, gate_off), *uq = NV_AT_OFFSET(up, up_off);
  nv_swiglu_rows_q4_k(gq, (const global ushort*)gq, uq, (const global ushort*)uq, K, N,
                      (global float*)(dst + dst_off) + m * N, xq, xds, red, get_group_id(1), get_num_groups(1));
}
