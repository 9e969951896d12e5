// quantize_row -> dequantize_row keeps Gaussian data within a per-format NMSE bound, and the
// encoders reproduce values that are exactly representable in the format.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/nmse.h"
#include "quant/quant.h"

namespace clport {
namespace {

struct Bound {
  DType dtype;
  double max_nmse;
};

// Bounds sit a little above what round-to-nearest (legacy) and the scale search (K-quants,
// IQ4_NL) reach on unit Gaussian data (Q2_K about 0.073, Q3_K 0.021, IQ4_NL 0.0058, BF16
// 2.7e-6); a layout or packing bug lands orders of magnitude higher.
constexpr Bound kBounds[] = {
    {DType::F16, 1e-6},    {DType::Q4_0, 1.0e-2}, {DType::Q4_1, 8e-3},
    {DType::Q5_0, 2.5e-3}, {DType::Q5_1, 2e-3},   {DType::Q8_0, 5e-5},
    {DType::Q4_K, 7e-3},   {DType::Q5_K, 1.8e-3}, {DType::Q6_K, 4.5e-4},
    {DType::Q2_K, 8.5e-2}, {DType::Q3_K, 2.5e-2}, {DType::IQ4_NL, 6.5e-3},
    {DType::BF16, 4e-6},
};

std::vector<float> gaussian(size_t n, unsigned seed, float mean = 0.0f, float stddev = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(mean, stddev);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

std::vector<float> round_trip(DType dtype, const std::vector<float>& x) {
  const auto n = static_cast<int64_t>(x.size());
  std::vector<uint8_t> blocks(static_cast<size_t>(*row_bytes(dtype, n)));
  const Status q = quantize_row(dtype, x.data(), blocks.data(), n);
  EXPECT_TRUE(q.ok()) << q.to_string();
  std::vector<float> y(x.size());
  const Status d = dequantize_row(dtype, blocks.data(), y.data(), n);
  EXPECT_TRUE(d.ok()) << d.to_string();
  return y;
}

class RoundTrip : public ::testing::TestWithParam<Bound> {};

TEST_P(RoundTrip, GaussianNmseWithinBound) {
  const Bound b = GetParam();
  const auto x = gaussian(4096, 1234);
  const auto y = round_trip(b.dtype, x);
  const double e = nmse(x.data(), y.data(), x.size());
  EXPECT_LT(e, b.max_nmse) << dtype_name(b.dtype);
  EXPECT_GT(e, 0.0) << "a lossy format that loses nothing means the test compares x with x";
  RecordProperty("nmse", std::to_string(e));
}

TEST_P(RoundTrip, ShiftedAndScaledDataWithinBound) {
  // Off-centre data of small magnitude: exercises mins/offsets and tiny half scales.
  const Bound b = GetParam();
  const auto x = gaussian(2048, 99, 0.02f, 0.01f);
  const auto y = round_trip(b.dtype, x);
  // Symmetric formats spend their range on the offset, so allow them more here; the bound
  // still catches any layout error (which gives NMSE near or above 1).
  const double e = nmse(x.data(), y.data(), x.size());
  EXPECT_LT(e, b.max_nmse * 4) << dtype_name(b.dtype);
}

TEST_P(RoundTrip, ZerosStayZero) {
  const Bound b = GetParam();
  const std::vector<float> x(512, 0.0f);
  const auto y = round_trip(b.dtype, x);
  for (float v : y) ASSERT_EQ(v, 0.0f) << dtype_name(b.dtype);
}

INSTANTIATE_TEST_SUITE_P(AllFormats, RoundTrip, ::testing::ValuesIn(kBounds), [](const auto& info) {
  return std::string(dtype_name(info.param.dtype));
});

TEST(RoundTripExact, Q8_0IntegersAreExact) {
  // amax 127 makes d exactly 1, so integer inputs come back bit for bit.
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[i] = static_cast<float>((i * 37) % 255 - 127);
  x[0] = 127.0f;
  x[32] = -127.0f;
  EXPECT_EQ(round_trip(DType::Q8_0, x), x);
}

TEST(RoundTripExact, Q4_0GridIsExact) {
  // Values on the grid (q - 8) * 0.5 with -4 present: d = 0.5 exactly.
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[i] = static_cast<float>(i % 16 - 8) * 0.5f;
  EXPECT_EQ(round_trip(DType::Q4_0, x), x);
}

TEST(RoundTripExact, Q4_1GridIsExact) {
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[i] = 1.0f + static_cast<float>((i * 5) % 16) * 0.25f;
  EXPECT_EQ(round_trip(DType::Q4_1, x), x);
}

TEST(RoundTripExact, Q5_0GridIsExact) {
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[i] = static_cast<float>(i - 16);  // -16 .. 15, d = 1
  EXPECT_EQ(round_trip(DType::Q5_0, x), x);
}

TEST(RoundTripExact, Q5_1GridIsExact) {
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[i] = -2.0f + static_cast<float>((i * 7) % 32) * 0.125f;
  EXPECT_EQ(round_trip(DType::Q5_1, x), x);
}

// K-quants: each sub-block is an integer scale k_s times u = 2^-6 times an integer code pattern
// that spans the format's code range, and the largest k_s is the 6-bit (Q6_K: 8-bit) maximum, so
// the super-block scale is exactly u and every value is representable.
constexpr float kUnit = 1.0f / 64.0f;

TEST(RoundTripExact, Q4_KGridIsExact) {
  constexpr int k[8] = {63, 1, 7, 20, 33, 45, 50, 62};
  std::vector<float> x(256);
  for (int i = 0; i < 256; ++i) x[i] = static_cast<float>(k[i / 32] * ((i * 3) % 16)) * kUnit;
  EXPECT_EQ(round_trip(DType::Q4_K, x), x);
}

TEST(RoundTripExact, Q5_KGridIsExact) {
  constexpr int k[8] = {5, 63, 2, 17, 40, 9, 31, 60};
  std::vector<float> x(256);
  for (int i = 0; i < 256; ++i) x[i] = static_cast<float>(k[i / 32] * ((i * 7) % 32)) * kUnit;
  EXPECT_EQ(round_trip(DType::Q5_K, x), x);
}

TEST(RoundTripExact, Q6_KGridIsExact) {
  constexpr int k[16] = {127, 1, 5, 60, 99, 3, 17, 42, 88, 126, 2, 77, 30, 64, 11, 100};
  std::vector<float> x(256);
  // Codes -32, -28, ..., 28 per sub-block of 16: -32 is the largest magnitude and negative.
  for (int i = 0; i < 256; ++i) x[i] = static_cast<float>(k[i / 16] * (-32 + 4 * (i % 16))) * kUnit;
  EXPECT_EQ(round_trip(DType::Q6_K, x), x);
}

}  // namespace
}  // namespace clport
