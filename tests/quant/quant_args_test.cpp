// Bad arguments to dequantize_row / quantize_row are InvalidArgument, never a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "quant/quant.h"

namespace clport {
namespace {

TEST(QuantArgs, LengthNotAMultipleOfTheBlockIsRejected) {
  std::vector<uint8_t> bytes(4096);
  std::vector<float> f(1024);
  for (DType t : kWeightDTypes) {
    const int64_t bs = traits(t).block_size;
    if (bs == 1) continue;
    for (int64_t n : {bs + 1, bs - 1, int64_t{-static_cast<int64_t>(bs)}}) {
      const Status d = dequantize_row(t, bytes.data(), f.data(), n);
      EXPECT_EQ(d.stage(), Stage::InvalidArgument) << dtype_name(t) << " n=" << n;
      EXPECT_NE(d.message().find("block size"), std::string::npos) << d.message();
      const Status q = quantize_row(t, f.data(), bytes.data(), n);
      EXPECT_EQ(q.stage(), Stage::InvalidArgument) << dtype_name(t) << " n=" << n;
    }
  }
}

TEST(QuantArgs, UnknownAndIntegerDtypesAreRejected) {
  std::vector<uint8_t> bytes(64);
  std::vector<float> f(32);
  EXPECT_EQ(dequantize_row(static_cast<DType>(99), bytes.data(), f.data(), 32).stage(),
            Stage::InvalidArgument);
  EXPECT_EQ(quantize_row(static_cast<DType>(99), f.data(), bytes.data(), 32).stage(),
            Stage::InvalidArgument);
  EXPECT_EQ(dequantize_row(DType::I32, bytes.data(), f.data(), 4).stage(), Stage::InvalidArgument);
}

TEST(QuantArgs, NullBuffersAreRejectedUnlessEmpty) {
  std::vector<float> f(32);
  EXPECT_EQ(dequantize_row(DType::Q4_0, nullptr, f.data(), 32).stage(), Stage::InvalidArgument);
  EXPECT_EQ(quantize_row(DType::Q4_0, f.data(), nullptr, 32).stage(), Stage::InvalidArgument);
  EXPECT_TRUE(dequantize_row(DType::Q4_0, nullptr, nullptr, 0).ok());
}

TEST(QuantArgs, NonFiniteInputToAQuantizerIsRejected) {
  std::vector<float> f(32, 1.0f);
  std::vector<uint8_t> bytes(64);
  f[7] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(quantize_row(DType::Q8_0, f.data(), bytes.data(), 32).stage(), Stage::InvalidArgument);
  f[7] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(quantize_row(DType::Q4_0, f.data(), bytes.data(), 32).stage(), Stage::InvalidArgument);
  // F16 is a conversion, not a quantizer: inf is representable and passes through.
  EXPECT_TRUE(quantize_row(DType::F16, f.data(), bytes.data(), 32).ok());
}

}  // namespace
}  // namespace clport
