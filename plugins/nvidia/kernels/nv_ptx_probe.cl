// Does this driver take inline PTX, and compute with it? Built and run once when the plugin
// creates an instance (the program cache keeps the binary): dp4a of bytes (1, 2, 3, 4) with
// (1, -1, 2, -2) plus 5 must give 1 - 2 + 6 - 8 + 5 = 2. Only the NVIDIA driver accepts the
// instruction; any other compiler fails the build, and the plugin's kernels keep plain OpenCL C.
kernel void nv_ptx_probe(global int* out, uint a, int b, int c) {
  int d;
  __asm__ __volatile__("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  out[get_global_id(0)] = d;
}
