// Log probabilities of one step's logits (log-softmax), for chat completions' "logprobs".
#pragma once

#include <cstdint>
#include <vector>

#include "clport/tokenizer.h"
#include "request_channel.h"

namespace clport::serve {

class TokenLogprobs {
 public:
  explicit TokenLogprobs(const std::vector<float>& logits);
  float logprob(int32_t token) const;
  // The chosen token's entry with the `top` most likely tokens (most likely first).
  TokenLogprob entry(const Tokenizer& tokenizer, int32_t token, int32_t top) const;

 private:
  const std::vector<float>& logits_;
  double log_sum_ = 0;  // log of the softmax denominator
};

}  // namespace clport::serve
