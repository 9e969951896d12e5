// The shared nmse() helper: value, NaN/inf handling, zero reference.
#include "common/nmse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace clport {
namespace {

TEST(Nmse, Value) {
  const std::vector<float> ref = {3, 4};
  const std::vector<float> got = {3, 5};
  EXPECT_DOUBLE_EQ(nmse(ref.data(), got.data(), 2), 1.0 / 25.0);
  EXPECT_EQ(nmse(ref.data(), ref.data(), 2), 0.0);
  EXPECT_EQ(nmse(ref.data(), got.data(), 0), 0.0);
}

TEST(Nmse, NonFiniteOutputNeverPasses) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> ref = {1, 2, 3};
  EXPECT_TRUE(std::isinf(nmse(ref.data(), std::vector<float>{1, nan, 3}.data(), 3)));
  EXPECT_TRUE(std::isinf(nmse(ref.data(), std::vector<float>{1, 2, inf}.data(), 3)));
  // A non-finite reference must be matched, and is then skipped.
  const std::vector<float> ref_inf = {1, inf, nan};
  EXPECT_EQ(nmse(ref_inf.data(), std::vector<float>{1, inf, nan}.data(), 3), 0.0);
  EXPECT_TRUE(std::isinf(nmse(ref_inf.data(), std::vector<float>{1, -inf, nan}.data(), 3)));
  EXPECT_TRUE(std::isinf(nmse(ref_inf.data(), std::vector<float>{1, inf, 0}.data(), 3)));
}

TEST(Nmse, ZeroReference) {
  const std::vector<float> zeros = {0, 0};
  EXPECT_EQ(nmse(zeros.data(), zeros.data(), 2), 0.0);
  EXPECT_TRUE(std::isinf(nmse(zeros.data(), std::vector<float>{0, 1e-3f}.data(), 2)));
}

}  // namespace
}  // namespace clport
