// Chunked perplexity: every chunk (perplexity_chunks.cpp) through the model from an empty cache,
// the negative log-likelihood of its scored tokens summed as llama-perplexity sums it.
#include <cmath>

#include "engine/model_checks.h"

namespace clport {
namespace {

// -log softmax(row)[target], with the maximum subtracted first so exp() cannot overflow.
double token_nll(const float* row, uint32_t n_vocab, int32_t target) {
  float max_logit = row[0];
  for (uint32_t v = 1; v < n_vocab; ++v) max_logit = std::max(max_logit, row[v]);
  double sum = 0;
  for (uint32_t v = 0; v < n_vocab; ++v) sum += std::exp(double(row[v]) - max_logit);
  return -(double(row[target]) - max_logit - std::log(sum));
}

}  // namespace

Result<PerplexityResult> perplexity(LlamaModel& model, const std::vector<int32_t>& tokens,
                                    uint32_t n_ctx, int32_t bos,
                                    const std::function<void(const PerplexityChunk&)>& on_chunk) {
  if (n_ctx < kMinPerplexityContext) {
    return Status(Stage::InvalidArgument, "perplexity context must be >= " +
                                              std::to_string(kMinPerplexityContext) + " tokens, not " +
                                              std::to_string(n_ctx));
  }
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
  double nll = 0, nll2 = 0;
  long count = 0;
  PerplexityResult result;
  std::vector<float> logits;
  for (size_t c = 0; c < n_chunks; ++c) {
    auto chunk = perplexity_chunk(tokens, n_ctx, c, bos);
    if (!chunk.ok()) return chunk.status();
    CLPORT_RETURN_IF_ERROR(model.forward(chunk->input, 0, true, logits));
    for (size_t i = 0; i < chunk->targets.size(); ++i) {
      const size_t row = chunk->first_scored_row + i;
      const int32_t target = chunk->targets[i];
      if (target < 0 || static_cast<uint32_t>(target) >= n_vocab) {
        return Status(Stage::InvalidArgument, "token id " + std::to_string(target) +
                                                  " is outside the vocabulary of " +
                                                  std::to_string(n_vocab));
      }
      const double t = token_nll(logits.data() + row * n_vocab, n_vocab, target);
      if (!std::isfinite(t)) {
        return Status(Stage::Device, "non-finite logits in chunk " + std::to_string(c) +
                                         " (try --check-layers to find the layer)");
      }
      nll += t;
      nll2 += t * t;
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
