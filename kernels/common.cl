// Prepended to every clport kernel program. Tensors reach kernels as (global uchar* buffer,
// ulong byte offset) pairs, so any sub-allocation offset works without sub-buffers.
#define CLPORT_AT(type, base, off) ((type)((base) + (off)))

// A program may hold the kernels of one dtype only, as a model needs a few of the many and a
// driver compiles every kernel of a program it builds: the host then passes
// -DCLPORT_ONE_DTYPE=1 -DCLPORT_ONLY_<dtype>=1 (e.g. CLPORT_ONLY_q4_1, or CLPORT_ONLY_mixed for
// attention over K and V of two types), and `#if CLPORT_WANT(t)` keeps the kernels of dtype t.
// An identifier #if does not know is 0, so every other dtype's kernels drop out. Kernels of no
// dtype (quantizers, merges) are in every build.
#ifdef CLPORT_ONE_DTYPE
#define CLPORT_WANT(t) CLPORT_ONLY_##t
#else
#define CLPORT_WANT(t) 1
#endif
