// Token samplers: greedy, temperature, top-k, top-p, repetition / presence / frequency penalties,
// seeded.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "clport/export.h"

namespace clport {

struct SamplerOptions {
  float temperature = 0.0f;   // <= 0: greedy (argmax)
  int32_t top_k = 40;         // <= 0: off
  float top_p = 0.95f;        // >= 1: off
  float repeat_penalty = 1.0f;  // 1: off; divides positive / multiplies negative logits
  int32_t repeat_last_n = 64;   // how many recent tokens the penalties look at
  // OpenAI's penalties, over the same window: a token that appeared loses presence_penalty once
  // and frequency_penalty per appearance from its logit (0: off; negative values favour it).
  float presence_penalty = 0.0f;
  float frequency_penalty = 0.0f;
  uint64_t seed = 0;
  // Also note how far ahead the picked token was: last_gap() (a second pass over the logits, so
  // off unless asked for).
  bool record_gap = false;
};

class CLPORT_API Sampler {
 public:
  explicit Sampler(SamplerOptions options);
  // Picks the next token from `logits` (n_vocab values; modified in place by the penalty).
  // `history` holds the tokens so far (prompt + generated) for the repetition penalty.
  int32_t sample(std::vector<float>& logits, const std::vector<int32_t>& history);
  // With record_gap: the highest logit less the second highest at the last sample() (penalties
  // applied), which says how near a greedy pick was to a tie; NaN before the first, or without it.
  float last_gap() const { return last_gap_; }

 private:
  SamplerOptions options_;
  float last_gap_;
  std::mt19937_64 rng_;
};

}  // namespace clport
