// Which tokens perplexity feeds and scores (the convention is in model_checks.h). Kept apart from
// the evaluation so that a test can pin the chunking without running a model.
#include "engine/model_checks.h"

namespace clport {

Result<std::vector<int32_t>> perplexity_tokens(const Tokenizer& tokenizer, std::string_view text) {
  return tokenizer.encode(text, tokenizer.add_bos_default(), /*parse_special=*/false);
}

Result<PerplexityChunkTokens> perplexity_chunk(const std::vector<int32_t>& tokens, uint32_t n_ctx,
                                               size_t index, int32_t bos) {
  if (n_ctx < 2) {
    return Status(Stage::InvalidArgument,
                  "a perplexity chunk needs at least 2 tokens, not " + std::to_string(n_ctx));
  }
  const size_t n_chunks = tokens.size() / n_ctx;
  if (index >= n_chunks) {
    return Status(Stage::InvalidArgument,
                  "perplexity chunk " + std::to_string(index) + " does not exist: " +
                      std::to_string(tokens.size()) + " tokens make " + std::to_string(n_chunks) +
                      " whole chunks of " + std::to_string(n_ctx));
  }
  const auto begin = tokens.begin() + static_cast<std::ptrdiff_t>(index * n_ctx);
  PerplexityChunkTokens chunk;
  chunk.input.assign(begin, begin + n_ctx);
  if (bos >= 0) chunk.input[0] = bos;
  chunk.first_scored_row = n_ctx / 2;
  // Row j predicts the stream's token j + 1; the last row predicts past the chunk and is unused.
  chunk.targets.assign(begin + chunk.first_scored_row + 1, begin + n_ctx);
  return chunk;
}

}  // namespace clport
