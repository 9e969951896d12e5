// Work-group reductions over local memory, for kernels that run one work-group per row.
// WG is the work-group size (a power of two); scratch holds WG floats. Every work-item gets the
// result. Include after defining the kernel's WG macro.

inline float wg_reduce_sum(float v, local float* scratch, uint wg) {
  const uint lid = get_local_id(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint h = wg / 2; h > 0; h >>= 1) {
    if (lid < h) scratch[lid] += scratch[lid + h];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float r = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);  // scratch may be reused right away
  return r;
}

inline float wg_reduce_max(float v, local float* scratch, uint wg) {
  const uint lid = get_local_id(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint h = wg / 2; h > 0; h >>= 1) {
    if (lid < h) scratch[lid] = fmax(scratch[lid], scratch[lid + h]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float r = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}
