#include "cpu_backend/scalar_reference.h"

#include <vector>

#include "quant/quant.h"
#include "cpu_backend/activation_blocks.h"

namespace clport::fastcpu {

void dequantize_activation_row(DType weight, const uint8_t* row, int64_t k, float* out) {
  if (activation_layout(weight) == ActivationLayout::kQ8BlockK) {
    const auto* blocks = reinterpret_cast<const Q8BlockK*>(row);
    for (int64_t i = 0; i < k; ++i) out[i] = blocks[i / 256].d * blocks[i / 256].qs[i % 256];
  } else {
    const auto* blocks = reinterpret_cast<const Q8Block32*>(row);
    for (int64_t i = 0; i < k; ++i) out[i] = blocks[i / 32].d * blocks[i / 32].qs[i % 32];
  }
}

void scalar_dot_tile_quantized(DType dtype, int64_t k, const uint8_t* w, int64_t w_stride,
                               int64_t n_w, const uint8_t* acts, int64_t act_stride, int64_t n_acts,
                               float* out, int64_t out_stride) {
  std::vector<float> weight(static_cast<size_t>(k)), act(static_cast<size_t>(k));
  for (int64_t n = 0; n < n_w; ++n) {
    // The caller validated dtype and k, so decoding cannot fail.
    static_cast<void>(dequantize_row(dtype, w + n * w_stride, weight.data(), k));
    for (int64_t r = 0; r < n_acts; ++r) {
      dequantize_activation_row(dtype, acts + r * act_stride, k, act.data());
      double sum = 0.0;
      for (int64_t i = 0; i < k; ++i) sum += static_cast<double>(weight[i]) * act[i];
      out[r * out_stride + n] = static_cast<float>(sum);
    }
  }
}

}  // namespace clport::fastcpu
