// Model-level accuracy tools: the per-layer comparison of a device model against the CPU
// reference (--check-layers: how a user finds a miscompiling driver or an fp16 overflow), and the
// standard chunked perplexity (how quantizations and runtimes are compared on the same file).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "clport/export.h"
#include "clport/llama_model.h"
#include "clport/status.h"

namespace clport {

struct LayerDivergence {
  int layer = 0;  // n_layer means "final norm"
  double nmse = 0;
  double max_abs_error = 0;
};

struct LayerCheckReport {
  std::vector<LayerDivergence> layers;
  double threshold = 0;
  int first_bad_layer = -1;  // first layer whose NMSE exceeds the threshold, -1 when none
};

// Runs `tokens` at n_past through both models (same file, different backends), capturing the
// hidden state after every layer, and compares them. Both models' KV caches advance.
CLPORT_API Result<LayerCheckReport> compare_layers(LlamaModel& model, LlamaModel& reference,
                                                   const std::vector<int32_t>& tokens,
                                                   uint32_t n_past, double threshold = 1e-3);

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

// Standard chunked perplexity (as llama.cpp's perplexity tool computes it): the tokens cut into
// non-overlapping chunks of n_ctx tokens (the first token of each chunk replaced by BOS when
// bos >= 0), each chunk evaluated from an empty cache, and only the second half of each chunk
// scored (each scored token has at least n_ctx/2 tokens of context). `on_chunk` reports the
// running estimate.
CLPORT_API Result<PerplexityResult> perplexity(LlamaModel& model, const std::vector<int32_t>& tokens,
                                               uint32_t n_ctx, int32_t bos,
                                               const std::function<void(const PerplexityChunk&)>& on_chunk = {});

}  // namespace clport
