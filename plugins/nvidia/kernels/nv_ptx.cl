// Instruction helpers the nvidia kernels share (built in front of nv_gemv.cl, nv_gemm.cl,
// nv_gemm_half.cl and nv_attention_mma.cl), and the split GEMMs' epilogue. With NV_PTX=1 (the plugin's probe found inline PTX building and computing
// right on this driver) they are single PTX instructions; otherwise the same values in plain
// OpenCL C where one exists, which is what a spoofed NVIDIA identity elsewhere compiles.

// The four-way integer dot product of a's and b's signed bytes, plus c.
#if defined(NV_PTX) && NV_PTX
inline int nv_dp4a(uint a, int b, int c) {
  int d;
  __asm__("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
#else
inline int nv_dp4a(uint a, int b, int c) {
  const char4 x = as_char4(a), y = as_char4(b);
  return c + (int)x.x * y.x + (int)x.y * y.y + (int)x.z * y.z + (int)x.w * y.w;
}
#endif

// a / b rounded to nearest, as IEEE 754 and the CPU's quantization round it. The driver's '/'
// may be off by the 2.5 ulp OpenCL allows, and a value exactly at a rounding tie (x / d = k + 0.5,
// e.g. an attention output of exactly half its block's largest) then gets the other code.
inline float nv_div_rn(float a, float b) {
#if defined(NV_PTX) && NV_PTX
  uint q;
  __asm__("{ .reg .f32 a, b, q; mov.b32 a, %1; mov.b32 b, %2; div.rn.f32 q, a, b; mov.b32 %0, q; }"
          : "=r"(q) : "r"(as_uint(a)), "r"(as_uint(b)));
  return as_float(q);
#else
  return a / b;
#endif
}

// Orders this thread's global accesses before and after at GPU scope (as CUDA's threadfence):
// other SMs see what its work-group wrote before a count it then bumps, and it sees theirs after
// it read their counts.
#if defined(NV_PTX) && NV_PTX
inline void nv_fence_gpu(void) { __asm__ volatile("membar.gl;" ::: "memory"); }
#else
inline void nv_fence_gpu(void) { mem_fence(CLK_GLOBAL_MEM_FENCE); }
#endif

#if defined(NV_PTX) && NV_PTX
// v of the lane whose index differs from this one's in the bits of `lanes` (a warp butterfly).
inline float nv_shfl_xor(float v, int lanes) {
  int r;
  __asm__("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(as_int(v)), "r"(lanes));
  return as_float(r);
}
#endif

#if defined(NV_PTX) && NV_PTX
// f16 helpers and the f16 tensor-core product (compute capability 8.0; the prompt attention and
// the f16 GEMM).
// {lo, hi} -> f16x2 bits (lo in the low half), rounded to nearest.
inline uint nv_f16x2(float lo, float hi) {
  uint r;
  __asm__("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "r"(as_uint(hi)), "r"(as_uint(lo)));
  return r;
}

inline float2 nv_f16x2_to_float2(uint v) {
  uint lo, hi;
  __asm__("{ .reg .b16 l, h; mov.b32 {l, h}, %2; cvt.f32.f16 %0, l; cvt.f32.f16 %1, h; }"
          : "=r"(lo), "=r"(hi)
          : "r"(v));
  return (float2)(as_float(lo), as_float(hi));
}

// Eight f16 values (one 16-byte load of a cache row) as floats.
inline float8 nv_f16x8_to_float8(uint4 w) {
  return (float8)(nv_f16x2_to_float2(w.x), nv_f16x2_to_float2(w.y), nv_f16x2_to_float2(w.z), nv_f16x2_to_float2(w.w));
}

inline float4 nv_mma_f16(uint4 a, uint b0, uint b1, float4 c) {
  uint d0, d1, d2, d3;
  __asm__(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%10,%11,%12,%13};"
      : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
      : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b0), "r"(b1), "r"(as_uint(c.x)), "r"(as_uint(c.y)),
        "r"(as_uint(c.z)), "r"(as_uint(c.w)));
  return (float4)(as_float(d0), as_float(d1), as_float(d2), as_float(d3));
}
#else
// The f16 helpers in plain OpenCL C (the tensor-core kernels' forms that run under a spoofed
// identity; nv_attention_cells_mma.cl).
inline uint nv_f16x2(float lo, float hi) {
  ushort2 h;
  vstore_half_rte(lo, 0, (private half*)&h);
  vstore_half_rte(hi, 1, (private half*)&h);
  return as_uint(h);
}

inline float2 nv_f16x2_to_float2(uint v) { return vload_half2(0, (const private half*)&v); }
#endif

// (lo, hi) as two f16x2 words whose sum carries 22 bits: .x the rounded values, .y the remainders.
inline uint2 nv_f16x2_split(float lo, float hi) {
  const uint h = nv_f16x2(lo, hi);
  const float2 back = nv_f16x2_to_float2(h);
  return (uint2)(h, nv_f16x2(lo - back.x, hi - back.y));
}

// Asynchronous copies and matrix loads from local memory (compute capability 8.0, probed on the
// driver by kernels/nv_async_probe.cl: NV_ASYNC=1 only where they built and moved the right words).
// Without them the copy is a plain load and store, complete when it returns, and nv_async_wait
// has nothing to wait for; callers read fragments with plain loads instead of nv_ldmatrix_x4.
#if defined(NV_ASYNC) && NV_ASYNC
// The address of a local pointer in the shared window, as cp.async and ldmatrix take it.
inline uint nv_local_addr(local const void* p) { return (uint)(size_t)p; }

// Starts copying 16 bytes from global to local memory without passing through registers; the
// copy lands by the nv_async_wait that follows its group's nv_async_commit.
inline void nv_copy16_async(local uint4* dst, const global uint4* src) {
  __asm__ volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(nv_local_addr(dst)), "l"((ulong)src) : "memory");
}
// The same for 4 and 8 bytes, which only cp.async's .ca form (through L1) takes.
inline void nv_copy4_async(local uint* dst, const global uint* src) {
  __asm__ volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(nv_local_addr(dst)), "l"((ulong)src) : "memory");
}
inline void nv_copy8_async(local uint2* dst, const global uint2* src) {
  __asm__ volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(nv_local_addr(dst)), "l"((ulong)src) : "memory");
}
// Closes the group of copies started since the last commit.
inline void nv_async_commit(void) { __asm__ volatile("cp.async.commit_group;" ::: "memory"); }
// Waits until at most N of this work-item's committed groups are still in flight (N a literal).
#define nv_async_wait(N) __asm__ volatile("cp.async.wait_group " #N ";" ::: "memory")

// Four 8 x 8 matrices of 16-bit values from local memory, lanes 8q .. 8q + 7 giving the 16-byte
// rows of matrix q: lane l gets word l % 4 of row l / 4 of each matrix, in .x .. .w
// (nv_ldmatrix_x4); or each matrix transposed, rows 2 (l % 4) and 2 (l % 4) + 1 of column l / 4 in
// the low and high half (nv_ldmatrix_x4_trans).
#define NV_LDMATRIX_X4(NAME, SHAPE)                                                    \
  inline uint4 NAME(local const uint4* row) {                                          \
    uint a, b, c, d;                                                                   \
    __asm__ volatile("ldmatrix.sync.aligned." SHAPE ".shared.b16 {%0, %1, %2, %3}, [%4];" \
                     : "=r"(a), "=r"(b), "=r"(c), "=r"(d)                              \
                     : "r"(nv_local_addr(row))                                         \
                     : "memory");                                                      \
    return (uint4)(a, b, c, d);                                                        \
  }
NV_LDMATRIX_X4(nv_ldmatrix_x4, "m8n8.x4")
NV_LDMATRIX_X4(nv_ldmatrix_x4_trans, "m8n8.x4.trans")
#else
inline void nv_copy16_async(local uint4* dst, const global uint4* src) { *dst = *src; }
inline void nv_copy4_async(local uint* dst, const global uint* src) { *dst = *src; }
inline void nv_copy8_async(local uint2* dst, const global uint2* src) { *dst = *src; }
inline void nv_async_commit(void) {}
#define nv_async_wait(N) ((void)0)
#endif

// 1 / sqrt(mean(x^2) + eps) of the K values at xr (the RMSNorm's scale), summed by a work-group of
// wg work-items (a power of two) through red (wg floats); every work-item gets it, and red may be
// written again right after.
inline float nv_row_rms_scale(const global float* xr, int K, float eps, local float* red, int wg) {
  const int lid = get_local_id(0);
  float ss = 0.0f;
  for (int i = lid; i < K / 4; i += wg) {
    const float4 v = vload4(i, xr);
    ss += dot(v, v);
  }
  red[lid] = ss;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int width = wg / 2; width > 0; width /= 2) {
    if (lid < width) red[lid] += red[lid + width];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float scale = 1.0f / sqrt(red[0] / (float)K + eps);
  barrier(CLK_LOCAL_MEM_FENCE);
  return scale;
}

// Four floats at p (16-byte aligned) as the L2 cache holds them, not this SM's L1: what other SMs
// wrote, read after nv_fence_gpu. Unlike volatile loads, several may be in flight at once.
#if defined(NV_PTX) && NV_PTX
inline float4 nv_load_l2_f4(const global float* p) {
  uint a, b, c, d;
  __asm__ volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"((ulong)p));
  return as_float4((uint4)(a, b, c, d));
}
inline float nv_load_l2_f1(const global float* p) {
  uint a;
  __asm__ volatile("ld.global.cg.u32 %0, [%1];" : "=r"(a) : "l"((ulong)p));
  return as_float(a);
}
#else
inline float nv_load_l2_f1(const global float* p) { return *(const volatile global float*)p; }
inline float4 nv_load_l2_f4(const global float* p) {
  const volatile global float* q = p;
  return (float4)(q[0], q[1], q[2], q[3]);
}
#endif

// Whether this work-group is the last of `expected` to reach count (all of them call it, after
// writing what the last one reads): its writes are fenced to the whole GPU before it counts, and
// the last resets the count for the next launch. Ends with the work-group's barrier.
inline int nv_last_to_arrive(volatile global int* count, int expected, local int* last) {
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0) {
    nv_fence_gpu();
    *last = atomic_inc(count) == expected - 1;
    if (*last) {
      *count = 0;
      nv_fence_gpu();
    }
  }
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  return *last;
}

// The epilogue of a GEMM split along K. A tile's work-groups (one per K range, dimension 2 of the
// grid) count their arrivals in arrivals[tile] once their partial sums are in part ([split][sets]
// [M][N] floats: the SwiGLU's gate, then up); the last to arrive resets the count for the next
// launch and adds up the tile's ranges in order, 0 first, whichever group it is, so a run gives
// the same sums every time: dst = sum (+ res when has_res; res may be dst) or, for the SwiGLU (two
// sets), silu(gate) * up. This saves a launch of its own per product, the cost of which (a few
// microseconds, 128 a decode step of an 8B model) was that of a third of the GEMM. The tile is
// rows m0 .. m0 + rows - 1 by columns n0 .. n0 + cols - 1 (cols a multiple of 4), summed by a
// work-group of wg, four columns a work-item where N allows 16-byte loads; `last` is the group's
// flag.
inline void nv_split_finish(const global float* part, volatile global int* arrivals, int splits, int M, int N,
                            int swiglu, const global uchar* res, ulong res_off, int has_res, global uchar* dst,
                            ulong dst_off, int n0, int m0, int rows, int cols, int wg, local int* last) {
  if (!nv_last_to_arrive(arrivals + get_group_id(1) * get_num_groups(0) + get_group_id(0), splits, last)) return;
  const size_t mn = (size_t)M * N, stride = (swiglu ? 2 : 1) * mn;
  const int live_rows = min(rows, M - m0), width = N % 4 == 0 ? 4 : 1, per_row = cols / width;
  global float* out = (global float*)(dst + dst_off);
  const global float* r = (const global float*)(res + res_off);
  for (int e = get_local_id(0); e < live_rows * per_row; e += wg) {
    const int m = m0 + e / per_row, n = n0 + width * (e % per_row);
    if (n >= N) continue;
    const size_t at = (size_t)m * N + n;
    if (width == 4) {
      float4 a = (float4)(0.0f), u = (float4)(0.0f);
      for (int s = 0; s < splits; ++s) {
        a += nv_load_l2_f4(part + s * stride + at);
        if (swiglu) u += nv_load_l2_f4(part + s * stride + mn + at);
      }
      if (swiglu)
        vstore4(a / (1.0f + exp(-a)) * u, 0, out + at);
      else
        vstore4(has_res ? a + vload4(0, r + at) : a, 0, out + at);
    } else {
      // Other SMs wrote these: read them from memory, not from this SM's cache.
      const volatile global float* p = part;
      float a = 0.0f, u = 0.0f;
      for (int s = 0; s < splits; ++s) {
        a += p[s * stride + at];
        if (swiglu) u += p[s * stride + mn + at];
      }
      if (swiglu)
        out[at] = a / (1.0f + exp(-a)) * u;
      else
        out[at] = has_res ? a + r[at] : a;
    }
  }
}
