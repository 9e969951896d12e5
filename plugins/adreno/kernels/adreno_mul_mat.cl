// Adreno GEMV (decode, few activation rows) and GEMM (prefill) on the split layout written by
// adreno_repack.cl: dst[N, M] = x[K, M] * W[K, N]^T with F32 activations and results.
//
// Build options (set by the plugin from its generation table and quirks):
//   GEMV_WN, GEMV_KS   GEMV work-group: WN weight rows x KS slices of K (reduced in local memory)
//   GEMM_TN, GEMM_TMI, GEMM_RM   GEMM work-group TN rows x TMI items, each item RM tokens
//   ADRENO_IMAGES      quant words are read through image1d_buffer views (texture cache path);
//                      the views are CL_R / CL_UNSIGNED_INT32 for every dtype (F16: two halves
//                      per texel, little-endian)
//   ADRENO_ONLY        non-zero: compile only the kernel with this id (one kernel per program,
//                      the A6x large-program quirk); ids are dtype * 4 + (0 GEMV, 1 GEMM)
//   CLPORT_NO_SUBGROUPS  no sub-group features (old compilers, or the policy says so)
// Strict OpenCL C 1.2: vendor features only behind their extension macros.

#ifndef ADRENO_ONLY
#define ADRENO_ONLY 0
#endif

// Qualcomm: pin GEMV/GEMM waves to the "half" sub-group size so a work-group's rows map to
// whole waves (Adreno runs 64- or 128-wide waves; "half" is the one that leaves room for more
// waves in flight on the memory-bound decode path). Only where the compiler offers it.
#if defined(cl_qcom_reqd_sub_group_size) && !defined(CLPORT_NO_SUBGROUPS)
#pragma OPENCL EXTENSION cl_qcom_reqd_sub_group_size : enable
#define ADRENO_WAVE_ATTR __attribute__((qcom_reqd_sub_group_size("half")))
#else
#define ADRENO_WAVE_ATTR
#endif

#ifdef ADRENO_IMAGES
#define QARG read_only image1d_buffer_t
#define QWORD(q, i) read_imageui((q), (int)(i)).x
#define QHALF(q, i) adreno_half_bits(read_imageui((q), (int)((i) / 2)).x >> (16 * ((i) & 1)))
#else
#define QARG const global uint*
#define QWORD(q, i) (q)[(i)]
#define QHALF(q, i) vload_half((size_t)(i), (const global half*)(q))
#endif

// The low 16 bits of `bits` as an IEEE half, converted to float (no cl_khr_fp16 needed).
inline float adreno_half_bits(uint bits) {
  const ushort h = (ushort)(bits & 0xFFFFu);
  return vload_half(0, (const half*)&h);
}

#define ADRENO_T_F16 1
#define ADRENO_T_Q4_0 2
#define ADRENO_T_Q4_1 3
#define ADRENO_T_Q8_0 8
#define ADRENO_T_Q6_K 14

// Elements 0..31 of chunk c (32 consecutive elements of K) of row n into w. Chunks past K (F16
// tails) read as zero. T is a compile-time constant at every call, so the switch folds away.
inline void adreno_chunk(const int T, QARG q, const global half* s, const global char* sc,
                         uint N, uint n, uint K, uint c, float* w) {
  if (T == ADRENO_T_F16) {
    for (uint i = 0; i < 32; ++i) {
      const uint k = c * 32 + i;
      w[i] = k < K ? QHALF(q, (size_t)k * N + n) : 0.0f;
    }
  } else if (T == ADRENO_T_Q4_0 || T == ADRENO_T_Q4_1) {
    const float d = vload_half((size_t)c * N + n, s);
    const float m = T == ADRENO_T_Q4_1 ? vload_half((size_t)(K / 32) * N + (size_t)c * N + n, s) : -8.0f * d;
    for (uint j = 0; j < 4; ++j) {
      const uint v = QWORD(q, ((size_t)c * 4 + j) * N + n);
      for (uint t = 0; t < 4; ++t) {
        const uint byte = (v >> (8 * t)) & 255u;
        w[4 * j + t] = (float)(byte & 15u) * d + m;
        w[4 * j + t + 16] = (float)(byte >> 4) * d + m;
      }
    }
  } else if (T == ADRENO_T_Q8_0) {
    const float d = vload_half((size_t)c * N + n, s);
    for (uint j = 0; j < 8; ++j) {
      const uint v = QWORD(q, ((size_t)c * 8 + j) * N + n);
      for (uint t = 0; t < 4; ++t) w[4 * j + t] = (float)(char)((v >> (8 * t)) & 255u) * d;
    }
  } else {  // Q6_K: chunk c is run j = c % 8 of super-block c / 8; half h = j / 4, group g = j % 4
    const uint bb = c / 8, j = c % 8, h = j / 4, g = j % 4;
    const float d = vload_half((size_t)bb * N + n, s);
    const float d0 = d * (float)sc[((size_t)bb * 16 + 8 * h + 2 * g) * N + n];
    const float d1 = d * (float)sc[((size_t)bb * 16 + 8 * h + 2 * g + 1) * N + n];
    const uint lw = bb * 48 + h * 16 + (g & 1) * 8, hw = bb * 48 + 32 + h * 8;
    const uint lshift = (g >> 1) * 4, hshift = 2 * g;
    for (uint i = 0; i < 8; ++i) {
      const uint lo = QWORD(q, ((size_t)lw + i) * N + n), hi = QWORD(q, ((size_t)hw + i) * N + n);
      for (uint t = 0; t < 4; ++t) {
        const int v = (int)((((lo >> (8 * t)) >> lshift) & 15u) | ((((hi >> (8 * t)) >> hshift) & 3u) << 4)) - 32;
        const uint e = 4 * i + t;
        w[e] = (float)v * (e < 16 ? d0 : d1);
      }
    }
  }
}

// GEMV: work-group (GEMV_WN rows, GEMV_KS slices, 1 token). Item (r, ks) sums chunks ks,
// ks + KS, ... of row n for token m; slices are added in local memory.
inline void adreno_gemv(const int T, QARG q, const global half* s, const global char* sc,
                        const global uchar* xb, ulong x_off, global uchar* db, ulong d_off, uint K,
                        uint N, local float* partial) {
  const uint r = get_local_id(0), ks = get_local_id(1), m = get_global_id(2);
  const uint n_raw = get_global_id(0);
  const uint n = n_raw < N ? n_raw : N - 1;  // tail items compute a valid row, write nothing
  const global float* x = (const global float*)(xb + x_off) + (size_t)m * K;
  const uint chunks = (K + 31) / 32;
  float w[32];
  float acc = 0.0f;
  for (uint c = ks; c < chunks; c += GEMV_KS) {
    adreno_chunk(T, q, s, sc, N, n, K, c, w);
    const uint base = c * 32, len = K - base < 32 ? K - base : 32;
    for (uint i = 0; i < len; ++i) acc += w[i] * x[base + i];
  }
  partial[ks * GEMV_WN + r] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (ks == 0 && n_raw < N) {
    float sum = 0.0f;
    for (uint i = 0; i < GEMV_KS; ++i) sum += partial[i * GEMV_WN + r];
    ((global float*)(db + d_off))[(size_t)m * N + n_raw] = sum;
  }
}

// GEMM: work-group (GEMM_TN rows, GEMM_TMI items); item (r, t) owns row n and tokens
// m0 + t * RM .. + RM - 1. Each chunk of the TMI * RM tokens' activations is staged in local
// memory once and reused by every row of the group; each item decodes its row's chunk once.
inline void adreno_gemm(const int T, QARG q, const global half* s, const global char* sc,
                        const global uchar* xb, ulong x_off, global uchar* db, ulong d_off, uint K,
                        uint N, uint M, local float* xs) {
  const uint r = get_local_id(0), t = get_local_id(1);
  const uint n_raw = get_global_id(0);
  const uint n = n_raw < N ? n_raw : N - 1;
  const uint tokens = GEMM_TMI * GEMM_RM, m0 = get_group_id(1) * tokens;
  const uint lid = t * GEMM_TN + r, wg = GEMM_TN * GEMM_TMI;
  const global float* x = (const global float*)(xb + x_off);
  const uint chunks = (K + 31) / 32;
  float w[32];
  float acc[GEMM_RM];
  for (uint i = 0; i < GEMM_RM; ++i) acc[i] = 0.0f;
  for (uint c = 0; c < chunks; ++c) {
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint e = lid; e < tokens * 32; e += wg) {
      const uint mm = m0 + e / 32, k = c * 32 + e % 32;
      xs[e] = (mm < M && k < K) ? x[(size_t)mm * K + k] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    adreno_chunk(T, q, s, sc, N, n, K, c, w);
    for (uint i = 0; i < GEMM_RM; ++i) {
      const local float* xr = xs + (t * GEMM_RM + i) * 32;
      float a = 0.0f;
      for (uint e = 0; e < 32; ++e) a += w[e] * xr[e];
      acc[i] += a;
    }
  }
  if (n_raw >= N) return;
  global float* d = (global float*)(db + d_off);
  for (uint i = 0; i < GEMM_RM; ++i) {
    const uint mm = m0 + t * GEMM_RM + i;
    if (mm < M) d[(size_t)mm * N + n_raw] = acc[i];
  }
}

#define ADRENO_GEMV_ARGS                                                                     \
  QARG q, const global half* s, const global char* sc, const global uchar* x, ulong x_off,  \
      global uchar* d, ulong d_off, uint K, uint N
#define ADRENO_GEMM_ARGS ADRENO_GEMV_ARGS, uint M

#if ADRENO_ONLY == 0 || ADRENO_ONLY == 4
kernel ADRENO_WAVE_ATTR void adreno_gemv_f16(ADRENO_GEMV_ARGS) {
  local float partial[GEMV_WN * GEMV_KS];
  adreno_gemv(ADRENO_T_F16, q, s, sc, x, x_off, d, d_off, K, N, partial);
}
#endif
#if ADRENO_ONLY == 0 || ADRENO_ONLY == 5
kernel ADRENO_WAVE_ATTR void adreno_gemm_f16(ADRENO_GEMM_ARGS) {
  local float xs[GEMM_TMI * GEMM_RM * 32];
  adreno_gemm(ADRENO_T_F16, q, s, sc, x, x_off, d, d_off, K, N, M, xs);
}
#endif
#if ADRENO_ONLY == 0 || ADRENO_ONLY == 8
kernel ADRENO_WAVE_ATTR void adreno_gemv_q4_0(ADRENO_GEMV_ARGS) {
  local float partial[GEMV_WN * GEMV_KS];
  adreno_gemv(ADRENO_T_Q4_0, q, s, sc, x, x_off, d, d_off, K, N, partial);
}
#endif
#if ADRENO_ONLY == 0 || ADRENO_ONLY == 9
kernel ADRENO_WAVE_ATTR void adreno_gemm_q4_0(ADRENO_GEMM_ARGS) {
  local float xs[GEMM_TMI * GEMM_RM * 32];
  adreno_gemm(ADRENO_T_Q4_0, q, s, sc, x, x_off, d, d_off, K, N, M, xs);
}
#endif
#if ADRENO_ONLY == 0 || ADRENO_ONLY == 12
kernel ADRENO_WAVE_ATTR void adreno_gemv_q4_1(ADRENO_GEMV_ARGS) {
  local float partial[GEMV_WN * GEMV_KS];
  adreno_gemv(ADRENO_T_Q4_1, q, s, sc, x, x_off, d, d_off, K, N, partial);
}
#endif
#if ADRENO_ONLY == 0 || ADRENO_ONLY == 13
kernel ADRENO_WAVE_ATTR void adreno_gemm_q4_1(ADRENO_GEMM_ARGS) {
  local float xs[GEMM_TMI * GEMM_RM * 32];
  adreno_gemm(ADRENO_T_Q4_1, q, s, sc, x, x_off, d, d_off, K, N, M, xs);
}
#endif
#if ADRENO_ONLY == 0 || ADRENO_ONLY == 32
kernel ADRENO_WAVE_ATTR void adreno_gemv_q8_0(ADRENO_GEMV_ARGS) {
  local float partial[GEMV_WN * GEMV_KS];
  adreno_gemv(ADRENO_T_Q8_0, q, s, sc, x, x_off, d, d_off, K, N, partial);
}
#endif
#if ADRENO_ONLY == 0 || ADRENO_ONLY == 33
kernel ADRENO_WAVE_ATTR void adreno_gemm_q8_0(ADRENO_GEMM_ARGS) {
  local float xs[GEMM_TMI * GEMM_RM * 32];
  adreno_gemm(ADRENO_T_Q8_0, q, s, sc, x, x_off, d, d_off, K, N, M, xs);
}
#endif
#if ADRENO_ONLY == 0 || ADRENO_ONLY == 56
kernel ADRENO_WAVE_ATTR void adreno_gemv_q6_k(ADRENO_GEMV_ARGS) {
  local float partial[GEMV_WN * GEMV_KS];
  adreno_gemv(ADRENO_T_Q6_K, q, s, sc, x, x_off, d, d_off, K, N, partial);
}
#endif
#if ADRENO_ONLY == 0 || ADRENO_ONLY == 57
kernel ADRENO_WAVE_ATTR void adreno_gemm_q6_k(ADRENO_GEMM_ARGS) {
  local float xs[GEMM_TMI * GEMM_RM * 32];
  adreno_gemm(ADRENO_T_Q6_K, q, s, sc, x, x_off, d, d_off, K, N, M, xs);
}
#endif
