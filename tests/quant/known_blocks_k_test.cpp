// Hand-built Q4_K / Q5_K / Q6_K super-blocks decode to the values the GGUF layout defines. The
// 12 packed scale bytes are literal values worked out by hand from the packing rule; expected
// elements come from the layout formulas plus literal hand-computed spot values.
#include <gtest/gtest.h>

#include <vector>

#include "block_builder.h"
#include "quant/quant.h"

namespace clport {
namespace {

using test::BlockBuilder;

// 6-bit scales and mins of the 8 sub-blocks, chosen so that sub-blocks 4-7 need the high bits.
constexpr int kSc[8] = {1, 2, 3, 4, 17, 33, 50, 63};
constexpr int kM[8] = {0, 5, 10, 63, 20, 35, 48, 1};
// Packing: byte j<4 = sc[j] | (sc[j+4]>>4)<<6; byte 4+j = m[j] | (m[j+4]>>4)<<6;
// byte 8+j = (sc[j+4] & 15) | (m[j+4] & 15) << 4.
constexpr uint8_t kPackedScales[12] = {65, 130, 195, 196, 64, 133, 202, 63, 65, 49, 2, 31};

uint8_t qs_k(int i) { return static_cast<uint8_t>((i * 7 + 3) & 0xff); }
uint8_t qh_q5k(int l) { return static_cast<uint8_t>((l * 37 + 11) & 0xff); }

int nibble_k(int e) {
  const int s = e / 32, l = e % 32;
  const uint8_t byte = qs_k(32 * (s / 2) + l);
  return (s & 1) ? (byte >> 4) : (byte & 15);
}

std::vector<float> decode(DType dtype, const BlockBuilder& block) {
  std::vector<float> out(256, -12345.0f);
  const Status s = dequantize_row(dtype, block.bytes().data(), out.data(), 256);
  EXPECT_TRUE(s.ok()) << s.to_string();
  return out;
}

TEST(KnownBlocks, Q4_K) {
  BlockBuilder b;
  b.half_bits(test::kHalfOne).half_bits(test::kHalfHalf);  // d = 1, dmin = 0.5
  for (uint8_t v : kPackedScales) b.u8(v);
  for (int i = 0; i < 128; ++i) b.u8(qs_k(i));
  ASSERT_EQ(b.size(), 144u);
  const auto y = decode(DType::Q4_K, b);
  for (int e = 0; e < 256; ++e) {
    const int s = e / 32;
    EXPECT_EQ(y[e], static_cast<float>(kSc[s] * nibble_k(e)) - 0.5f * kM[s]) << e;
  }
  EXPECT_EQ(y[0], 3.0f);      // sub-block 0, qs[0] = 3 low nibble
  EXPECT_EQ(y[40], 3.5f);     // sub-block 1: 2 * (0x3B >> 4) - 0.5 * 5
  EXPECT_EQ(y[200], 526.0f);  // sub-block 6: 50 * (0xDB & 15) - 0.5 * 48
  EXPECT_EQ(y[255], 440.5f);  // sub-block 7: 63 * (0x7C >> 4) - 0.5 * 1
}

TEST(KnownBlocks, Q5_K) {
  BlockBuilder b;
  b.half_bits(test::kHalfOne).half_bits(test::kHalfHalf);
  for (uint8_t v : kPackedScales) b.u8(v);
  for (int l = 0; l < 32; ++l) b.u8(qh_q5k(l));
  for (int i = 0; i < 128; ++i) b.u8(qs_k(i));
  ASSERT_EQ(b.size(), 176u);
  const auto y = decode(DType::Q5_K, b);
  for (int e = 0; e < 256; ++e) {
    const int s = e / 32, l = e % 32;
    const int q = nibble_k(e) | (((qh_q5k(l) >> s) & 1) << 4);
    EXPECT_EQ(y[e], static_cast<float>(kSc[s] * q) - 0.5f * kM[s]) << e;
  }
  EXPECT_EQ(y[0], 19.0f);      // qh[0] = 0x0B, bit 0 set: q = 3 + 16
  EXPECT_EQ(y[255], 1448.5f);  // qh[31] = 0x86, bit 7 set: q = 7 + 16 -> 63 * 23 - 0.5
}

TEST(KnownBlocks, Q6_K) {
  auto ql = [](int i) { return static_cast<uint8_t>((i * 5 + 1) & 0xff); };
  auto qh = [](int i) { return static_cast<uint8_t>((i * 29 + 7) & 0xff); };
  auto scale = [](int s) { return s * 9 - 70; };
  BlockBuilder b;
  for (int i = 0; i < 128; ++i) b.u8(ql(i));
  for (int i = 0; i < 64; ++i) b.u8(qh(i));
  for (int s = 0; s < 16; ++s) b.u8(static_cast<uint8_t>(static_cast<int8_t>(scale(s))));
  b.half_bits(test::kHalfQuarter);  // d = 0.25
  ASSERT_EQ(b.size(), 210u);
  const auto y = decode(DType::Q6_K, b);
  for (int e = 0; e < 256; ++e) {
    const int half = e / 128, k = (e % 128) / 32, l = e % 32;
    const uint8_t low_byte = ql(64 * half + l + 32 * (k & 1));
    const int low = k < 2 ? (low_byte & 15) : (low_byte >> 4);
    const int high = (qh(32 * half + l) >> (2 * k)) & 3;
    EXPECT_EQ(y[e], 0.25f * static_cast<float>(scale(e / 16) * ((low | (high << 4)) - 32))) << e;
  }
  EXPECT_EQ(y[0], -297.5f);     // q = 1 | 3<<4 = 49 -> 17; scale -70
  EXPECT_EQ(y[100], 20.0f);     // q = 11 | 1<<4 = 27 -> -5; scale -16
  EXPECT_EQ(y[130], -2.5f);     // q = 11 | 1<<4 = 27 -> -5; scale 2
  EXPECT_EQ(y[255], -406.25f);  // q = 7 -> -25; scale 65
}

}  // namespace
}  // namespace clport
