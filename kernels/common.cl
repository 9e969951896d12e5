// Prepended to every clport kernel program. Tensors reach kernels as (global uchar* buffer,
// ulong byte offset) pairs, so any sub-allocation offset works without sub-buffers.
#define CLPORT_AT(type, base, off) ((type)((base) + (off)))

// A program may hold the kernels of one dtype only, as a model needs a few of the many and a
// driver compiles every kernel of a program it builds: the host then passes
// -DCLPORT_ONE_DTYPE=1 -DCLPORT_ONLY_<dtype>=1 (e.g. CLPORT_ONLY_q4_1, or CLPORT_ONLY_mixed for
// attention over K and V of two types), and `#if CLPORT_WANT(t)` keeps the kernels of dtype t.
// An identifier #if does not know is 0, so every other dtype's kernels drop out. Kernels of no
// dtype (quantizers, merges) are in every build.
// One F32 value stored as F16 at p, rounded to nearest even. On x86 CPUs with F16C (PoCL defines
// the target's feature macros) one vcvtps2ph: PoCL's vstore_half_rte is a software conversion of
// about 20 instructions a value.
#if defined(__F16C__) && defined(__x86_64__)
inline void st_f16(float v, global uchar* p) {
  *(global short*)p = __builtin_astype(__builtin_ia32_vcvtps2ph((float4)(v, 0.0f, 0.0f, 0.0f), 0), short8).s0;
}
#else
inline void st_f16(float v, global uchar* p) { vstore_half_rte(v, 0, (global half*)p); }
#endif

#ifdef CLPORT_ONE_DTYPE
#define CLPORT_WANT(t) CLPORT_ONLY_##t
#else
#define CLPORT_WANT(t) 1
#endif
