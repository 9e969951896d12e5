// Included first by every Highway kernel file (simd_*_kernels.cpp): they must be compiled with
// optimisation, whatever the build type.
//
// Why: HWY_DYNAMIC_DISPATCH indexes a file's function table through ChosenTarget::GetIndex(), an
// inline function that masks the chosen target with the HWY_TARGETS of the file it is compiled
// in. Without optimisation HWY_INLINE is plain `inline`, so the linker keeps one out-of-line copy
// for every file; the kernel files compile different target sets (the op kernels add SVE, the
// mat-mul kernels add AVX3_DL), and a file whose set lacks the chosen target then calls an empty
// slot of its table (a jump to address 0 on the first mat-mul). With optimisation HWY_INLINE
// forces inlining and each file masks with its own set. core/CMakeLists.txt adds -O1 to these
// files in Debug builds, cmake/FuzzCore.cmake in the fuzz build.
#ifndef CLPORT_CPU_BACKEND_SIMD_KERNEL_BUILD_H_
#define CLPORT_CPU_BACKEND_SIMD_KERNEL_BUILD_H_
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__OPTIMIZE__)
#error "the Highway kernel files need -O1 or higher (see simd_kernel_build.h)"
#endif
#endif  // CLPORT_CPU_BACKEND_SIMD_KERNEL_BUILD_H_
