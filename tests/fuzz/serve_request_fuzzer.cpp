// libFuzzer target: `clport serve`'s request bodies (tools/serve/completion_request.h) and stop
// strings (stop_strings.h). Any body is either a request whose every value is in its documented
// range or a 400 naming what is wrong; the stop strings of an accepted request, fed the prompt's
// text in pieces, show exactly the text before the first stop string. Layout: one byte (even:
// chat, odd: text completion), then the body.
#include <algorithm>
#include <cstdint>
#include <string>

#include "completion_request.h"
#include "fuzz_check.h"
#include "stop_strings.h"

using clport::serve::ApiError;
using clport::serve::CompletionRequest;

namespace {

constexpr int32_t kVocab = 1000;

void check_request(const CompletionRequest& r) {
  const auto& s = r.sampling;
  FUZZ_CHECK(s.temperature >= 0 && s.temperature <= 2, "temperature %f", s.temperature);
  FUZZ_CHECK(s.top_p >= 0 && s.top_p <= 1, "top_p %f", s.top_p);
  FUZZ_CHECK(s.top_k >= 0 && s.top_k <= kVocab, "top_k %d", s.top_k);
  FUZZ_CHECK(s.presence_penalty >= -2 && s.presence_penalty <= 2, "presence %f", s.presence_penalty);
  FUZZ_CHECK(s.frequency_penalty >= -2 && s.frequency_penalty <= 2, "frequency %f", s.frequency_penalty);
  FUZZ_CHECK(!r.max_tokens || *r.max_tokens >= 1, "max_tokens %d", *r.max_tokens);
  FUZZ_CHECK(r.stop.size() <= clport::serve::kMaxStopStrings, "%zu stop strings", r.stop.size());
  for (const auto& stop : r.stop) FUZZ_CHECK(!stop.empty(), "an empty stop string");
  FUZZ_CHECK(r.top_logprobs >= -1 && r.top_logprobs <= clport::serve::kMaxTopLogprobs, "top_logprobs %d",
             r.top_logprobs);
  FUZZ_CHECK(r.stream || !r.include_usage, "include_usage without stream");
  if (r.chat) {
    FUZZ_CHECK(!r.messages.empty(), "a chat request without messages");
    for (const auto& m : r.messages)
      FUZZ_CHECK(m.role == "system" || m.role == "user" || m.role == "assistant", "role %s", m.role.c_str());
  } else if (r.prompt_ids) {
    for (int32_t id : *r.prompt_ids) FUZZ_CHECK(id >= 0 && id < kVocab, "token id %d", id);
  }
}

// Pushed in pieces of every length 1..3, the stop strings show the text up to the first stop.
void check_stop_strings(const std::vector<std::string>& stop, const std::string& text) {
  size_t first = std::string::npos;
  for (const auto& s : stop) first = std::min(first, text.find(s));
  const std::string want = first == std::string::npos ? text : text.substr(0, first);
  for (size_t piece = 1; piece <= 3; ++piece) {
    clport::serve::StopStrings filter(stop);
    std::string shown;
    for (size_t i = 0; i < text.size(); i += piece) shown += filter.push(text.substr(i, piece));
    shown += filter.flush();
    FUZZ_CHECK(shown == want, "pieces of %zu: shown '%s', want '%s'", piece, shown.c_str(), want.c_str());
    FUZZ_CHECK(filter.stopped() == (first != std::string::npos), "stopped() is %d", filter.stopped());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool chat = (data[0] & 1) == 0;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto parsed = clport::serve::parse_completion_request(body, chat, kVocab, 7);
  if (const auto* e = std::get_if<ApiError>(&parsed)) {
    FUZZ_CHECK(e->status == 400 && !e->message.empty(), "status %d, message '%s'", e->status, e->message.c_str());
    FUZZ_CHECK(e->body().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size() > 0, "no body");
    return 0;
  }
  const CompletionRequest& r = std::get<CompletionRequest>(parsed);
  check_request(r);
  std::string text = r.prompt_text;
  for (const auto& m : r.messages) text += m.content;
  if (text.size() <= 4096) check_stop_strings(r.stop, text);
  return 0;
}
