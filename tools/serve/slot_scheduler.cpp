#include "slot_scheduler.h"

#include <algorithm>

#include "common/logger.h"
#include "clport/tokenizer.h"
#include "token_logprobs.h"

namespace clport::serve {

using Clock = std::chrono::steady_clock;

struct SlotScheduler::Slot {
  uint32_t seq = 0;
  std::shared_ptr<RequestChannel> channel;  // null: free
  Job job;
  std::vector<int32_t> pending;  // prompt tokens still to evaluate
  std::vector<int32_t> history;  // prompt and generated tokens (the sampler's penalties)
  int32_t next_token = -1;       // sampled last step, evaluated this step
  int cached = 0;                // prompt tokens the cache held already
  int generated = 0;
  std::optional<Sampler> sampler;
  std::optional<TokenStreamDecoder> decoder;
  std::optional<StopStrings> stops;
  uint64_t last_used = 0;
  Clock::time_point started, first_token;

  bool busy() const { return channel != nullptr; }
};

namespace {

size_t common_prefix(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

ApiError shutting_down() {
  return ApiError{503, "the server is shutting down", "server_error", "", "shutting_down"};
}

}  // namespace

SlotScheduler::SlotScheduler(EngineCore& engine, ServerMetrics& metrics, Options options)
    : engine_(engine), metrics_(metrics), options_(options) {
  n_slots_ = engine_.n_seq();
  n_ctx_ = engine_.model().n_ctx();
  n_batch_ = std::max<uint32_t>(1, engine_.model().n_batch());
  for (uint32_t s = 0; s < n_slots_; ++s) {
    slots_.push_back(std::make_unique<Slot>());
    slots_.back()->seq = s;
  }
  thread_ = std::thread([this] { run(); });
}

SlotScheduler::~SlotScheduler() { shutdown(); }

std::variant<std::shared_ptr<RequestChannel>, ApiError> SlotScheduler::submit(Job job) {
  if (job.prompt.empty()) {
    return ApiError{400, "the prompt has no tokens", "invalid_request_error", "prompt", "empty_prompt"};
  }
  if (job.prompt.size() > n_ctx_) {
    return ApiError{400,
                    "the prompt has " + std::to_string(job.prompt.size()) + " tokens; a slot's context holds " +
                        std::to_string(n_ctx_) + " (start the server with a larger -c, or shorten the prompt)",
                    "invalid_request_error", "messages", "context_length_exceeded"};
  }
  auto channel = std::make_shared<RequestChannel>();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return shutting_down();
    if (queue_.size() >= options_.queue_limit) {
      return ApiError{429,
                      "the server is busy: " + std::to_string(queue_.size()) + " requests wait for one of " +
                          std::to_string(n_slots_) + " slots (the queue holds " +
                          std::to_string(options_.queue_limit) + "); retry later",
                      "rate_limit_error", "", "queue_full"};
    }
    queue_.push_back({std::move(job), channel});
  }
  wake_.notify_one();
  return channel;
}

void SlotScheduler::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void SlotScheduler::run() {
  for (;;) {
    std::deque<Queued> admitted;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      const auto any_busy = [&] {
        return std::any_of(slots_.begin(), slots_.end(), [](const auto& s) { return s->busy(); });
      };
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty() || any_busy(); });
      if (stopping_) {
        for (auto& q : queue_) q.channel->push(RequestEvent::failed(shutting_down()));
        queue_.clear();
        lock.unlock();
        for (auto& s : slots_)
          if (s->busy()) fail(*s, shutting_down(), /*keep_cache=*/true);
        update_gauges();
        return;
      }
      // A queued request whose client left or whose time ran out leaves before it takes a slot.
      const auto now = Clock::now();
      for (auto it = queue_.begin(); it != queue_.end();) {
        if (it->channel->cancelled() || now > it->job.deadline) {
          if (!it->channel->cancelled()) {
            it->channel->push(RequestEvent::failed(
                ApiError{503, "the request waited for a slot past the server's time limit (--timeout)", "server_error",
                         "", "timeout"}));
          }
          it = queue_.erase(it);
        } else {
          ++it;
        }
      }
      size_t free_slots = std::count_if(slots_.begin(), slots_.end(), [](const auto& s) { return !s->busy(); });
      while (free_slots > 0 && !queue_.empty()) {
        admitted.push_back(std::move(queue_.front()));
        queue_.pop_front();
        --free_slots;
      }
    }
    for (auto& q : admitted) admit(std::move(q));
    drop_cancelled_and_expired();
    feed_and_sample();
    update_gauges();
  }
}

// The free slot whose cache shares the longest prefix with the prompt (ties: the least recently
// used), rewound to that prefix. At least the prompt's last token is evaluated: its logits start
// the sampling.
void SlotScheduler::admit(Queued queued) {
  Slot* best = nullptr;
  size_t best_prefix = 0;
  for (auto& s : slots_) {
    if (s->busy()) continue;
    const size_t prefix = common_prefix(engine_.cached_tokens(s->seq), queued.job.prompt);
    if (!best || prefix > best_prefix || (prefix == best_prefix && s->last_used < best->last_used)) {
      best = s.get();
      best_prefix = prefix;
    }
  }
  Slot& slot = *best;  // run() admits no more jobs than there are free slots
  const std::vector<int32_t>& prompt = queued.job.prompt;
  const size_t keep = std::min(best_prefix, prompt.size() - 1);
  const Status rewound = engine_.rewind(engine_.cached_tokens(slot.seq).size() - keep, slot.seq);
  slot.channel = std::move(queued.channel);
  slot.job = std::move(queued.job);
  slot.started = Clock::now();
  if (!rewound.ok()) {
    fail(slot, ApiError{500, rewound.message(), "server_error", "", "engine_error"}, false);
    return;
  }
  slot.pending.assign(slot.job.prompt.begin() + keep, slot.job.prompt.end());
  slot.history = slot.job.prompt;
  slot.cached = static_cast<int>(keep);
  slot.generated = 0;
  slot.next_token = -1;
  slot.sampler.emplace(slot.job.sampling);
  slot.decoder.emplace(engine_.tokenizer());
  slot.stops.emplace(slot.job.stop);
  slot.last_used = ++use_clock_;
  metrics_.add_prompt_tokens(slot.pending.size(), keep);
}

void SlotScheduler::drop_cancelled_and_expired() {
  const auto now = Clock::now();
  for (auto& s : slots_) {
    if (!s->busy()) continue;
    if (s->channel->cancelled()) {
      logger("serve")->info("{}: cancelled by the client after {} tokens", s->job.id, s->generated);
      fail(*s, ApiError{499, "cancelled by the client", "invalid_request_error", "", "cancelled"}, false);
    } else if (now > s->job.deadline) {
      fail(*s,
           ApiError{503, "the request ran past the server's time limit (--timeout) after " +
                             std::to_string(s->generated) + " generated tokens",
                    "server_error", "", "timeout"},
           false);
    }
  }
}

void SlotScheduler::feed_and_sample() {
  std::vector<EngineCore::SequenceInput> inputs;
  std::vector<Slot*> fed;
  bool prompt_step = false;
  for (auto& s : slots_) {
    if (!s->busy()) continue;
    EngineCore::SequenceInput in;
    in.seq = s->seq;
    if (!s->pending.empty()) {
      // A prompt goes in chunks of one batch, so a long prompt does not stall the others' decoding.
      const size_t n = std::min<size_t>(s->pending.size(), n_batch_);
      in.tokens.assign(s->pending.begin(), s->pending.begin() + n);
      s->pending.erase(s->pending.begin(), s->pending.begin() + n);
      prompt_step = true;
    } else {
      in.tokens = {s->next_token};
    }
    inputs.push_back(std::move(in));
    fed.push_back(s.get());
  }
  if (inputs.empty()) return;
  std::vector<float> logits;
  const auto t0 = Clock::now();
  const Status status = engine_.evaluate(inputs, logits);
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  metrics_.add_step_seconds(prompt_step ? seconds : 0, prompt_step ? 0 : seconds);
  if (!status.ok()) {
    // The engine treats every input's sequence as empty after an error.
    for (Slot* s : fed) fail(*s, ApiError{500, status.message(), "server_error", "", "engine_error"}, false);
    return;
  }
  const size_t n_vocab = logits.size() / inputs.size();
  std::vector<float> row(n_vocab);
  for (size_t i = 0; i < fed.size(); ++i) {
    Slot& s = *fed[i];
    if (!s.pending.empty()) continue;  // the prompt goes on next step
    std::copy(logits.begin() + i * n_vocab, logits.begin() + (i + 1) * n_vocab, row.begin());
    sample(s, row);
  }
}

void SlotScheduler::sample(Slot& slot, std::vector<float>& logits_row) {
  if (slot.generated == 0) slot.first_token = Clock::now();
  const Tokenizer& tok = engine_.tokenizer();
  // Log probabilities of the model's distribution, before the sampler's penalties change the row.
  std::optional<TokenLogprobs> logprobs;
  if (slot.job.top_logprobs >= 0) logprobs.emplace(logits_row);
  const int32_t token = slot.sampler->sample(logits_row, slot.history);
  const auto& stop_tokens = slot.job.stop_tokens;
  if ((tok.is_eog(token) && !slot.job.ignore_eos) || std::find(stop_tokens.begin(), stop_tokens.end(), token) != stop_tokens.end()) {
    finish(slot, "stop");
    return;
  }
  ++slot.generated;
  metrics_.add_generated_tokens(1);
  slot.history.push_back(token);
  const std::string text = slot.stops->push(slot.decoder->push(token));
  std::vector<TokenLogprob> entry;
  if (logprobs) entry.push_back(logprobs->entry(tok, token, slot.job.top_logprobs));
  if (!text.empty() || !entry.empty()) slot.channel->push(RequestEvent::text_event(text, std::move(entry)));
  if (slot.stops->stopped()) {
    finish(slot, "stop");
  } else if (slot.job.max_tokens && slot.generated >= *slot.job.max_tokens) {
    finish(slot, "length");
  } else if (engine_.cached_tokens(slot.seq).size() >= n_ctx_) {
    finish(slot, "length");  // no cell left to evaluate the token just sampled
  } else {
    slot.next_token = token;
  }
}

void SlotScheduler::finish(Slot& slot, const char* reason) {
  std::string rest = slot.stops->push(slot.decoder->flush());
  rest += slot.stops->flush();
  if (!rest.empty()) slot.channel->push(RequestEvent::text_event(rest));
  RequestEvent done =
      RequestEvent::done(reason, {static_cast<int>(slot.job.prompt.size()), slot.cached, slot.generated});
  const auto now = Clock::now();
  logger("serve")->info("{}: {} prompt tokens ({} cached), {} generated, first token {:.3f} s, total {:.3f} s, "
                        "slot {}, finish {}",
                        slot.job.id, slot.job.prompt.size(), slot.cached, slot.generated,
                        std::chrono::duration<double>(slot.first_token - slot.started).count(),
                        std::chrono::duration<double>(now - slot.started).count(), slot.seq, reason);
  slot.channel->push(std::move(done));
  slot.channel.reset();
  slot.last_used = ++use_clock_;
}

// keep_cache: the tokens evaluated so far stay for the next prompt that shares them; else the
// sequence's cells are freed.
void SlotScheduler::fail(Slot& slot, const ApiError& error, bool keep_cache) {
  if (!keep_cache) (void)engine_.rewind(engine_.cached_tokens(slot.seq).size(), slot.seq);
  if (error.status != 499) {
    logger("serve")->info("{}: failed after {} generated tokens: {}", slot.job.id, slot.generated, error.message);
  }
  slot.channel->push(RequestEvent::failed(error));
  slot.channel.reset();
  slot.pending.clear();
  slot.last_used = ++use_clock_;
}

void SlotScheduler::update_gauges() {
  uint64_t busy = 0, cells = 0;
  for (auto& s : slots_) {
    busy += s->busy();
    cells += engine_.cached_tokens(s->seq).size();
  }
  size_t depth;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    depth = queue_.size();
  }
  metrics_.set_gauges(depth, busy, cells);
}

}  // namespace clport::serve
