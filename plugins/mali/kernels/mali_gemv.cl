// Mali GEMV (decode path): dst[N, M] = x[K, M] . W[K, N]^T for small M, weights in the plain
// GGUF layout (Q4_0, Q8_0, F16). Needs common.cl in front (CLPORT_AT).
//
// One work-group of MALI_WG work-items computes MALI_ROWS (1..4) consecutive output rows for
// one column m (global size: (ceil(N / MALI_ROWS) * MALI_WG, M)). Work-items stride over the
// row in 32-element runs; each run of x is loaded once as eight float4 and reused for every
// row; weights come in as 16-byte vector loads (uchar16 / char16) or half8 loads (vload_half8).
// Partial float4 sums meet in one local-memory tree per row.
//
// Written for the Mali compilers our users hit (see configs/quirks.yaml and the Mali notes in
// shared/reference/mobile-opencl-in-production.zh.txt):
//  - no private arrays at all, vector or scalar: accumulators are named (acc0..acc3), so the
//    "private array of float4 partly not written" failure cannot happen, with or without
//    -DCLPORT_NO_PRIVATE_VECTOR_ARRAYS;
//  - no implicit float/float4 mixing: every scalar meets a vector through an explicit
//    (float4)(s) broadcast, and every int <-> float change is a convert_*;
//  - MALI_WG comes from the host, which checks it against the compiled kernel's
//    CL_KERNEL_WORK_GROUP_SIZE (register-heavy kernels get smaller limits on Mali).
//
// cl_arm_integer_dot_product_int8: with -DCLPORT_MALI_INT8_DOT (the host sets it only when the
// policy asks for reduced precision, fp16) and the extension present, Q8_0 quantizes each
// 32-element run of x to int8 with its own scale and uses arm_dot, as llama.cpp-style q8 x q8
// dot products do; otherwise Q8_0 is an exact float dot product.

#ifndef MALI_WG
#define MALI_WG 64
#endif
#ifndef MALI_ROWS
#define MALI_ROWS 2
#endif
#if MALI_ROWS < 1 || MALI_ROWS > 4
#error MALI_ROWS must be 1..4
#endif

#if defined(CLPORT_MALI_INT8_DOT) && defined(cl_arm_integer_dot_product_int8)
#pragma OPENCL EXTENSION cl_arm_integer_dot_product_int8 : enable
#define MALI_ARM_DOT 1
#else
#define MALI_ARM_DOT 0
#endif

// Stamps STMT(r) for each row r of the work-group (r is a literal, so names can be pasted).
#if MALI_ROWS == 1
#define MALI_EACH_ROW(STMT) STMT(0)
#elif MALI_ROWS == 2
#define MALI_EACH_ROW(STMT) STMT(0) STMT(1)
#elif MALI_ROWS == 3
#define MALI_EACH_ROW(STMT) STMT(0) STMT(1) STMT(2)
#else
#define MALI_EACH_ROW(STMT) STMT(0) STMT(1) STMT(2) STMT(3)
#endif

inline float mali_hsum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

// Sums v over the work-group into red[0]; red has MALI_WG floats. Every work-item calls it.
inline float mali_wg_sum(float v, local float* red) {
  const uint lid = get_local_id(0);
  red[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint half_n = MALI_WG / 2; half_n > 0; half_n >>= 1) {
    if (lid < half_n) red[lid] += red[lid + half_n];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float sum = red[0];
  barrier(CLK_LOCAL_MEM_FENCE);  // red is reused for the next row
  return sum;
}

// Lanes 8..11 of a 16-wide vector, gathered one by one rather than as v.s89ab: oclgrind 21.10
// reads a shufflevector lane taken from element 11 as uninitialised (see hsum16 in
// kernels/blocks.cl); compilers fold this spelling into the same shuffle.
#define MALI_S89AB(v) ((v).s8, (v).s9, (v).sa, (v).sb)

// One Q4_0 block (18 B: half d, 16 bytes of nibbles) against x run x0..x7 (float4 each):
// elements 0..15 are the low nibbles, 16..31 the high nibbles.
inline float4 mali_run_q4_0(const global uchar* b, float4 x0, float4 x1, float4 x2, float4 x3,
                            float4 x4, float4 x5, float4 x6, float4 x7) {
  const float4 d = (float4)(vload_half(0, (const global half*)b));
  const int16 q = convert_int16(vload16(0, b + 2));
  const int16 lo = (q & (int16)(15)) - (int16)(8);
  const int16 hi = (q >> 4) - (int16)(8);
  float4 s = convert_float4(lo.s0123) * x0 + convert_float4(lo.s4567) * x1;
  s += convert_float4((int4)MALI_S89AB(lo)) * x2 + convert_float4(lo.scdef) * x3;
  s += convert_float4(hi.s0123) * x4 + convert_float4(hi.s4567) * x5;
  s += convert_float4((int4)MALI_S89AB(hi)) * x6 + convert_float4(hi.scdef) * x7;
  return s * d;
}

// One Q8_0 block (34 B: half d, 32 int8) against x0..x7.
inline float4 mali_run_q8_0(const global uchar* b, float4 x0, float4 x1, float4 x2, float4 x3,
                            float4 x4, float4 x5, float4 x6, float4 x7) {
  const float4 d = (float4)(vload_half(0, (const global half*)b));
  const global char* qs = (const global char*)(b + 2);
  const char16 q0 = vload16(0, qs), q1 = vload16(1, qs);
  float4 s = convert_float4(q0.s0123) * x0 + convert_float4(q0.s4567) * x1;
  s += convert_float4((char4)MALI_S89AB(q0)) * x2 + convert_float4(q0.scdef) * x3;
  s += convert_float4(q1.s0123) * x4 + convert_float4(q1.s4567) * x5;
  s += convert_float4((char4)MALI_S89AB(q1)) * x6 + convert_float4(q1.scdef) * x7;
  return s * d;
}

#define MALI_GEMV_ARGS                                                                         \
  const global uchar *w, ulong w_off, ulong w_row_bytes, const global uchar *x, ulong x_off,  \
      global uchar *dst, ulong dst_off, int K, int N

// Row pointers (rows past N are clamped to N - 1: computed so every work-item reaches the
// barriers, never stored).
#define MALI_ROW_PTR(r) \
  const global uchar* row##r = w + w_off + (size_t)min(n0 + r, N - 1) * w_row_bytes;
#define MALI_ACC_DECL(r) float4 acc##r = (float4)(0.0f);
#define MALI_STORE(r)                                                      \
  {                                                                        \
    const float sum = mali_wg_sum(mali_hsum4(acc##r), red);                \
    if (get_local_id(0) == 0 && n0 + r < N) y[n0 + r] = sum;               \
  }

#define MALI_X_RUN(xr, s)                                                                  \
  const global float* xs = (xr) + 32 * (size_t)(s);                                        \
  const float4 x0 = vload4(0, xs), x1 = vload4(1, xs), x2 = vload4(2, xs), x3 = vload4(3, xs); \
  const float4 x4 = vload4(4, xs), x5 = vload4(5, xs), x6 = vload4(6, xs), x7 = vload4(7, xs);

#define MALI_GEMV_Q(T)                                                                        \
  kernel __attribute__((reqd_work_group_size(MALI_WG, 1, 1))) void mali_gemv_##T(           \
      MALI_GEMV_ARGS) {                                                                       \
    local float red[MALI_WG];                                                                 \
    const int n0 = (int)get_group_id(0) * MALI_ROWS, m = (int)get_global_id(1);              \
    const global float* xr = CLPORT_AT(const global float*, x, x_off) + (size_t)m * K;       \
    global float* y = CLPORT_AT(global float*, dst, dst_off) + (size_t)m * N;                \
    MALI_EACH_ROW(MALI_ROW_PTR)                                                               \
    MALI_EACH_ROW(MALI_ACC_DECL)                                                              \
    for (uint s = get_local_id(0); s < (uint)K / 32; s += MALI_WG) {                          \
      MALI_X_RUN(xr, s)                                                                       \
      MALI_EACH_ROW(MALI_ACC_##T)                                                             \
    }                                                                                         \
    MALI_EACH_ROW(MALI_STORE)                                                                 \
  }
#define MALI_ACC_q4_0(r) \
  acc##r += mali_run_q4_0(row##r + (size_t)s * 18, x0, x1, x2, x3, x4, x5, x6, x7);
MALI_GEMV_Q(q4_0)

#if MALI_ARM_DOT
// x run quantized to int8 with scale dx = max|x| / 127 (0 for an all-zero run).
#define MALI_QX(k) const char4 qx##k = convert_char4_sat_rte(x##k * (float4)(inv));
#define MALI_ACC_q8_0(r)                                                                     \
  {                                                                                          \
    const global uchar* b = row##r + (size_t)s * 34;                                         \
    const global char* qs = (const global char*)(b + 2);                                     \
    const char16 q0 = vload16(0, qs), q1 = vload16(1, qs);                                   \
    const int dotq = arm_dot(q0.s0123, qx0) + arm_dot(q0.s4567, qx1) +                       \
                     arm_dot((char4)MALI_S89AB(q0), qx2) + arm_dot(q0.scdef, qx3) +          \
                     arm_dot(q1.s0123, qx4) + arm_dot(q1.s4567, qx5) +                       \
                     arm_dot((char4)MALI_S89AB(q1), qx6) + arm_dot(q1.scdef, qx7);           \
    acc##r.x += (float)dotq * (vload_half(0, (const global half*)b) * dx);                   \
  }
kernel __attribute__((reqd_work_group_size(MALI_WG, 1, 1))) void mali_gemv_q8_0(MALI_GEMV_ARGS) {
  local float red[MALI_WG];
  const int n0 = (int)get_group_id(0) * MALI_ROWS, m = (int)get_global_id(1);
  const global float* xr = CLPORT_AT(const global float*, x, x_off) + (size_t)m * K;
  global float* y = CLPORT_AT(global float*, dst, dst_off) + (size_t)m * N;
  MALI_EACH_ROW(MALI_ROW_PTR)
  MALI_EACH_ROW(MALI_ACC_DECL)
  for (uint s = get_local_id(0); s < (uint)K / 32; s += MALI_WG) {
    MALI_X_RUN(xr, s)
    const float4 a = fmax(fmax(fmax(fabs(x0), fabs(x1)), fmax(fabs(x2), fabs(x3))),
                          fmax(fmax(fabs(x4), fabs(x5)), fmax(fabs(x6), fabs(x7))));
    const float amax = fmax(fmax(a.x, a.y), fmax(a.z, a.w));
    const float dx = amax / 127.0f;
    const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
    MALI_QX(0) MALI_QX(1) MALI_QX(2) MALI_QX(3) MALI_QX(4) MALI_QX(5) MALI_QX(6) MALI_QX(7)
    MALI_EACH_ROW(MALI_ACC_q8_0)
  }
  MALI_EACH_ROW(MALI_STORE)
}
#else
#define MALI_ACC_q8_0(r) \
  acc##r += mali_run_q8_0(row##r + (size_t)s * 34, x0, x1, x2, x3, x4, x5, x6, x7);
MALI_GEMV_Q(q8_0)
#endif

// F16: half8 loads (vload_half8 needs only 2-byte alignment and no cl_khr_fp16), x as float8,
// then a scalar tail for K % 8.
#define MALI_ROW_PTR_F16(r) \
  const global half* hrow##r = (const global half*)(w + w_off + (size_t)min(n0 + r, N - 1) * w_row_bytes);
#define MALI_ACC_F16(r)                                  \
  {                                                      \
    const float8 wv = vload_half8(i, hrow##r);           \
    acc##r += wv.lo * xv.lo + wv.hi * xv.hi;             \
  }
#define MALI_TAIL_F16(r) acc##r.x += vload_half(t, hrow##r) * xr[t];
kernel __attribute__((reqd_work_group_size(MALI_WG, 1, 1))) void mali_gemv_f16(MALI_GEMV_ARGS) {
  local float red[MALI_WG];
  const int n0 = (int)get_group_id(0) * MALI_ROWS, m = (int)get_global_id(1);
  const global float* xr = CLPORT_AT(const global float*, x, x_off) + (size_t)m * K;
  global float* y = CLPORT_AT(global float*, dst, dst_off) + (size_t)m * N;
  MALI_EACH_ROW(MALI_ROW_PTR_F16)
  MALI_EACH_ROW(MALI_ACC_DECL)
  const uint nvec = (uint)K / 8;
  for (uint i = get_local_id(0); i < nvec; i += MALI_WG) {
    const float8 xv = vload8(i, xr);
    MALI_EACH_ROW(MALI_ACC_F16)
  }
  for (uint t = 8 * nvec + get_local_id(0); t < (uint)K; t += MALI_WG) {
    MALI_EACH_ROW(MALI_TAIL_F16)
  }
  MALI_EACH_ROW(MALI_STORE)
}
