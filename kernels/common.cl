// Prepended to every clport kernel program. Tensors reach kernels as (global uchar* buffer,
// ulong byte offset) pairs, so any sub-allocation offset works without sub-buffers.
#define CLPORT_AT(type, base, off) ((type)((base) + (off)))
