// Greedy generation on two models of the same file, compared the way a user would judge a path
// that rounds its activations to 8 bits: the tokens are identical, or the first divergence is a
// near-tie in the reference's logits, and up to there the logits track the reference's.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/engine_core.h"
#include "common/nmse.h"

namespace clport::test {

// Logit difference of a near-tie: e^0.25 = 1.28, the two tokens' probabilities within 28%; or,
// where the rounding moves logits by more than that (a model with large logits), within
// kNoiseMultiple times the root-mean-square logit error at that step (what the rounding itself
// adds to every logit).
constexpr float kNearTie = 0.25f;
constexpr double kNoiseMultiple = 3.0;
// With 8-bit activations SmolLM2's logits were 3e-3 .. 1.8e-2 (NMSE) from the reference's (see
// measurements/README.md); a wrong kernel gives logits unrelated to the reference's, NMSE near 1.
constexpr double kQuantizedLogitNmse = 5e-2;

struct Greedy {
  std::vector<int32_t> tokens;
  std::vector<std::vector<float>> logits;  // before each token was chosen
  std::string error;                       // a failed forward step
};

inline Greedy greedy_with_logits(LlamaModel& model, std::vector<int32_t> tokens, int n) {
  Greedy out;
  std::vector<float> logits;
  uint32_t n_past = 0;
  for (int i = 0; i < n; ++i) {
    const Status st = model.forward(tokens, n_past, false, logits);
    if (!st.ok()) {
      out.error = st.to_string();
      return out;
    }
    n_past += static_cast<uint32_t>(tokens.size());
    const auto next = static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    out.tokens.push_back(next);
    out.logits.push_back(logits);
    tokens = {next};
  }
  return out;
}

struct NearTieVerdict {
  bool ok = false;
  std::string detail;  // what was found, for the test log or the failure message
};

// got against want (the reference): identical tokens, or a near-tie at the first divergence;
// logits within kQuantizedLogitNmse of the reference's at every step up to it.
inline NearTieVerdict identical_or_near_tie(const Greedy& want, const Greedy& got) {
  NearTieVerdict v;
  if (!want.error.empty() || !got.error.empty() || want.tokens.size() != got.tokens.size() || want.tokens.empty()) {
    v.detail = "runs failed or differ in length: " + want.error + " " + got.error;
    return v;
  }
  const auto diverge = std::mismatch(want.tokens.begin(), want.tokens.end(), got.tokens.begin());
  const auto same = static_cast<size_t>(diverge.first - want.tokens.begin());
  double worst = 0.0;
  for (size_t i = 0; i <= std::min(same, want.tokens.size() - 1); ++i)
    worst = std::max(worst, nmse(want.logits[i].data(), got.logits[i].data(), want.logits[i].size()));
  char line[256];
  if (same == want.tokens.size()) {
    std::snprintf(line, sizeof line, "%zu tokens identical, worst logit NMSE %.2e", same, worst);
    v.ok = worst < kQuantizedLogitNmse;
    v.detail = line;
    return v;
  }
  const auto& ref = want.logits[same];
  const auto& other = got.logits[same];
  const float gap = ref[static_cast<size_t>(*diverge.first)] - ref[static_cast<size_t>(*diverge.second)];
  double sq = 0.0;
  for (size_t i = 0; i < ref.size(); ++i) sq += (double(other[i]) - ref[i]) * (double(other[i]) - ref[i]);
  const double rms_error = std::sqrt(sq / static_cast<double>(ref.size()));
  const double tie = std::max<double>(kNearTie, kNoiseMultiple * rms_error);
  std::snprintf(line, sizeof line,
                "first divergence at token %zu (reference %d, other %d), logit gap in the reference %.4f "
                "(near-tie below %.3f: max(%.2f, %.0f x rms logit error %.4f)), worst logit NMSE up to there %.2e",
                same, *diverge.first, *diverge.second, gap, tie, kNearTie, kNoiseMultiple, rms_error, worst);
  v.ok = gap < tie && worst < kQuantizedLogitNmse;
  v.detail = line;
  return v;
}

}  // namespace clport::test
