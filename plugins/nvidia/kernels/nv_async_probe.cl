// Do asynchronous copies (cp.async) and matrix loads (ldmatrix) build on this driver, with local
// pointers turned into shared-window addresses as nv_ptx.cl turns them, and move the right words?
// Built behind nv_ptx.cl with NV_PTX=1 NV_ASYNC=1 and run once per plugin instance on a device of
// compute capability 8.0 or newer, one warp: lane l copies input row l to local row l ^ 7, then
// points ldmatrix at the row holding input l, plain (out[l]) and transposed (out[32 + l]). Lane l
// must get word l % 4 of input row 8q + l / 4 in component q, and transposed the 16-bit values l / 4
// of input rows 8q + 2 (l % 4) and the next (ptx_probe.cpp checks every word).
// clport-requires: nv_ptx.cl
#if defined(NV_ASYNC) && NV_ASYNC
kernel __attribute__((reqd_work_group_size(32, 1, 1))) void nv_async_probe(const global uint4* in, global uint4* out) {
  local uint4 rows[32];
  const int l = get_local_id(0);
  nv_copy16_async(rows + (l ^ 7), in + l);
  nv_async_commit();
  nv_async_wait(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[l] = nv_ldmatrix_x4(rows + (l ^ 7));
  out[32 + l] = nv_ldmatrix_x4_trans(rows + (l ^ 7));
}
#endif
