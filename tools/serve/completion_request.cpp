#include "completion_request.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

namespace clport::serve {
namespace {

using nlohmann::json;

// Thrown inside this file only, caught by parse_completion_request: each check is one line.
struct FieldError {
  ApiError error;
};

[[noreturn]] void refuse(const std::string& param, const std::string& message) {
  throw FieldError{invalid_field(param, message)};
}

std::string type_name(const json& v) {
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  return v.type_name();
}

// A number in [lo, hi], or nothing when the field is absent or null.
std::optional<double> number_field(const json& body, const char* name, double lo, double hi) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) refuse(name, std::string("'") + name + "' must be a number, not " + type_name(*it));
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < lo || v > hi) {
    refuse(name, std::string("'") + name + "' is " + it->dump() + "; allowed: " + json(lo).dump() + " to " +
                     json(hi).dump());
  }
  return v;
}

std::optional<int64_t> integer_field(const json& body, const char* name, int64_t lo, int64_t hi) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer()) {
    refuse(name, std::string("'") + name + "' must be an integer, not " + type_name(*it));
  }
  // Unsigned JSON integers above INT64_MAX are out of every range here.
  if (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
    refuse(name, std::string("'") + name + "' is " + it->dump() + "; allowed: " + std::to_string(lo) + " to " +
                     std::to_string(hi));
  }
  const int64_t v = it->get<int64_t>();
  if (v < lo || v > hi) {
    refuse(name, std::string("'") + name + "' is " + std::to_string(v) + "; allowed: " + std::to_string(lo) +
                     " to " + std::to_string(hi));
  }
  return v;
}

std::optional<bool> bool_field(const json& body, const char* name) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean()) refuse(name, std::string("'") + name + "' must be a boolean, not " + type_name(*it));
  return it->get<bool>();
}

// A field whose only supported value is its default: present with another value is refused.
void refuse_unless_default(const json& body, const char* name, const std::string& why) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return;
  const bool is_default = (it->is_boolean() && !it->get<bool>()) || (it->is_array() && it->empty()) ||
                          (it->is_object() && it->empty()) || (it->is_string() && it->get<std::string>().empty());
  if (!is_default) refuse(name, std::string("'") + name + "' is not supported by this server: " + why);
}

std::string message_text(const json& content, size_t index) {
  const std::string param = "messages[" + std::to_string(index) + "].content";
  if (content.is_string()) return content.get<std::string>();
  if (content.is_null()) return "";
  if (!content.is_array()) refuse(param, "'" + param + "' must be a string or an array of text parts, not " + type_name(content));
  // Content parts: text only (no images or audio in a text model).
  std::string text;
  for (size_t p = 0; p < content.size(); ++p) {
    const json& part = content[p];
    const std::string part_param = param + "[" + std::to_string(p) + "]";
    if (!part.is_object()) refuse(part_param, "'" + part_param + "' must be an object");
    auto type = part.find("type");
    if (type == part.end() || !type->is_string() || type->get<std::string>() != "text") {
      refuse(part_param + ".type", "'" + part_param + ".type' must be \"text\" (this model reads text only)");
    }
    auto t = part.find("text");
    if (t == part.end() || !t->is_string()) refuse(part_param + ".text", "'" + part_param + ".text' must be a string");
    text += t->get<std::string>();
  }
  return text;
}

std::vector<ChatMessage> parse_messages(const json& body) {
  auto it = body.find("messages");
  if (it == body.end()) refuse("messages", "'messages' is required");
  if (!it->is_array()) refuse("messages", "'messages' must be an array, not " + type_name(*it));
  if (it->empty()) refuse("messages", "'messages' must hold at least one message");
  std::vector<ChatMessage> messages;
  for (size_t i = 0; i < it->size(); ++i) {
    const json& m = (*it)[i];
    const std::string param = "messages[" + std::to_string(i) + "]";
    if (!m.is_object()) refuse(param, "'" + param + "' must be an object, not " + type_name(m));
    auto role = m.find("role");
    if (role == m.end() || !role->is_string()) refuse(param + ".role", "'" + param + ".role' must be a string");
    std::string r = role->get<std::string>();
    if (r == "developer") r = "system";  // OpenAI's newer name for the system role
    if (r != "system" && r != "user" && r != "assistant") {
      refuse(param + ".role", "'" + param + ".role' is \"" + role->get<std::string>() +
                                  "\"; allowed: system, developer, user, assistant");
    }
    if (m.contains("tool_calls") && !m["tool_calls"].is_null() && !m["tool_calls"].empty()) {
      refuse(param + ".tool_calls", "'" + param + ".tool_calls' is not supported by this server (no tools)");
    }
    auto content = m.find("content");
    if (content == m.end()) refuse(param + ".content", "'" + param + ".content' is required");
    messages.push_back({r, message_text(*content, i)});
  }
  return messages;
}

void parse_prompt(const json& body, int32_t n_vocab, CompletionRequest& r) {
  auto it = body.find("prompt");
  if (it == body.end()) refuse("prompt", "'prompt' is required");
  const json* p = &*it;
  // A batch of one prompt is that prompt; more are refused (one choice per request).
  if (p->is_array() && !p->empty() && (p->front().is_string() || p->front().is_array())) {
    if (p->size() != 1) refuse("prompt", "'prompt' holds " + std::to_string(p->size()) + " prompts; this server takes one per request");
    p = &p->front();
  }
  if (p->is_string()) {
    r.prompt_text = p->get<std::string>();
    return;
  }
  if (!p->is_array()) refuse("prompt", "'prompt' must be a string or an array of token ids, not " + type_name(*p));
  std::vector<int32_t> ids;
  for (size_t i = 0; i < p->size(); ++i) {
    const json& id = (*p)[i];
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= n_vocab) {
      refuse("prompt", "'prompt[" + std::to_string(i) + "]' is " + id.dump() + "; token ids are integers 0 to " +
                           std::to_string(n_vocab - 1));
    }
    ids.push_back(static_cast<int32_t>(id.get<int64_t>()));
  }
  r.prompt_ids = std::move(ids);
}

std::vector<std::string> parse_stop(const json& body) {
  auto it = body.find("stop");
  if (it == body.end() || it->is_null()) return {};
  std::vector<std::string> stop;
  if (it->is_string()) {
    stop.push_back(it->get<std::string>());
  } else if (it->is_array()) {
    for (const json& s : *it) {
      if (!s.is_string()) refuse("stop", "'stop' must hold strings, not " + type_name(s));
      stop.push_back(s.get<std::string>());
    }
  } else {
    refuse("stop", "'stop' must be a string or an array of strings, not " + type_name(*it));
  }
  if (stop.size() > kMaxStopStrings) {
    refuse("stop", "'stop' holds " + std::to_string(stop.size()) + " strings; at most " + std::to_string(kMaxStopStrings));
  }
  for (const auto& s : stop)
    if (s.empty()) refuse("stop", "'stop' strings must not be empty");
  return stop;
}

CompletionRequest parse_fields(const json& body, bool chat, int32_t n_vocab, uint64_t default_seed) {
  if (!body.is_object()) refuse("", "the request body must be a JSON object, not " + type_name(body));
  CompletionRequest r;
  r.chat = chat;
  auto model = body.find("model");
  if (model == body.end()) refuse("model", "'model' is required (GET /v1/models lists the one this server runs)");
  if (!model->is_string()) refuse("model", "'model' must be a string, not " + type_name(*model));
  r.model = model->get<std::string>();
  if (chat) {
    r.messages = parse_messages(body);
  } else {
    parse_prompt(body, n_vocab, r);
  }
  // Both names of the completion length; the newer wins when both are given.
  const int64_t kMaxTokens = std::numeric_limits<int32_t>::max();
  if (auto v = integer_field(body, "max_tokens", 1, kMaxTokens)) r.max_tokens = static_cast<int32_t>(*v);
  if (auto v = integer_field(body, "max_completion_tokens", 1, kMaxTokens)) r.max_tokens = static_cast<int32_t>(*v);
  // OpenAI's defaults: temperature 1, top_p 1, no top-k, no penalties.
  r.sampling.temperature = static_cast<float>(number_field(body, "temperature", 0, 2).value_or(1.0));
  r.sampling.top_p = static_cast<float>(number_field(body, "top_p", 0, 1).value_or(1.0));
  r.sampling.top_k = static_cast<int32_t>(integer_field(body, "top_k", 0, n_vocab).value_or(0));
  r.sampling.presence_penalty = static_cast<float>(number_field(body, "presence_penalty", -2, 2).value_or(0));
  r.sampling.frequency_penalty = static_cast<float>(number_field(body, "frequency_penalty", -2, 2).value_or(0));
  r.sampling.repeat_penalty = 1.0f;
  r.sampling.repeat_last_n = 64;
  r.sampling.seed = default_seed;
  if (auto v = integer_field(body, "seed", std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max())) {
    r.sampling.seed = static_cast<uint64_t>(*v);
  }
  if (auto v = integer_field(body, "n", 1, std::numeric_limits<int32_t>::max()); v && *v != 1) {
    refuse("n", "'n' is " + std::to_string(*v) + "; this server returns one choice per request (n = 1)");
  }
  r.stop = parse_stop(body);
  r.ignore_eos = bool_field(body, "ignore_eos").value_or(false);
  r.stream = bool_field(body, "stream").value_or(false);
  if (auto it = body.find("stream_options"); it != body.end() && !it->is_null()) {
    if (!it->is_object()) refuse("stream_options", "'stream_options' must be an object, not " + type_name(*it));
    if (!r.stream) refuse("stream_options", "'stream_options' is only allowed with \"stream\": true");
    r.include_usage = bool_field(*it, "include_usage").value_or(false);
  }
  if (chat) {
    // OpenAI: top_logprobs (0..20) needs "logprobs": true.
    const bool logprobs = bool_field(body, "logprobs").value_or(false);
    const auto top = integer_field(body, "top_logprobs", 0, kMaxTopLogprobs);
    if (top && !logprobs) refuse("top_logprobs", "'top_logprobs' needs \"logprobs\": true");
    if (logprobs) r.top_logprobs = static_cast<int32_t>(top.value_or(0));
  } else {
    refuse_unless_default(body, "logprobs", "log probabilities are given by /v1/chat/completions only");
  }
  refuse_unless_default(body, "logit_bias", "no logit bias is applied");
  refuse_unless_default(body, "tools", "no tool calls");
  refuse_unless_default(body, "functions", "no function calls");
  if (auto it = body.find("tool_choice"); it != body.end() && !it->is_null() && *it != "none") {
    refuse("tool_choice", "'tool_choice' is not supported by this server: no tool calls");
  }
  refuse_unless_default(body, "echo", "the prompt is not echoed");
  refuse_unless_default(body, "suffix", "no text insertion");
  if (auto v = integer_field(body, "best_of", 1, std::numeric_limits<int32_t>::max()); v && *v != 1) {
    refuse("best_of", "'best_of' is " + std::to_string(*v) + "; this server samples one candidate per request");
  }
  if (auto it = body.find("response_format"); it != body.end() && !it->is_null()) {
    const bool text = it->is_object() && it->contains("type") && (*it)["type"] == "text";
    if (!text) refuse("response_format", "'response_format' other than {\"type\": \"text\"} is not supported by this server");
  }
  return r;
}

}  // namespace

std::variant<CompletionRequest, ApiError> parse_completion_request(const std::string& body, bool chat,
                                                                   int32_t n_vocab, uint64_t default_seed) {
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    // Say where: nlohmann's exception message carries the line and column.
    std::string detail;
    try {
      json again = json::parse(body);
      (void)again;
    } catch (const json::exception& e) {
      detail = e.what();
    }
    return ApiError{400, "the request body is not valid JSON: " + detail, "invalid_request_error", "", "invalid_json"};
  }
  try {
    return parse_fields(doc, chat, n_vocab, default_seed);
  } catch (const FieldError& e) {
    return e.error;
  } catch (const nlohmann::json::exception& e) {
    return ApiError{400, std::string("the request could not be read: ") + e.what(), "invalid_request_error", "", "invalid_value"};
  }
}

}  // namespace clport::serve
