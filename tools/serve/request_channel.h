// What the scheduler thread sends to the HTTP thread answering one request: text as it is
// generated, then the end (with the finish reason and token counts) or an error. The HTTP thread
// cancels the request when its client goes away; the scheduler sees that before the next step.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "api_error.h"

namespace clport::serve {

struct Usage {
  int prompt_tokens = 0;
  int cached_tokens = 0;  // of prompt_tokens, reused from the slot's KV cache
  int completion_tokens = 0;
};

// A generated token's log probability, and the most likely tokens at its place (chat logprobs).
struct TokenLogprob {
  std::string token;  // its bytes (may be part of a UTF-8 character)
  float logprob = 0;
  std::vector<std::pair<std::string, float>> top;
};

struct RequestEvent {
  enum class Kind { Text, Done, Failed };
  Kind kind = Kind::Text;
  std::string text;           // Text (may be empty when it carries logprobs only)
  std::vector<TokenLogprob> logprobs;  // Text, when asked for: the tokens generated since the last event
  std::string finish_reason;  // Done: "stop" or "length"
  Usage usage;                // Done
  ApiError error;             // Failed

  static RequestEvent text_event(std::string text, std::vector<TokenLogprob> logprobs = {}) {
    RequestEvent e;
    e.text = std::move(text);
    e.logprobs = std::move(logprobs);
    return e;
  }
  static RequestEvent done(std::string finish_reason, Usage usage) {
    RequestEvent e;
    e.kind = Kind::Done;
    e.finish_reason = std::move(finish_reason);
    e.usage = usage;
    return e;
  }
  static RequestEvent failed(ApiError error) {
    RequestEvent e;
    e.kind = Kind::Failed;
    e.error = std::move(error);
    return e;
  }
};

class RequestChannel {
 public:
  void push(RequestEvent event) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      events_.push_back(std::move(event));
    }
    ready_.notify_one();
  }
  // Moves the events that arrived into `out`, waiting up to `timeout` for the first.
  bool wait(std::vector<RequestEvent>& out, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait_for(lock, timeout, [&] { return !events_.empty(); });
    if (events_.empty()) return false;
    for (auto& e : events_) out.push_back(std::move(e));
    events_.clear();
    return true;
  }
  void cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<RequestEvent> events_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace clport::serve
