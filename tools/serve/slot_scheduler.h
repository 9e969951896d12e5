// Continuous batching over the engine's sequences: each slot is one sequence of the KV cache.
// One thread owns the engine. Each step it admits queued requests into free slots (the slot whose
// cache shares the longest prefix with the prompt, so a follow-up turn evaluates only its new
// tokens), feeds every busy slot (a chunk of its prompt, or the token it sampled last) to one
// EngineCore::evaluate, and samples each slot whose prompt is done. A request joins at the next step
// and leaves the step after it ends; a cancelled or expired one leaves at once and frees its cells.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "api_error.h"
#include "engine/engine_core.h"
#include "request_channel.h"
#include "server_metrics.h"
#include "stop_strings.h"

namespace clport::serve {

struct Job {
  std::string id;  // for the log
  std::vector<int32_t> prompt;
  std::optional<int32_t> max_tokens;  // none: until an end token or a full context
  SamplerOptions sampling;
  std::vector<std::string> stop;
  std::vector<int32_t> stop_tokens;  // end the reply besides the vocabulary's end-of-generation tokens
  std::chrono::steady_clock::time_point deadline;
  bool ignore_eos = false;     // the vocabulary's end-of-generation tokens do not end the reply
  int32_t top_logprobs = -1;  // >= 0: each token's log probability and this many alternatives
};

class SlotScheduler {
 public:
  struct Options {
    size_t queue_limit = 64;  // requests waiting for a slot; more are refused (429)
  };
  SlotScheduler(EngineCore& engine, ServerMetrics& metrics, Options options);
  ~SlotScheduler();
  SlotScheduler(const SlotScheduler&) = delete;
  SlotScheduler& operator=(const SlotScheduler&) = delete;

  // Queues a job; its events arrive on the returned channel. A prompt the context cannot hold is
  // refused (400), as is a full queue (429) or a scheduler shutting down (503).
  std::variant<std::shared_ptr<RequestChannel>, ApiError> submit(Job job);
  // Ends every request (queued and running) with a 503 "shutting down" error and stops the thread.
  void shutdown();

  uint32_t slots() const { return n_slots_; }
  uint32_t context_per_slot() const { return n_ctx_; }

 private:
  struct Queued {
    Job job;
    std::shared_ptr<RequestChannel> channel;
  };
  struct Slot;
  void run();
  void admit(Queued queued);
  void feed_and_sample();
  void sample(Slot& slot, std::vector<float>& logits_row);
  void finish(Slot& slot, const char* reason);
  void fail(Slot& slot, const ApiError& error, bool keep_cache);
  void drop_cancelled_and_expired();
  void update_gauges();

  EngineCore& engine_;
  ServerMetrics& metrics_;
  Options options_;
  uint32_t n_slots_ = 0, n_ctx_ = 0, n_batch_ = 0;
  std::vector<std::unique_ptr<Slot>> slots_;
  uint64_t use_clock_ = 0;  // orders the slots by last use (the least recently used is reused first)

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Queued> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace clport::serve
