#include "token_logprobs.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace clport::serve {

TokenLogprobs::TokenLogprobs(const std::vector<float>& logits) : logits_(logits) {
  float max = -INFINITY;
  for (float l : logits) max = std::max(max, l);
  double sum = 0;
  for (float l : logits) sum += std::exp(static_cast<double>(l) - max);
  log_sum_ = max + std::log(sum);
}

float TokenLogprobs::logprob(int32_t token) const {
  if (token < 0 || static_cast<size_t>(token) >= logits_.size()) return -INFINITY;
  return static_cast<float>(logits_[token] - log_sum_);
}

TokenLogprob TokenLogprobs::entry(const Tokenizer& tokenizer, int32_t token, int32_t top) const {
  TokenLogprob e;
  e.token = tokenizer.token_to_piece(token);
  e.logprob = logprob(token);
  const size_t n = std::min<size_t>(std::max(top, 0), logits_.size());
  if (n == 0) return e;
  std::vector<int32_t> ids(logits_.size());
  std::iota(ids.begin(), ids.end(), 0);
  std::partial_sort(ids.begin(), ids.begin() + n, ids.end(),
                    [&](int32_t a, int32_t b) { return logits_[a] > logits_[b]; });
  for (size_t i = 0; i < n; ++i) e.top.emplace_back(tokenizer.token_to_piece(ids[i]), logprob(ids[i]));
  return e;
}

}  // namespace clport::serve
