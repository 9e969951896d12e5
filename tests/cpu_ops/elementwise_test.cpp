// SILU, SWIGLU, SCALE, ADD, MUL: hand values, broadcasting rules, in-place use, bad shapes.
#include <cmath>

#include "ops_test_util.h"

namespace clport {
namespace {

using test::OwnedTensor;

TEST(Silu, HandValues) {
  auto x = test::f32_tensor({4, 1, 1, 1}, {0.0f, 1.0f, -1.0f, -200.0f});
  OwnedTensor d(DType::F32, {4, 1, 1, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_SILU, {x.view}, d.view).ok());
  const auto y = d.values();
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_NEAR(y[1], 1.0 / (1.0 + std::exp(-1.0)), 1e-7);
  EXPECT_NEAR(y[2], -1.0 / (1.0 + std::exp(1.0)), 1e-7);
  EXPECT_EQ(y[3], 0.0f);  // exp(200) overflows to inf: x / inf is -0, not NaN
}

TEST(Swiglu, IsSiluOfGateTimesUp) {
  auto g = test::f32_tensor({3, 2, 1, 1}, {1, -2, 0.5f, 3, 0, -1});
  auto u = test::f32_tensor({3, 2, 1, 1}, {2, 3, -4, 0.5f, 9, 1});
  OwnedTensor d(DType::F32, {3, 2, 1, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_SWIGLU, {g.view, u.view}, d.view).ok());
  const auto gv = g.values(), uv = u.values(), y = d.values();
  for (size_t i = 0; i < y.size(); ++i) {
    EXPECT_NEAR(y[i], gv[i] / (1.0 + std::exp(-double(gv[i]))) * uv[i], 1e-6) << i;
  }
  OwnedTensor u_bad(DType::F32, {3, 1, 1, 1});
  EXPECT_EQ(test::run(CLPORT_OP_SWIGLU, {g.view, u_bad.view}, d.view).stage(),
            Stage::InvalidArgument);
}

TEST(Scale, MultipliesEveryElement) {
  auto x = test::f32_tensor({2, 2, 1, 1}, {1, -2, 3, 0.5f});
  ASSERT_TRUE(
      test::run(CLPORT_OP_SCALE, {x.view}, x.view, test::params_scale(-2.0f)).ok());  // in place
  EXPECT_EQ(x.values(), (std::vector<float>{-2, 4, -6, -1}));
}

TEST(AddMul, SameShape) {
  auto a = test::f32_tensor({2, 2, 1, 1}, {1, 2, 3, 4});
  auto b = test::f32_tensor({2, 2, 1, 1}, {10, 20, 30, 40});
  OwnedTensor d(DType::F32, {2, 2, 1, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_ADD, {a.view, b.view}, d.view).ok());
  EXPECT_EQ(d.values(), (std::vector<float>{11, 22, 33, 44}));
  ASSERT_TRUE(test::run(CLPORT_OP_MUL, {a.view, b.view}, d.view).ok());
  EXPECT_EQ(d.values(), (std::vector<float>{10, 40, 90, 160}));
}

// Reference broadcast: element (i0, i1, i2) of a [4, 3, 2] pairs with b at each index modulo b's
// ne.
std::vector<float> naive_add(const std::vector<float>& a, const std::vector<float>& b,
                             std::array<int64_t, 3> nb_) {
  std::vector<float> out(a.size());
  for (int64_t i2 = 0; i2 < 2; ++i2)
    for (int64_t i1 = 0; i1 < 3; ++i1)
      for (int64_t i0 = 0; i0 < 4; ++i0) {
        const int64_t bi = ((i2 % nb_[2]) * nb_[1] + (i1 % nb_[1])) * nb_[0] + (i0 % nb_[0]);
        out[(i2 * 3 + i1) * 4 + i0] = a[(i2 * 3 + i1) * 4 + i0] + b[bi];
      }
  return out;
}

TEST(AddMul, BroadcastShapes) {
  const auto av = test::random_values(24, 1);
  auto a = test::f32_tensor({4, 3, 2, 1}, av);
  for (std::array<int64_t, 3> bs :
       {std::array<int64_t, 3>{4, 1, 1}, {1, 3, 1}, {2, 3, 2}, {1, 1, 1}, {4, 3, 1}}) {
    const auto bv = test::random_values(static_cast<size_t>(bs[0] * bs[1] * bs[2]), 2);
    auto b = test::f32_tensor({bs[0], bs[1], bs[2], 1}, bv);
    OwnedTensor d(DType::F32, {4, 3, 2, 1});
    ASSERT_TRUE(test::run(CLPORT_OP_ADD, {a.view, b.view}, d.view).ok());
    EXPECT_EQ(d.values(), naive_add(av, bv, bs)) << bs[0] << "x" << bs[1] << "x" << bs[2];
  }
}

TEST(AddMul, RowBroadcastMulInPlace) {
  auto a = test::f32_tensor({3, 2, 1, 1}, {1, 2, 3, 4, 5, 6});
  auto w = test::f32_tensor({3, 1, 1, 1}, {2, 0, -1});
  ASSERT_TRUE(test::run(CLPORT_OP_MUL, {a.view, w.view}, a.view).ok());
  EXPECT_EQ(a.values(), (std::vector<float>{2, 0, -3, 8, 0, -6}));
}

TEST(AddMul, NonDividingBroadcastRejected) {
  OwnedTensor a(DType::F32, {4, 3, 1, 1});
  OwnedTensor b(DType::F32, {3, 1, 1, 1});
  OwnedTensor b2(DType::F32, {4, 2, 1, 1});
  OwnedTensor big(DType::F32, {8, 3, 1, 1});
  OwnedTensor d(DType::F32, {4, 3, 1, 1});
  OwnedTensor d_bad(DType::F32, {4, 1, 1, 1});
  EXPECT_EQ(test::run(CLPORT_OP_ADD, {a.view, b.view}, d.view).stage(), Stage::InvalidArgument);
  EXPECT_EQ(test::run(CLPORT_OP_MUL, {a.view, b2.view}, d.view).stage(), Stage::InvalidArgument);
  EXPECT_EQ(test::run(CLPORT_OP_ADD, {a.view, big.view}, d.view).stage(), Stage::InvalidArgument);
  EXPECT_EQ(test::run(CLPORT_OP_ADD, {a.view, a.view}, d_bad.view).stage(), Stage::InvalidArgument);
}

}  // namespace
}  // namespace clport
