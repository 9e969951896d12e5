// The body of POST /v1/chat/completions and POST /v1/completions, checked field by field: every
// value the server acts on is validated here (type and range), and a field that would change the
// answer in a way clport does not implement (n > 1, tools, ...) is refused by name rather
// than silently ignored. Unknown fields are ignored, as OpenAI-compatible servers do.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "api_error.h"
#include "clport/chat_template.h"
#include "clport/sampler.h"

namespace clport::serve {

struct CompletionRequest {
  bool chat = true;
  std::string model;
  std::vector<ChatMessage> messages;  // chat
  // completions: the prompt as text, or as token ids when prompt_ids is set
  std::string prompt_text;
  std::optional<std::vector<int32_t>> prompt_ids;
  std::optional<int32_t> max_tokens;  // none: until an end token or a full context
  SamplerOptions sampling;
  std::vector<std::string> stop;
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage: a last chunk with the usage
  // chat "logprobs": true: each generated token's log probability and the top_logprobs most
  // likely tokens at its place (-1: none asked for).
  int32_t top_logprobs = -1;
  // llama.cpp's extension "ignore_eos": end-of-generation tokens are sampled past (for benchmarks
  // that need a fixed reply length).
  bool ignore_eos = false;
};

constexpr int32_t kMaxTopLogprobs = 20;  // OpenAI's limit

// The most stop strings a request may give (OpenAI's limit).
constexpr size_t kMaxStopStrings = 4;

// `body`: the raw request body. `n_vocab` bounds prompt token ids. `default_seed` is used when the
// request gives no seed (the server draws one per request).
std::variant<CompletionRequest, ApiError> parse_completion_request(const std::string& body, bool chat,
                                                                   int32_t n_vocab, uint64_t default_seed);

}  // namespace clport::serve
