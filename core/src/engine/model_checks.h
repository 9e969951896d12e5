// Model-level accuracy tools: the per-layer comparison of a device model against the CPU
// reference (--check-layers: how a user finds a miscompiling driver or an fp16 overflow), and the
// standard chunked perplexity (how quantizations and runtimes are compared on the same file).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "clport/export.h"
#include "model/llama_model.h"
#include "clport/status.h"
#include "clport/tokenizer.h"

namespace clport {

struct LayerDivergence {
  int layer = 0;  // n_layer means "final norm"
  double nmse = 0;
  double max_abs_error = 0;
  double threshold = 0;  // what this layer's NMSE was held to
};

struct LayerCheckReport {
  std::vector<LayerDivergence> layers;
  int first_bad_layer = -1;  // first layer whose NMSE exceeds its threshold, -1 when none
};

// The NMSE the hidden state after `layer` (n_layer: the final norm) may reach against the CPU
// reference when no threshold is given: 1e-3 plus 9e-3 x (layer + 1) / (n_layer + 1), so 1e-3
// after the first layer and 1e-2 at the final norm. Rounding compounds over depth: on the shipped
// models with 8-bit activations (the CPU path and PoCL) the middle layers stay near 1e-6, the last
// ones reach 4e-4 and the final norm 1.3e-3 to 1.6e-3 (SmolLM2, 30 layers) and 2.9e-3 (Gemma 3,
// 18 layers), a third of the bound or less; a wrong kernel (the broken-SwiGLU test) is off by
// orders of magnitude from the first layer on.
CLPORT_API double default_layer_threshold(int layer, int n_layer);

// Runs `tokens` at n_past through both models (same file, different backends), capturing the
// hidden state after every layer, and compares them: against `threshold` at every layer, or
// default_layer_threshold when it is 0. Both models' KV caches advance.
CLPORT_API Result<LayerCheckReport> compare_layers(LlamaModel& model, LlamaModel& reference,
                                                   const std::vector<int32_t>& tokens,
                                                   uint32_t n_past, double threshold = 0);

struct PerplexityChunk {
  int index = 0;
  double ppl_so_far = 0;
};

struct PerplexityResult {
  double ppl = 0;
  double ppl_error = 0;  // standard error of the estimate
  int chunks = 0;
  int scored_tokens = 0;
};

// Perplexity follows llama-perplexity's convention, so that both print the same number on the
// same file and text:
//  - the text is tokenized once, with BOS first when the vocabulary adds it
//    (tokenizer.ggml.add_bos_token) and special-token texts left as plain text;
//  - chunk c is tokens [c * n_ctx, (c + 1) * n_ctx) of that stream (a partial last chunk is
//    dropped), with its first token replaced by BOS when the vocabulary adds it;
//  - each chunk is evaluated from an empty cache and only its second half is scored: the logits
//    at rows n_ctx/2 .. n_ctx-2 against the stream's next tokens.

// The token stream of a text, as above.
CLPORT_API Result<std::vector<int32_t>> perplexity_tokens(const Tokenizer& tokenizer,
                                                          std::string_view text);

// What one chunk feeds and scores.
struct PerplexityChunkTokens {
  std::vector<int32_t> input;      // n_ctx tokens, the first replaced by BOS when bos >= 0
  uint32_t first_scored_row = 0;   // n_ctx / 2: the logits row that predicts targets[0]
  std::vector<int32_t> targets;    // targets[i]: the stream's token after input row first + i
};

// Chunk `index` of `tokens` (the stream from perplexity_tokens) for a context of n_ctx tokens;
// bos < 0 keeps the first token. An InvalidArgument status when the chunk is not whole or
// n_ctx < 2.
CLPORT_API Result<PerplexityChunkTokens> perplexity_chunk(const std::vector<int32_t>& tokens,
                                                          uint32_t n_ctx, size_t index, int32_t bos);

// The shortest chunk perplexity() takes: only its second half is scored, so shorter chunks score
// next to nothing.
inline constexpr uint32_t kMinPerplexityContext = 8;

// Chunked perplexity of `tokens` (the stream from perplexity_tokens) in chunks of n_ctx tokens
// (kMinPerplexityContext or more); `bos` is the vocabulary's BOS id when it adds BOS, else -1.
// `on_chunk` reports the running estimate.
CLPORT_API Result<PerplexityResult> perplexity(LlamaModel& model, const std::vector<int32_t>& tokens,
                                               uint32_t n_ctx, int32_t bos,
                                               const std::function<void(const PerplexityChunk&)>& on_chunk = {});

}  // namespace clport
