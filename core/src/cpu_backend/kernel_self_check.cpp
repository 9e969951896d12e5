#include "cpu_backend/kernel_self_check.h"

#include <hwy/targets.h>

#include <cmath>
#include <mutex>
#include <vector>

#include "common/logger.h"
#include "common/nmse.h"
#include "quant/quant.h"
#include "cpu_backend/scalar_reference.h"
#include "cpu_backend/simd_kernels.h"

namespace clport::fastcpu {
namespace {

constexpr DType kChecked[] = {DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1,
                              DType::Q8_0, DType::Q4_K, DType::Q5_K, DType::Q6_K};

// A deterministic pseudo-random value in [-1, 1) (no <random>: the same numbers everywhere).
float value(uint32_t i) {
  uint32_t x = i * 2654435761u + 12345u;
  x ^= x >> 15;
  x *= 2246822519u;
  x ^= x >> 13;
  return static_cast<float>(x & 0xffff) / 32768.0f - 1.0f;
}

// The dtypes whose kernels disagree with the scalar reference on the current target.
std::string failing_dtypes() {
  constexpr int64_t k = 512, n = 5, m = 3;  // a multiple of 256: every dtype can use it
  std::string failed;
  std::vector<float> w(static_cast<size_t>(k * n)), a(static_cast<size_t>(k * m));
  for (size_t i = 0; i < w.size(); ++i) w[i] = value(static_cast<uint32_t>(i));
  for (size_t i = 0; i < a.size(); ++i) a[i] = value(static_cast<uint32_t>(i + 100000));
  for (const DType dtype : kChecked) {
    const int64_t rb = *row_bytes(dtype, k);
    std::vector<uint8_t> wq(static_cast<size_t>(rb * n));
    for (int64_t r = 0; r < n; ++r) {
      static_cast<void>(quantize_row(dtype, w.data() + r * k, wq.data() + r * rb, k));
    }
    const ActivationLayout layout = activation_layout(dtype);
    const int64_t ab = activation_row_bytes(layout, k);
    std::vector<uint8_t> aq(static_cast<size_t>(ab * m));
    for (int64_t r = 0; r < m; ++r) {
      uint8_t* row = aq.data() + r * ab;
      if (layout == ActivationLayout::kQ8BlockK) {
        quantize_row_q8_block_k(a.data() + r * k, k, reinterpret_cast<Q8BlockK*>(row));
      } else {
        quantize_row_q8_block32(a.data() + r * k, k, reinterpret_cast<Q8Block32*>(row));
      }
    }
    std::vector<float> got(static_cast<size_t>(n * m)), want(got.size());
    dot_tile_quantized(dtype, k, wq.data(), rb, n, aq.data(), ab, m, got.data(), n);
    scalar_dot_tile_quantized(dtype, k, wq.data(), rb, n, aq.data(), ab, m, want.data(), n);
    bool ok = nmse(want.data(), got.data(), want.size()) < 1e-6;
    // The prompt kernels, where this target has them for the dtype.
    if (const int64_t sub = prompt_sub_values(dtype); sub > 0) {
      std::vector<float> sums(static_cast<size_t>(m * (k / sub)));
      prompt_activation_sums(dtype, k, aq.data(), ab, m, sums.data());
      dot_tile_quantized_prompt(dtype, k, wq.data(), rb, n, aq.data(), ab, m,
                                layout == ActivationLayout::kQ8BlockK ? sums.data() : nullptr,
                                got.data(), n);
      ok = ok && nmse(want.data(), got.data(), want.size()) < 1e-6;
    }
    if (!ok) failed += (failed.empty() ? "" : ", ") + std::string(dtype_name(dtype));
  }
  return failed;
}

}  // namespace

void check_simd_kernels_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    use_safe_simd_targets();
    for (;;) {
      const std::string target = simd_target_name();
      const std::string failed = failing_dtypes();
      if (failed.empty()) return;
      const auto targets = simd_targets_available();
      logger("cpu")->warn(
          "CPU backend: the {} mat-mul kernels disagree with the scalar reference ({}); "
          "switching that instruction set off",
          target, failed);
      if (targets.size() <= 1) return;  // the scalar fallback is the reference itself
      hwy::DisableTargets(targets.front());
    }
  });
}

}  // namespace clport::fastcpu
