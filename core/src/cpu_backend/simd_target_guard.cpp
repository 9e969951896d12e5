// Highway 1.0.3 (Debian 12) compiles its AVX3_DL target with `avxvnni`, the VEX-encoded VNNI of
// Alder Lake / Sapphire Rapids, but picks that target on any CPU with AVX-512 VNNI. GCC then
// emits VEX vpdpwssd in auto-vectorised loops of those kernels, an illegal instruction on CPUs
// that have AVX-512 VNNI without AVX-VNNI (Intel Ice Lake / Cascade Lake servers, AMD Zen 4):
// the first fast-CPU mat-mul died with SIGILL there. On such CPUs the target is turned off before
// anything dispatches (at library load), so those machines run the AVX3 kernels instead.
#include <hwy/targets.h>

#include "cpu_backend/simd_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace clport::fastcpu {
namespace {

bool cpu_lacks_avx_vnni() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_count(7, 1, &a, &b, &c, &d) == 0) return true;
  return (a & (1u << 4)) == 0;  // CPUID.(EAX=7, ECX=1):EAX bit 4 is AVX-VNNI
#else
  return false;
#endif
}

// At library load, so that no kernel can dispatch before it.
const bool avx_vnni_guard_at_load = (use_safe_simd_targets(), true);

}  // namespace

// Applied again on every call (not once): a test that resets Highway's target mock
// (SetSupportedTargetsForTest) brings the target back.
void use_safe_simd_targets() {
  static const bool lacks_avx_vnni = cpu_lacks_avx_vnni();
  if (lacks_avx_vnni) hwy::DisableTargets(HWY_AVX3_DL);
}

}  // namespace clport::fastcpu
