// Hand-built Q2_K / Q3_K / IQ4_NL blocks and BF16 values decode to the values the GGUF layouts
// define. Expected values are computed the way the layout is usually described (half, group,
// lane loops; Q3_K's scales unpacked through 32-bit masks), independently of clport's per-element
// indexing, plus literal hand-computed spot values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "block_builder.h"
#include "quant/quant.h"

namespace clport {
namespace {

using test::BlockBuilder;

uint8_t pattern(int i, int mul, int add) { return static_cast<uint8_t>((i * mul + add) & 0xff); }

std::vector<float> decode(DType dtype, const BlockBuilder& block, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n), -12345.0f);
  const Status s = dequantize_row(dtype, block.bytes().data(), out.data(), n);
  EXPECT_TRUE(s.ok()) << s.to_string();
  return out;
}

TEST(KnownBlocks, Q2_K) {
  auto scale_byte = [](int i) { return static_cast<uint8_t>(((i * 3 + 1) & 15) | (((i * 5 + 2) & 15) << 4)); };
  BlockBuilder b;
  for (int i = 0; i < 16; ++i) b.u8(scale_byte(i));
  for (int i = 0; i < 64; ++i) b.u8(pattern(i, 7, 3));
  b.half_bits(test::kHalfOne).half_bits(test::kHalfHalf);  // d = 1, dmin = 0.5
  ASSERT_EQ(b.size(), 84u);
  const auto y = decode(DType::Q2_K, b, 256);
  for (int n = 0; n < 2; ++n) {
    for (int j = 0; j < 4; ++j) {
      for (int l = 0; l < 32; ++l) {
        const uint8_t sc = scale_byte(8 * n + 2 * j + l / 16);
        const int q = (pattern(32 * n + l, 7, 3) >> (2 * j)) & 3;
        const int e = 128 * n + 32 * j + l;
        EXPECT_EQ(y[e], static_cast<float>((sc & 15) * q) - 0.5f * static_cast<float>(sc >> 4)) << e;
      }
    }
  }
  EXPECT_EQ(y[0], 2.0f);     // scales[0] = 0x21, qs[0] = 3: 1 * 3 - 0.5 * 2
  EXPECT_EQ(y[255], 21.5f);  // scales[15] = 0xDE, qs[63] = 0xBC >> 6 = 2: 14 * 2 - 0.5 * 13
}

// Q3_K's 16 scales from the 12 packed bytes, unpacked as whole 32-bit words.
void unpack_q3_scales_by_words(const uint8_t* p, int8_t out[16]) {
  uint32_t aux[4];
  std::memcpy(aux, p, 12);
  const uint32_t tmp = aux[2];
  constexpr uint32_t kLow4 = 0x0f0f0f0f, kLow2 = 0x03030303;
  aux[2] = ((aux[0] >> 4) & kLow4) | (((tmp >> 4) & kLow2) << 4);
  aux[3] = ((aux[1] >> 4) & kLow4) | (((tmp >> 6) & kLow2) << 4);
  aux[0] = (aux[0] & kLow4) | (((tmp >> 0) & kLow2) << 4);
  aux[1] = (aux[1] & kLow4) | (((tmp >> 2) & kLow2) << 4);
  uint8_t bytes[16];
  std::memcpy(bytes, aux, 16);
  for (int i = 0; i < 16; ++i) out[i] = static_cast<int8_t>(bytes[i] - 32);
}

TEST(KnownBlocks, Q3_K) {
  BlockBuilder b;
  for (int l = 0; l < 32; ++l) b.u8(pattern(l, 37, 11));
  for (int i = 0; i < 64; ++i) b.u8(pattern(i, 7, 3));
  for (int i = 0; i < 12; ++i) b.u8(pattern(i, 53, 17));
  b.half_bits(test::kHalfHalf);  // d = 0.5
  ASSERT_EQ(b.size(), 110u);
  int8_t scales[16];
  unpack_q3_scales_by_words(b.bytes().data() + 96, scales);
  const auto y = decode(DType::Q3_K, b, 256);
  int mask = 1;  // hmask bit, moving on with every 32-element group
  for (int n = 0; n < 2; ++n) {
    for (int j = 0; j < 4; ++j, mask <<= 1) {
      for (int l = 0; l < 32; ++l) {
        const int low = (pattern(32 * n + l, 7, 3) >> (2 * j)) & 3;
        const int q = low - ((pattern(l, 37, 11) & mask) ? 0 : 4);
        const int e = 128 * n + 32 * j + l;
        EXPECT_EQ(y[e], 0.5f * static_cast<float>(scales[8 * n + 2 * j + l / 16] * q)) << e;
      }
    }
  }
  // Scale 0: byte 0 = 17 (low nibble 1), byte 8 = 185 (bits 0-1 = 1): 17 - 32 = -15.
  EXPECT_EQ(scales[0], -15);
  // Element 0: qs[0] = 3 -> low bits 3; hmask[0] = 11, bit 0 set -> q = 3: 0.5 * -15 * 3.
  EXPECT_EQ(y[0], -22.5f);
}

TEST(KnownBlocks, IQ4_NL) {
  constexpr float kTable[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
  BlockBuilder b;
  b.half_bits(test::kHalfTwo);  // d = 2
  for (int j = 0; j < 16; ++j) b.u8(pattern(j, 11, 5));
  ASSERT_EQ(b.size(), 18u);
  const auto y = decode(DType::IQ4_NL, b, 32);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], 2.0f * kTable[pattern(j, 11, 5) & 15]) << j;
    EXPECT_EQ(y[j + 16], 2.0f * kTable[pattern(j, 11, 5) >> 4]) << j;
  }
  EXPECT_EQ(y[0], -70.0f);    // qs[0] = 0x05: code 5 = -35
  EXPECT_EQ(y[16], -254.0f);  // high nibble 0: -127
  EXPECT_EQ(y[15], 50.0f);    // qs[15] = 0xAA: code 10 = 25
  EXPECT_EQ(y[31], 50.0f);
}

TEST(KnownBlocks, BF16) {
  BlockBuilder b;
  b.half_bits(0x3f80).half_bits(0xc000).half_bits(0x4049).half_bits(0x7f80).half_bits(0x0001);
  const auto y = decode(DType::BF16, b, 5);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], -2.0f);
  EXPECT_EQ(y[2], 3.140625f);
  EXPECT_EQ(y[3], std::numeric_limits<float>::infinity());
  EXPECT_EQ(y[4], std::ldexp(1.0f, -133));  // the smallest bf16 subnormal
}

TEST(KnownBlocks, BF16RoundsToNearestEven) {
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties go to the even mantissa (1.0); 1 + 3*2^-8
  // lies halfway between 1 + 2^-7 and 1 + 2^-6: even is 1 + 2^-6. Just above half rounds up.
  const float x[4] = {1.00390625f, 1.01171875f, std::nextafter(1.00390625f, 2.0f), -0.0f};
  uint8_t out[8];
  ASSERT_TRUE(quantize_row(DType::BF16, x, out, 4).ok());
  float y[4];
  ASSERT_TRUE(dequantize_row(DType::BF16, out, y, 4).ok());
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], 1.015625f);
  EXPECT_EQ(y[2], 1.0078125f);
  EXPECT_TRUE(std::signbit(y[3]));
  // NaN stays NaN (rounding its payload could otherwise carry it into infinity).
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ASSERT_TRUE(quantize_row(DType::BF16, &nan, out, 1).ok());
  ASSERT_TRUE(dequantize_row(DType::BF16, out, y, 1).ok());
  EXPECT_TRUE(std::isnan(y[0]));
}

}  // namespace
}  // namespace clport
