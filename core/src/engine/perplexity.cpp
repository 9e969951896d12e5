#include <cmath>

#include "clport/model_checks.h"

namespace clport {

Result<PerplexityResult> perplexity(LlamaModel& model, const std::vector<int32_t>& tokens,
                                    uint32_t n_ctx, int32_t bos,
                                    const std::function<void(const PerplexityChunk&)>& on_chunk) {
  if (n_ctx < 8) return Status(Stage::InvalidArgument, "perplexity context must be >= 8 tokens");
  if (n_ctx > model.n_ctx()) {
    return Status(Stage::InvalidArgument, "perplexity context " + std::to_string(n_ctx) +
                                              " exceeds the model's KV cache of " +
                                              std::to_string(model.n_ctx()) + " (raise --ctx)");
  }
  const size_t n_chunks = tokens.size() / n_ctx;
  if (n_chunks == 0) {
    return Status(Stage::InvalidArgument, "the text has " + std::to_string(tokens.size()) +
                                              " tokens, fewer than one chunk of " +
                                              std::to_string(n_ctx));
  }
  const uint32_t n_vocab = model.hparams().n_vocab;
  const uint32_t first = n_ctx / 2;
  double nll = 0, nll2 = 0;
  long count = 0;
  PerplexityResult result;
  std::vector<float> logits;
  for (size_t c = 0; c < n_chunks; ++c) {
    std::vector<int32_t> chunk(tokens.begin() + c * n_ctx, tokens.begin() + (c + 1) * n_ctx);
    if (bos >= 0) chunk[0] = bos;
    CLPORT_RETURN_IF_ERROR(model.forward(chunk, 0, true, logits));
    // Logits at position j predict the original token j + 1; score the second half only.
    for (uint32_t j = first; j + 1 < n_ctx; ++j) {
      const float* row = logits.data() + static_cast<size_t>(j) * n_vocab;
      float max_logit = row[0];
      for (uint32_t v = 1; v < n_vocab; ++v) max_logit = std::max(max_logit, row[v]);
      double sum = 0;
      for (uint32_t v = 0; v < n_vocab; ++v) sum += std::exp(double(row[v]) - max_logit);
      const int32_t target = tokens[c * n_ctx + j + 1];
      const double token_nll = -(double(row[target]) - max_logit - std::log(sum));
      if (!std::isfinite(token_nll)) {
        return Status(Stage::Device, "non-finite logits in chunk " + std::to_string(c) +
                                         " (try --check-layers to find the layer)");
      }
      nll += token_nll;
      nll2 += token_nll * token_nll;
      ++count;
    }
    result.chunks = static_cast<int>(c + 1);
    if (on_chunk) on_chunk({static_cast<int>(c + 1), std::exp(nll / count)});
  }
  const double mean = nll / count;
  double var = nll2 / count - mean * mean;
  result.ppl = std::exp(mean);
  result.ppl_error = (var > 0 && count > 1) ? result.ppl * std::sqrt(var / (count - 1)) : 0;
  result.scored_tokens = static_cast<int>(count);
  return result;
}

}  // namespace clport
