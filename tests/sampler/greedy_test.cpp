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

TEST(GreedySampler, RecordsHowFarThePickLed) {
  SamplerOptions options;
  options.record_gap = true;
  Sampler sampler(options);
  EXPECT_TRUE(std::isnan(sampler.last_gap()));  // nothing picked yet
  std::vector<float> logits = {1.0f, 3.0f, 2.75f, -4.0f};
  EXPECT_EQ(sampler.sample(logits, {}), 1);
  EXPECT_FLOAT_EQ(sampler.last_gap(), 0.25f);
  logits = {2.0f, 2.0f, 0.0f};  // a tie
  EXPECT_EQ(sampler.sample(logits, {}), 0);
  EXPECT_FLOAT_EQ(sampler.last_gap(), 0.0f);
  // After the penalties: token 1 (3.0 -> 1.5) was just used, so 2.75 leads 1.5 by 1.25.
  options.repeat_penalty = 2.0f;
  Sampler penalised(options);
  logits = {1.0f, 3.0f, 2.75f, -4.0f};
  EXPECT_EQ(penalised.sample(logits, {1}), 2);
  EXPECT_FLOAT_EQ(penalised.last_gap(), 1.25f);
  // Not asked for: not recorded.
  Sampler plain(SamplerOptions{});
  logits = {1.0f, 3.0f};
  EXPECT_EQ(plain.sample(logits, {}), 1);
  EXPECT_TRUE(std::isnan(plain.last_gap()));
}

}  // namespace
}  // namespace clport
