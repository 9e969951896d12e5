// CPU quantize / dequantize for every GGUF block format clport knows, bit-exact with the GGUF
// layouts (so weights written by any GGUF tool decode to the same numbers here), plus IEEE
// half <-> float.
#pragma once

#include <cstdint>

#include "common/dtype.h"
#include "clport/export.h"
#include "clport/status.h"

namespace clport {

CLPORT_API float half_to_float(uint16_t h);
CLPORT_API uint16_t float_to_half(float f);  // round to nearest even, handles inf/nan/subnormal

// Dequantize n elements (n a multiple of the block size) from `src` (blocks of `dtype`) to
// `dst`. F32/F16 are accepted as well. InvalidArgument on a bad n or an unknown dtype.
CLPORT_API Status dequantize_row(DType dtype, const void* src, float* dst, int64_t n);

// Quantize n floats into blocks of `dtype`: round-to-nearest for the 32-element formats and a
// per-sub-block scale search for the K-quants. Any GGUF reader decodes the result; the bytes are
// not guaranteed identical to other quantizers' output (their scale searches differ).
CLPORT_API Status quantize_row(DType dtype, const float* src, void* dst, int64_t n);

}  // namespace clport
