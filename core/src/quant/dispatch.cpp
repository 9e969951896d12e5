// dequantize_row / quantize_row: argument checks, then the block codec for the dtype.
#include <cmath>
#include <cstring>
#include <string>

#include "quant/quant_blocks.h"

namespace clport {
namespace {

using DequantFn = void (*)(const uint8_t*, float*, int64_t);
using QuantFn = void (*)(const float*, uint8_t*, int64_t);

struct Codec {
  DequantFn dequant;
  QuantFn quant;
};

// Block codec for a quantized dtype; {nullptr, nullptr} for the plain types (F32, F16, BF16).
Codec codec_for(DType dtype) {
  switch (dtype) {
    case DType::Q4_0: return {quant::dequant_q4_0, quant::quant_q4_0};
    case DType::Q4_1: return {quant::dequant_q4_1, quant::quant_q4_1};
    case DType::Q5_0: return {quant::dequant_q5_0, quant::quant_q5_0};
    case DType::Q5_1: return {quant::dequant_q5_1, quant::quant_q5_1};
    case DType::Q8_0: return {quant::dequant_q8_0, quant::quant_q8_0};
    case DType::Q4_K: return {quant::dequant_q4_k, quant::quant_q4_k};
    case DType::Q5_K: return {quant::dequant_q5_k, quant::quant_q5_k};
    case DType::Q6_K: return {quant::dequant_q6_k, quant::quant_q6_k};
    case DType::Q2_K: return {quant::dequant_q2_k, quant::quant_q2_k};
    case DType::Q3_K: return {quant::dequant_q3_k, quant::quant_q3_k};
    case DType::IQ4_NL: return {quant::dequant_iq4_nl, quant::quant_iq4_nl};
    default: return {nullptr, nullptr};
  }
}

// Shared checks; on success *nblocks is the number of blocks covering n elements.
Status check_row(DType dtype, const void* a, const void* b, int64_t n, const char* what,
                 int64_t* nblocks) {
  const auto t = dtype_traits(static_cast<int32_t>(dtype));
  if (!t) {
    return Status(Stage::InvalidArgument, std::string(what) + ": unknown dtype id " +
                                              std::to_string(static_cast<int32_t>(dtype)));
  }
  if (dtype == DType::I32) {
    return Status(Stage::InvalidArgument,
                  std::string(what) + ": i32 is not a floating-point or quantized type");
  }
  if (n < 0 || n % t->block_size != 0) {
    return Status(Stage::InvalidArgument, std::string(what) + ": " + std::to_string(n) +
                                              " elements is not a multiple of the " +
                                              std::string(t->name) + " block size " +
                                              std::to_string(t->block_size));
  }
  if (n > 0 && (a == nullptr || b == nullptr)) {
    return Status(Stage::InvalidArgument, std::string(what) + ": null buffer");
  }
  *nblocks = n / t->block_size;
  return Status::ok_status();
}

}  // namespace

Status dequantize_row(DType dtype, const void* src, float* dst, int64_t n) {
  int64_t nblocks = 0;
  CLPORT_RETURN_IF_ERROR(check_row(dtype, src, dst, n, "dequantize_row", &nblocks));
  if (n == 0) return Status::ok_status();
  if (dtype == DType::F32) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
  } else if (dtype == DType::F16) {
    quant::half_row_to_float(static_cast<const uint8_t*>(src), dst, n);
  } else if (dtype == DType::BF16) {
    quant::bf16_row_to_float(static_cast<const uint8_t*>(src), dst, n);
  } else {
    codec_for(dtype).dequant(static_cast<const uint8_t*>(src), dst, nblocks);
  }
  return Status::ok_status();
}

Status quantize_row(DType dtype, const float* src, void* dst, int64_t n) {
  int64_t nblocks = 0;
  CLPORT_RETURN_IF_ERROR(check_row(dtype, src, dst, n, "quantize_row", &nblocks));
  if (n == 0) return Status::ok_status();
  if (dtype == DType::F32) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
  } else if (dtype == DType::F16) {
    auto* h = static_cast<uint8_t*>(dst);
    for (int64_t i = 0; i < n; ++i) quant::store_u16(h + 2 * i, float_to_half(src[i]));
  } else if (dtype == DType::BF16) {
    quant::float_row_to_bf16(src, static_cast<uint8_t*>(dst), n);
  } else {
    // Scale searches are meaningless on NaN/inf; refuse instead of writing garbage blocks.
    for (int64_t i = 0; i < n; ++i) {
      if (!std::isfinite(src[i])) {
        return Status(Stage::InvalidArgument,
                      "quantize_row: element " + std::to_string(i) + " is not finite");
      }
    }
    codec_for(dtype).quant(src, static_cast<uint8_t*>(dst), nblocks);
  }
  return Status::ok_status();
}

}  // namespace clport
