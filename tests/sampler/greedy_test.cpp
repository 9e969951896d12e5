#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "clport/sampler.h"

namespace clport {
namespace {

int32_t greedy(std::vector<float> logits) {
  Sampler sampler(SamplerOptions{});
  return sampler.sample(logits, {});
}

TEST(GreedySampler, PicksTheLargestWhereverItIs) {
  // Sizes around the eight-lane blocks, the largest at every position.
  for (size_t n : {1u, 7u, 8u, 9u, 16u, 49152u, 49157u}) {
    for (size_t at : {size_t{0}, n / 2, n - 1}) {
      std::vector<float> logits(n);
      for (size_t i = 0; i < n; ++i) logits[i] = std::sin(static_cast<float>(i)) - 2.0f;
      logits[at] = 5.0f;
      EXPECT_EQ(greedy(logits), static_cast<int32_t>(at)) << "n=" << n;
    }
  }
}

TEST(GreedySampler, TiesGoToTheFirst) {
  std::vector<float> logits(100, -1.0f);
  logits[70] = 3.0f;
  logits[13] = 3.0f;
  logits[99] = 3.0f;
  EXPECT_EQ(greedy(logits), 13);
}

TEST(GreedySampler, NegativeAndInfiniteLogits) {
  std::vector<float> logits(33, -INFINITY);
  EXPECT_EQ(greedy(logits), 0);
  logits[32] = -1e30f;
  EXPECT_EQ(greedy(logits), 32);
  logits[5] = INFINITY;
  EXPECT_EQ(greedy(logits), 5);
}

TEST(GreedySampler, NanNeverWins) {
  std::vector<float> logits(20, 0.0f);
  logits[3] = NAN;
  logits[11] = 1.0f;
  EXPECT_EQ(greedy(logits), 11);
}

}  // namespace
}  // namespace clport
