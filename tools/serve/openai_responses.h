// The JSON documents of OpenAI's chat and text completion responses: whole responses, streamed
// chunks and the usage object.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "request_channel.h"

namespace clport::serve {

struct ResponseHeader {
  std::string id;  // "chatcmpl-..." or "cmpl-..."
  std::string model;
  int64_t created = 0;  // Unix seconds
  bool chat = true;
};

nlohmann::json usage_json(const Usage& usage);
// A choice's "logprobs": null when none were asked for (`asked` false), else {"content": [...]}.
nlohmann::json logprobs_json(bool asked, const std::vector<TokenLogprob>& tokens);
// A whole (non-streamed) response.
nlohmann::json completion_json(const ResponseHeader& h, const std::string& text, const std::string& finish_reason,
                               const Usage& usage, const nlohmann::json& logprobs = nullptr);
// One streamed chunk: text (the assistant role opens a chat stream's first chunk), or the end
// (finish_reason set, no text).
nlohmann::json chunk_json(const ResponseHeader& h, const std::string& text, bool first,
                          const std::string& finish_reason, const nlohmann::json& logprobs = nullptr);
// The last chunk of a stream that asked for usage: no choices, the usage.
nlohmann::json usage_chunk_json(const ResponseHeader& h, const Usage& usage);

// A server-sent event carrying one JSON document.
std::string sse_event(const nlohmann::json& doc);
// Invalid UTF-8 in generated text is replaced, never thrown on.
std::string dump_json(const nlohmann::json& doc);

}  // namespace clport::serve
