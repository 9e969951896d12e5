// Hand-built Q4_0 / Q4_1 / Q5_0 / Q5_1 / Q8_0 blocks decode to the values the GGUF layout
// defines. Expected values come from the layout formulas written out here plus literal
// hand-computed spot values.
#include <gtest/gtest.h>

#include <vector>

#include "block_builder.h"
#include "quant/quant.h"

namespace clport {
namespace {

using test::BlockBuilder;

std::vector<float> decode(DType dtype, const BlockBuilder& block, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n), -12345.0f);
  const Status s = dequantize_row(dtype, block.bytes().data(), out.data(), n);
  EXPECT_TRUE(s.ok()) << s.to_string();
  return out;
}

// The 5-bit formats share these: qh bit j is the fifth bit of element j.
constexpr uint32_t kQh = 0xA5A5F00Fu;
uint8_t qs5(int j) { return static_cast<uint8_t>(j | ((15 - j) << 4)); }
int q5(int e) {
  const int nibble = e < 16 ? (qs5(e) & 15) : (qs5(e - 16) >> 4);
  return nibble | static_cast<int>(((kQh >> e) & 1u) << 4);
}

TEST(KnownBlocks, Q4_0) {
  BlockBuilder b;
  b.half_bits(test::kHalfHalf);
  for (int j = 0; j < 16; ++j) b.u8(static_cast<uint8_t>(j | ((15 - j) << 4)));
  ASSERT_EQ(b.size(), 18u);
  const auto y = decode(DType::Q4_0, b, 32);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], (j - 8) * 0.5f) << j;              // low nibble of byte j
    EXPECT_EQ(y[j + 16], ((15 - j) - 8) * 0.5f) << j;  // high nibble of byte j
  }
  EXPECT_EQ(y[0], -4.0f);
  EXPECT_EQ(y[15], 3.5f);
  EXPECT_EQ(y[16], 3.5f);
  EXPECT_EQ(y[31], -4.0f);
}

TEST(KnownBlocks, Q4_1) {
  BlockBuilder b;
  b.half_bits(test::kHalfQuarter).half_bits(test::kHalfMinusOne);  // d = 0.25, m = -1
  for (int j = 0; j < 16; ++j) b.u8(static_cast<uint8_t>(((3 * j) & 15) | (((j + 5) & 15) << 4)));
  ASSERT_EQ(b.size(), 20u);
  const auto y = decode(DType::Q4_1, b, 32);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], ((3 * j) & 15) * 0.25f - 1.0f) << j;
    EXPECT_EQ(y[j + 16], ((j + 5) & 15) * 0.25f - 1.0f) << j;
  }
  EXPECT_EQ(y[5], 2.75f);   // low nibble 15
  EXPECT_EQ(y[6], -0.5f);   // low nibble 18 & 15 = 2
  EXPECT_EQ(y[27], -1.0f);  // high nibble of byte 11: 16 & 15 = 0
}

TEST(KnownBlocks, Q5_0) {
  BlockBuilder b;
  b.half_bits(test::kHalfOne).u32(kQh);
  for (int j = 0; j < 16; ++j) b.u8(qs5(j));
  ASSERT_EQ(b.size(), 22u);
  const auto y = decode(DType::Q5_0, b, 32);
  for (int e = 0; e < 32; ++e) EXPECT_EQ(y[e], static_cast<float>(q5(e) - 16)) << e;
  EXPECT_EQ(y[0], 0.0f);    // nibble 0, fifth bit 1
  EXPECT_EQ(y[4], -12.0f);  // nibble 4, fifth bit 0
  EXPECT_EQ(y[12], 12.0f);  // nibble 12, fifth bit 1
  EXPECT_EQ(y[16], 15.0f);  // high nibble 15 of byte 0, fifth bit 1
  EXPECT_EQ(y[17], -2.0f);  // high nibble 14 of byte 1, fifth bit 0
  EXPECT_EQ(y[31], 0.0f);   // high nibble 0 of byte 15, fifth bit 1
}

TEST(KnownBlocks, Q5_1) {
  BlockBuilder b;
  b.half_bits(test::kHalfHalf).half_bits(test::kHalfTwo).u32(kQh);  // d = 0.5, m = 2
  for (int j = 0; j < 16; ++j) b.u8(qs5(j));
  ASSERT_EQ(b.size(), 24u);
  const auto y = decode(DType::Q5_1, b, 32);
  for (int e = 0; e < 32; ++e) EXPECT_EQ(y[e], q5(e) * 0.5f + 2.0f) << e;
  EXPECT_EQ(y[0], 10.0f);
  EXPECT_EQ(y[4], 4.0f);
  EXPECT_EQ(y[16], 17.5f);
  EXPECT_EQ(y[17], 9.0f);
}

TEST(KnownBlocks, Q8_0) {
  BlockBuilder b;
  b.half_bits(test::kHalfQuarter);
  for (int j = 0; j < 32; ++j) b.u8(static_cast<uint8_t>(static_cast<int8_t>(j * 8 - 128)));
  ASSERT_EQ(b.size(), 34u);
  const auto y = decode(DType::Q8_0, b, 32);
  for (int j = 0; j < 32; ++j) EXPECT_EQ(y[j], static_cast<float>(2 * j - 32)) << j;
  EXPECT_EQ(y[0], -32.0f);
  EXPECT_EQ(y[31], 30.0f);
}

TEST(KnownBlocks, TwoBlocksAreIndependent) {
  // Block 0: d = 1, all codes 8 (zero); block 1: d = 2, all codes 9 (+2).
  BlockBuilder b;
  b.half_bits(test::kHalfOne);
  for (int j = 0; j < 16; ++j) b.u8(0x88);
  b.half_bits(test::kHalfTwo);
  for (int j = 0; j < 16; ++j) b.u8(0x99);
  const auto y = decode(DType::Q4_0, b, 64);
  for (int j = 0; j < 32; ++j) EXPECT_EQ(y[j], 0.0f);
  for (int j = 32; j < 64; ++j) EXPECT_EQ(y[j], 2.0f);
}

TEST(KnownBlocks, F16RowDecodes) {
  BlockBuilder b;
  b.half_bits(test::kHalfOne).half_bits(test::kHalfMinusOne).half_bits(0x7bff);
  const auto y = decode(DType::F16, b, 3);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], -1.0f);
  EXPECT_EQ(y[2], 65504.0f);
}

}  // namespace
}  // namespace clport
