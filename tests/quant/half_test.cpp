// IEEE half <-> float conversion: exact values, rounding ties, subnormals, overflow, inf, nan.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "quant/quant.h"

namespace clport {
namespace {

TEST(Half, KnownValuesDecode) {
  EXPECT_EQ(half_to_float(0x0000), 0.0f);
  EXPECT_TRUE(std::signbit(half_to_float(0x8000)));
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0xbc00), -1.0f);
  EXPECT_EQ(half_to_float(0x3800), 0.5f);
  EXPECT_EQ(half_to_float(0x4248), 3.140625f);
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(half_to_float(0x83ff), -1023.0f * std::ldexp(1.0f, -24));
  EXPECT_EQ(half_to_float(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(half_to_float(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(half_to_float(0x7e00)));
  EXPECT_TRUE(std::isnan(half_to_float(0x7c01)));  // signalling-pattern nan stays nan
}

TEST(Half, KnownValuesEncode) {
  EXPECT_EQ(float_to_half(0.0f), 0x0000);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -14)), 0x0400);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(float_to_half(1023.0f * std::ldexp(1.0f, -24)), 0x03ff);
}

TEST(Half, RoundsToNearestEven) {
  const float ulp = std::ldexp(1.0f, -10);                   // half spacing in [1, 2)
  EXPECT_EQ(float_to_half(1.0f + ulp / 2), 0x3c00);          // tie, even stays
  EXPECT_EQ(float_to_half(1.0f + 3 * ulp / 2), 0x3c02);      // tie, odd rounds up
  EXPECT_EQ(float_to_half(1.0f + ulp / 2 + 1e-6f), 0x3c01);  // just above a tie
  EXPECT_EQ(float_to_half(1.0f + ulp / 2 - 1e-6f), 0x3c00);  // just below a tie
  EXPECT_EQ(float_to_half(-(1.0f + 3 * ulp / 2)), 0xbc02);
  // Carry out of the mantissa into the exponent: just under 2 rounds to 2.
  EXPECT_EQ(float_to_half(2.0f - std::ldexp(1.0f, -12)), 0x4000);
}

TEST(Half, SubnormalRounding) {
  const float unit = std::ldexp(1.0f, -24);
  EXPECT_EQ(float_to_half(unit / 2), 0x0000);           // tie between 0 and 1 unit -> 0
  EXPECT_EQ(float_to_half(unit / 2 * 1.001f), 0x0001);  // above the tie
  EXPECT_EQ(float_to_half(unit / 4), 0x0000);
  EXPECT_EQ(float_to_half(3 * unit / 2), 0x0002);  // tie between 1 and 2 -> even
  EXPECT_EQ(float_to_half(5 * unit / 2), 0x0002);  // tie between 2 and 3 -> even
  EXPECT_EQ(float_to_half(-3 * unit / 2), 0x8002);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -30)), 0x0000);
  EXPECT_EQ(float_to_half(-std::ldexp(1.0f, -30)), 0x8000);
  // Largest subnormal + half a unit rounds up into the smallest normal.
  EXPECT_EQ(float_to_half(1023.5f * unit), 0x0400);
}

TEST(Half, OverflowInfAndNan) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(float_to_half(65519.0f), 0x7bff);  // below the tie with 65536
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // tie rounds to even = infinity
  EXPECT_EQ(float_to_half(1e6f), 0x7c00);
  EXPECT_EQ(float_to_half(-1e6f), 0xfc00);
  EXPECT_EQ(float_to_half(inf), 0x7c00);
  EXPECT_EQ(float_to_half(-inf), 0xfc00);
  const uint16_t nan = float_to_half(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
  // A float nan whose payload sits only in the low bits must not turn into infinity.
  uint32_t low_payload_bits = 0x7f800001u;
  float low_payload;
  std::memcpy(&low_payload, &low_payload_bits, sizeof low_payload);
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(low_payload))));
}

TEST(Half, EveryHalfSurvivesARoundTrip) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const float f = half_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f)))) << std::hex << h;
    } else {
      ASSERT_EQ(float_to_half(f), h) << std::hex << h;
    }
  }
}

}  // namespace
}  // namespace clport

namespace clport {
namespace {

TEST(Half, RowConversionMatchesScalarForEveryPattern) {
  // dequantize_row(F16) takes a vectorisable path; it must agree with half_to_float bit for bit.
  std::vector<uint8_t> bytes(2 * 65536);
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    bytes[2 * h] = static_cast<uint8_t>(h & 0xff);
    bytes[2 * h + 1] = static_cast<uint8_t>(h >> 8);
  }
  std::vector<float> row(65536);
  ASSERT_TRUE(dequantize_row(DType::F16, bytes.data(), row.data(), 65536).ok());
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const float want = half_to_float(static_cast<uint16_t>(h));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(row[h])) << std::hex << h;
    } else {
      uint32_t a, b;
      std::memcpy(&a, &want, 4);
      std::memcpy(&b, &row[h], 4);
      ASSERT_EQ(a, b) << std::hex << h;
    }
  }
}

}  // namespace
}  // namespace clport
