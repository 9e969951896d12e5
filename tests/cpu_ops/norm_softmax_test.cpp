// RMS_NORM and SOFTMAX: hand-computed rows, a naive reference on random rows, stability with
// large logits, and rejected shapes.
#include <cmath>

#include "common/nmse.h"
#include "ops_test_util.h"

namespace clport {
namespace {

using test::OwnedTensor;

TEST(RmsNorm, HandComputedWithWeight) {
  // rms([3, 4]) = sqrt((9 + 16) / 2) = sqrt(12.5)
  auto x = test::f32_tensor({2, 1, 1, 1}, {3, 4});
  auto w = test::f32_tensor({2, 1, 1, 1}, {2, 0.5f});
  OwnedTensor d(DType::F32, {2, 1, 1, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_RMS_NORM, {x.view, w.view}, d.view, test::params_eps(0.0f)).ok());
  const float r = std::sqrt(12.5f);
  EXPECT_NEAR(d.values()[0], 3 / r * 2, 1e-6);
  EXPECT_NEAR(d.values()[1], 4 / r * 0.5f, 1e-6);
}

TEST(RmsNorm, EpsAndNoWeightMatchNaive) {
  const int64_t n = 37, rows = 6;
  const auto xv = test::random_values(n * rows, 3);
  auto x = test::f32_tensor({n, 3, 2, 1}, xv);
  OwnedTensor d(DType::F32, {n, 3, 2, 1});
  const float eps = 0.5f;  // large enough to matter
  ASSERT_TRUE(test::run(CLPORT_OP_RMS_NORM, {x.view}, d.view, test::params_eps(eps), 2).ok());
  std::vector<float> ref(xv.size());
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t i = 0; i < n; ++i) ss += xv[r * n + i] * xv[r * n + i];
    const double inv = 1.0 / std::sqrt(ss / n + eps);
    for (int64_t i = 0; i < n; ++i) ref[r * n + i] = static_cast<float>(xv[r * n + i] * inv);
  }
  const auto got = d.values();
  EXPECT_LT(nmse(ref.data(), got.data(), ref.size()), 1e-12);
}

TEST(RmsNorm, InPlace) {
  auto x = test::f32_tensor({2, 1, 1, 1}, {3, 4});
  ASSERT_TRUE(test::run(CLPORT_OP_RMS_NORM, {x.view}, x.view, test::params_eps(0.0f)).ok());
  EXPECT_NEAR(x.values()[1], 4 / std::sqrt(12.5f), 1e-6);
}

TEST(RmsNorm, BadOperandsAreRejected) {
  OwnedTensor x(DType::F32, {8, 2, 1, 1});
  OwnedTensor d(DType::F32, {8, 2, 1, 1});
  OwnedTensor w_bad(DType::F32, {4, 1, 1, 1});
  OwnedTensor d_bad(DType::F32, {8, 3, 1, 1});
  OwnedTensor x_f16(DType::F16, {8, 2, 1, 1});
  EXPECT_EQ(test::run(CLPORT_OP_RMS_NORM, {x.view, w_bad.view}, d.view).stage(),
            Stage::InvalidArgument);
  EXPECT_EQ(test::run(CLPORT_OP_RMS_NORM, {x.view}, d_bad.view).stage(), Stage::InvalidArgument);
  EXPECT_EQ(test::run(CLPORT_OP_RMS_NORM, {x_f16.view}, d.view).stage(), Stage::Unsupported);
  EXPECT_EQ(test::run(CLPORT_OP_RMS_NORM, {x.view}, d.view, test::params_eps(-1.0f)).stage(),
            Stage::InvalidArgument);
}

TEST(Softmax, HandComputed) {
  // softmax([0, ln 3]) = [1/4, 3/4]; with scale 2 the logits become [0, 2 ln 3] -> [1/10, 9/10].
  auto x = test::f32_tensor({2, 1, 1, 1}, {0.0f, std::log(3.0f)});
  OwnedTensor d(DType::F32, {2, 1, 1, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_SOFTMAX, {x.view}, d.view, test::params_scale(1.0f)).ok());
  EXPECT_NEAR(d.values()[0], 0.25f, 1e-6);
  EXPECT_NEAR(d.values()[1], 0.75f, 1e-6);
  ASSERT_TRUE(test::run(CLPORT_OP_SOFTMAX, {x.view}, d.view, test::params_scale(2.0f)).ok());
  EXPECT_NEAR(d.values()[0], 0.1f, 1e-6);
  EXPECT_NEAR(d.values()[1], 0.9f, 1e-6);
}

TEST(Softmax, LargeLogitsStayFinite) {
  // exp(1000) overflows float and double; a stable softmax equals softmax([0, 1, 2]).
  auto x = test::f32_tensor({3, 2, 1, 1}, {1000, 1001, 1002, -1000, -1001, -1002});
  OwnedTensor d(DType::F32, {3, 2, 1, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_SOFTMAX, {x.view}, d.view, test::params_scale(1.0f)).ok());
  const double z = 1 + std::exp(1.0) + std::exp(2.0);
  const auto y = d.values();
  EXPECT_NEAR(y[0], 1 / z, 1e-6);
  EXPECT_NEAR(y[1], std::exp(1.0) / z, 1e-6);
  EXPECT_NEAR(y[2], std::exp(2.0) / z, 1e-6);
  EXPECT_NEAR(y[3], std::exp(2.0) / z, 1e-6);
  EXPECT_NEAR(y[5], 1 / z, 1e-6);
}

TEST(Softmax, RowsSumToOne) {
  const int64_t n = 101, r = 7;
  auto x = test::f32_tensor({n, r, 1, 1}, test::random_values(n * r, 4, 5.0f));
  OwnedTensor d(DType::F32, {n, r, 1, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_SOFTMAX, {x.view}, d.view, test::params_scale(0.7f)).ok());
  const auto y = d.values();
  for (int64_t i = 0; i < r; ++i) {
    double s = 0;
    for (int64_t j = 0; j < n; ++j) {
      EXPECT_GE(y[i * n + j], 0.0f);
      s += y[i * n + j];
    }
    EXPECT_NEAR(s, 1.0, 1e-5);
  }
}

TEST(Softmax, ShapeMismatchRejected) {
  OwnedTensor x(DType::F32, {8, 2, 1, 1});
  OwnedTensor d(DType::F32, {4, 4, 1, 1});
  EXPECT_EQ(test::run(CLPORT_OP_SOFTMAX, {x.view}, d.view, test::params_scale(1.0f)).stage(),
            Stage::InvalidArgument);
}

}  // namespace
}  // namespace clport
