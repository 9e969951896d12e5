// Negative control for conformance.generic.oclgrind: loaded through CLPORT_KERNEL_DIR in place of
// kernels/elementwise.cl, it plants one defect of each kind the oclgrind test must catch in
// scale_f32 (the only kernel the control runs). The result stays numerically right, so only
// oclgrind's reports can reveal them.

#ifndef ELT_WG
#define ELT_WG 64
#endif

kernel __attribute__((reqd_work_group_size(ELT_WG, 1, 1))) void scale_f32(
    const global uchar* a, ulong a_off, global uchar* dst, ulong dst_off, uint n, float s) {
  local float never_written[ELT_WG];
  local float every_item_writes;
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const global float* x = CLPORT_AT(const global float*, a, a_off);
  // Uninitialised read: a local slot no work-item stored, used in a branch.
  const float junk = never_written[get_local_id(0)];
  float y = x[i] * s;
  if (junk != junk) y = x[i] * s;
  // Out-of-bounds read: far past the end of the input buffer.
  const float far = x[i + (1u << 24)];
  // Data race: every work-item stores a different value to one local word, without a barrier.
  every_item_writes = x[i] + far;
  CLPORT_AT(global float*, dst, dst_off)[i] = y;
}
