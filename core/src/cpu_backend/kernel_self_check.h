// A start-up check of the SIMD mat-mul kernels on the instruction set this CPU picked: a few
// small products of every quantized dtype against the plain scalar reference. Some targets
// (AVX-512, AVX512-VNNI) could only be compiled, not run, where this backend was developed; if
// one of them computes wrong numbers on a user's CPU, it is switched off (the next best target
// takes over) with a warning, instead of silently producing wrong text.
#pragma once

namespace clport::fastcpu {

// Runs once per process; later calls return at once.
void check_simd_kernels_once();

}  // namespace clport::fastcpu
