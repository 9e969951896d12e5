#include "openai_responses.h"

namespace clport::serve {

using nlohmann::json;

namespace {

json object_name(const ResponseHeader& h, bool chunk) {
  if (h.chat) return chunk ? "chat.completion.chunk" : "chat.completion";
  return "text_completion";
}

json head(const ResponseHeader& h, bool chunk) {
  return {{"id", h.id}, {"object", object_name(h, chunk)}, {"created", h.created}, {"model", h.model},
          {"system_fingerprint", "clport"}};
}

json finish_or_null(const std::string& finish_reason) {
  return finish_reason.empty() ? json(nullptr) : json(finish_reason);
}

}  // namespace

json usage_json(const Usage& u) {
  return {{"prompt_tokens", u.prompt_tokens},
          {"completion_tokens", u.completion_tokens},
          {"total_tokens", u.prompt_tokens + u.completion_tokens},
          {"prompt_tokens_details", {{"cached_tokens", u.cached_tokens}}}};
}

json logprobs_json(bool asked, const std::vector<TokenLogprob>& tokens) {
  if (!asked) return nullptr;
  auto bytes = [](const std::string& s) {
    json b = json::array();
    for (unsigned char c : s) b.push_back(c);
    return b;
  };
  json content = json::array();
  for (const auto& t : tokens) {
    json top = json::array();
    for (const auto& [token, logprob] : t.top) {
      top.push_back({{"token", token}, {"logprob", logprob}, {"bytes", bytes(token)}});
    }
    content.push_back({{"token", t.token}, {"logprob", t.logprob}, {"bytes", bytes(t.token)}, {"top_logprobs", top}});
  }
  return {{"content", content}, {"refusal", nullptr}};
}

json completion_json(const ResponseHeader& h, const std::string& text, const std::string& finish_reason,
                     const Usage& usage, const json& logprobs) {
  json doc = head(h, false);
  json choice = {{"index", 0}, {"logprobs", logprobs}, {"finish_reason", finish_reason}};
  if (h.chat) {
    choice["message"] = {{"role", "assistant"}, {"content", text}};
  } else {
    choice["text"] = text;
  }
  doc["choices"] = json::array({choice});
  doc["usage"] = usage_json(usage);
  return doc;
}

json chunk_json(const ResponseHeader& h, const std::string& text, bool first, const std::string& finish_reason,
                const json& logprobs) {
  json doc = head(h, true);
  json choice = {{"index", 0}, {"logprobs", logprobs}, {"finish_reason", finish_or_null(finish_reason)}};
  if (h.chat) {
    json delta = json::object();
    if (first) delta["role"] = "assistant";
    if (finish_reason.empty()) delta["content"] = text;
    choice["delta"] = delta;
  } else {
    choice["text"] = text;
  }
  doc["choices"] = json::array({choice});
  return doc;
}

json usage_chunk_json(const ResponseHeader& h, const Usage& usage) {
  json doc = head(h, true);
  doc["choices"] = json::array();
  doc["usage"] = usage_json(usage);
  return doc;
}

std::string dump_json(const json& doc) { return doc.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string sse_event(const json& doc) { return "data: " + dump_json(doc) + "\n\n"; }

}  // namespace clport::serve
