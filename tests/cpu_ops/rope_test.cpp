// ROPE: hand-computed rotations for both modes, position offsets, freq_scale, partial rotation,
// in-place use, and rejected parameters.
#include <cmath>

#include "ops_test_util.h"

namespace clport {
namespace {

using test::OwnedTensor;

cpu::OpParams rope_params(int mode, int pos0, int n_rot, float base = 10000.0f,
                          float freq_scale = 1.0f) {
  cpu::OpParams p;
  p.n_past = pos0;
  p.rope = clport_rope_params{mode, n_rot, base, freq_scale};
  return p;
}

// Naive reference written from the definition, one (head, token) row at a time.
std::vector<float> naive_rope(const std::vector<float>& x, int64_t hd, int64_t heads,
                              int64_t tokens, int mode, int pos0, int n_rot, double base,
                              double fs) {
  std::vector<float> y = x;
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t h = 0; h < heads; ++h) {
      const float* in = x.data() + (t * heads + h) * hd;
      float* out = y.data() + (t * heads + h) * hd;
      for (int i = 0; i < n_rot / 2; ++i) {
        const double theta = (pos0 + t) * fs * std::pow(base, -2.0 * i / n_rot);
        const int a = mode == 2 ? i : 2 * i;
        const int b = mode == 2 ? i + n_rot / 2 : 2 * i + 1;
        out[a] = static_cast<float>(in[a] * std::cos(theta) - in[b] * std::sin(theta));
        out[b] = static_cast<float>(in[a] * std::sin(theta) + in[b] * std::cos(theta));
      }
    }
  return y;
}

TEST(Rope, NormalModeHandComputed) {
  // head_dim 4, position 1: theta_0 = 1, theta_1 = 10000^(-1/2) = 0.01.
  auto x = test::f32_tensor({4, 1, 1, 1}, {1, 0, 1, 0});
  OwnedTensor d(DType::F32, {4, 1, 1, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_ROPE, {x.view}, d.view, rope_params(0, 1, 4)).ok());
  const auto y = d.values();
  EXPECT_NEAR(y[0], std::cos(1.0), 1e-6);
  EXPECT_NEAR(y[1], std::sin(1.0), 1e-6);
  EXPECT_NEAR(y[2], std::cos(0.01), 1e-6);
  EXPECT_NEAR(y[3], std::sin(0.01), 1e-6);
}

TEST(Rope, NeoxModeHandComputed) {
  // NeoX pairs (x0, x2) with theta 1 and (x1, x3) with theta 0.01.
  auto x = test::f32_tensor({4, 1, 1, 1}, {1, 1, 0, 0});
  OwnedTensor d(DType::F32, {4, 1, 1, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_ROPE, {x.view}, d.view, rope_params(2, 1, 4)).ok());
  const auto y = d.values();
  EXPECT_NEAR(y[0], std::cos(1.0), 1e-6);
  EXPECT_NEAR(y[2], std::sin(1.0), 1e-6);
  EXPECT_NEAR(y[1], std::cos(0.01), 1e-6);
  EXPECT_NEAR(y[3], std::sin(0.01), 1e-6);
}

TEST(Rope, PositionZeroIsIdentity) {
  const auto xv = test::random_values(64, 1);
  auto x = test::f32_tensor({16, 2, 2, 1}, xv);
  OwnedTensor d(DType::F32, {16, 2, 2, 1});
  // Token 0 at position 0 is unchanged; token 1 (position 1) is not.
  ASSERT_TRUE(test::run(CLPORT_OP_ROPE, {x.view}, d.view, rope_params(0, 0, 16)).ok());
  const auto y = d.values();
  for (int i = 0; i < 32; ++i) EXPECT_EQ(y[i], xv[i]);
  EXPECT_NE(y[32 + 0], xv[32 + 0]);
}

TEST(Rope, OffsetsPartialRotationAndScaleMatchNaive) {
  const int64_t hd = 12, heads = 3, tokens = 4;
  const auto xv = test::random_values(hd * heads * tokens, 2);
  for (int mode : {0, 2}) {
    auto x = test::f32_tensor({hd, heads, tokens, 1}, xv);
    OwnedTensor d(DType::F32, {hd, heads, tokens, 1});
    ASSERT_TRUE(
        test::run(CLPORT_OP_ROPE, {x.view}, d.view, rope_params(mode, 17, 8, 500.0f, 0.25f)).ok());
    const auto ref = naive_rope(xv, hd, heads, tokens, mode, 17, 8, 500.0, 0.25);
    const auto y = d.values();
    for (size_t i = 0; i < y.size(); ++i)
      EXPECT_NEAR(y[i], ref[i], 2e-6) << "mode " << mode << " i " << i;
    // Dimensions 8..11 are not rotated.
    for (int64_t r = 0; r < heads * tokens; ++r)
      for (int64_t i = 8; i < hd; ++i) EXPECT_EQ(y[r * hd + i], xv[r * hd + i]);
  }
}

TEST(Rope, FreqScaleHalvesThePosition) {
  const auto xv = test::random_values(8, 3);
  auto x = test::f32_tensor({8, 1, 1, 1}, xv);
  OwnedTensor a(DType::F32, {8, 1, 1, 1}), b(DType::F32, {8, 1, 1, 1});
  ASSERT_TRUE(
      test::run(CLPORT_OP_ROPE, {x.view}, a.view, rope_params(0, 10, 8, 10000.0f, 0.5f)).ok());
  ASSERT_TRUE(
      test::run(CLPORT_OP_ROPE, {x.view}, b.view, rope_params(0, 5, 8, 10000.0f, 1.0f)).ok());
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(a.values()[i], b.values()[i], 1e-6);
}

TEST(Rope, InPlaceMatchesOutOfPlace) {
  const auto xv = test::random_values(32, 4);
  auto x = test::f32_tensor({8, 2, 2, 1}, xv);
  OwnedTensor d(DType::F32, {8, 2, 2, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_ROPE, {x.view}, d.view, rope_params(2, 3, 6)).ok());
  ASSERT_TRUE(test::run(CLPORT_OP_ROPE, {x.view}, x.view, rope_params(2, 3, 6)).ok());
  EXPECT_EQ(x.values(), d.values());
}

TEST(Rope, BadParametersAreRejected) {
  OwnedTensor x(DType::F32, {8, 1, 1, 1});
  OwnedTensor d(DType::F32, {8, 1, 1, 1});
  EXPECT_EQ(test::run(CLPORT_OP_ROPE, {x.view}, d.view, rope_params(1, 0, 8)).stage(),
            Stage::Unsupported);
  EXPECT_EQ(test::run(CLPORT_OP_ROPE, {x.view}, d.view, rope_params(0, 0, 7)).stage(),
            Stage::InvalidArgument);
  EXPECT_EQ(test::run(CLPORT_OP_ROPE, {x.view}, d.view, rope_params(0, 0, 10)).stage(),
            Stage::InvalidArgument);
  EXPECT_EQ(test::run(CLPORT_OP_ROPE, {x.view}, d.view, rope_params(0, 0, 0)).stage(),
            Stage::InvalidArgument);
  EXPECT_EQ(test::run(CLPORT_OP_ROPE, {x.view}, d.view, rope_params(0, 0, 8, 0.0f)).stage(),
            Stage::InvalidArgument);
  EXPECT_EQ(test::run(CLPORT_OP_ROPE, {x.view}, d.view, rope_params(0, 0, 8, 1e4f, 0.0f)).stage(),
            Stage::InvalidArgument);
}

}  // namespace
}  // namespace clport
