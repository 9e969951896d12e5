// The fast CPU backend's activation quantizers: float rows to the 8-bit blocks the integer
// mat-muls read (activation_blocks.h), 32-value blocks with their scale and sum, or 256-value
// blocks with the sums of each run of 16. Highway compiles this file once per instruction set
// (foreach_target.h re-includes it), with the target set of simd_matmul_kernels.cpp.
#include "cpu_backend/simd_kernel_build.h"  // before Highway: see why there
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)
#endif
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu_backend/simd_quantize_kernels.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <cstdint>

#include "cpu_backend/activation_blocks.h"
#include "cpu_backend/simd_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace clport::fastcpu {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

void QuantizeRowQ8Block32(const float* x, int64_t k, Q8Block32* out) {
  const hn::CappedTag<float, 8> df;
  const hn::RebindToSigned<decltype(df)> di32;
  const hn::Rebind<int8_t, decltype(df)> di8;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  for (int64_t b = 0; b < k / 32; ++b) {
    const float* xb = x + 32 * b;
    auto amax = hn::Zero(df);
    for (int64_t i = 0; i < 32; i += lanes) amax = hn::Max(amax, hn::Abs(hn::LoadU(df, xb + i)));
    const float max = hn::GetLane(hn::MaxOfLanes(df, amax));
    const float d = max / 127.0f;
    const float inv = d != 0.0f ? 1.0f / d : 0.0f;
    auto sum = hn::Zero(di32);
    for (int64_t i = 0; i < 32; i += lanes) {
      const auto q = hn::NearestInt(hn::Mul(hn::LoadU(df, xb + i), hn::Set(df, inv)));
      sum = hn::Add(sum, q);
      hn::StoreU(hn::DemoteTo(di8, q), di8, out[b].qs + i);
    }
    out[b].d = d;
    out[b].s = d * static_cast<float>(hn::GetLane(hn::SumOfLanes(di32, sum)));
  }
}

void QuantizeRowQ8BlockK(const float* x, int64_t k, Q8BlockK* out) {
  const hn::CappedTag<float, 16> df;
  const hn::RebindToSigned<decltype(df)> di32;
  const hn::Rebind<int8_t, decltype(df)> di8;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  for (int64_t b = 0; b < k / 256; ++b) {
    const float* xb = x + 256 * b;
    auto amax = hn::Zero(df);
    for (int64_t i = 0; i < 256; i += lanes) amax = hn::Max(amax, hn::Abs(hn::LoadU(df, xb + i)));
    const float max = hn::GetLane(hn::MaxOfLanes(df, amax));
    const float d = max / 127.0f;
    const float inv = d != 0.0f ? 1.0f / d : 0.0f;
    for (int64_t run = 0; run < 16; ++run) {
      auto sum = hn::Zero(di32);
      for (int64_t i = 16 * run; i < 16 * run + 16; i += lanes) {
        const auto q = hn::NearestInt(hn::Mul(hn::LoadU(df, xb + i), hn::Set(df, inv)));
        sum = hn::Add(sum, q);
        hn::StoreU(hn::DemoteTo(di8, q), di8, out[b].qs + i);
      }
      out[b].bsums[run] = static_cast<int16_t>(hn::GetLane(hn::SumOfLanes(di32, sum)));
    }
    out[b].d = d;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace clport::fastcpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace clport::fastcpu {

HWY_EXPORT(QuantizeRowQ8Block32);
HWY_EXPORT(QuantizeRowQ8BlockK);

void quantize_row_q8_block32(const float* x, int64_t k, Q8Block32* out) {
  HWY_DYNAMIC_DISPATCH(QuantizeRowQ8Block32)(x, k, out);
}

void quantize_row_q8_block_k(const float* x, int64_t k, Q8BlockK* out) {
  HWY_DYNAMIC_DISPATCH(QuantizeRowQ8BlockK)(x, k, out);
}

}  // namespace clport::fastcpu
#endif  // HWY_ONCE
