// The plain scalar meaning of the fast CPU backend's quantized mat-mul: weights decoded by the
// GGUF dequantizer, activations decoded from their 8-bit blocks (d * q), products summed in
// double. It is what the SIMD kernels are tested against (they must agree to 1e-6 NMSE, any
// larger difference is a bug, not rounding) and what the HWY_SCALAR target runs.
#pragma once

#include <cstdint>

#include "common/dtype.h"

namespace clport::fastcpu {

// Same contract as dot_tile_quantized (simd_kernels.h).
void scalar_dot_tile_quantized(DType dtype, int64_t k, const uint8_t* w, int64_t w_stride,
                               int64_t n_w, const uint8_t* acts, int64_t act_stride, int64_t n_acts,
                               float* out, int64_t out_stride);

// The floats an activation row quantized for `weight` stands for (d * q per value).
void dequantize_activation_row(DType weight, const uint8_t* row, int64_t k, float* out);

}  // namespace clport::fastcpu
