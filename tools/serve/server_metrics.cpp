#include "server_metrics.h"

#include <sstream>

namespace clport::serve {

void ServerMetrics::count_response(int status) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++responses_[status];
}

void ServerMetrics::add_prompt_tokens(uint64_t evaluated, uint64_t cached) {
  std::lock_guard<std::mutex> lock(mutex_);
  prompt_tokens_ += evaluated;
  cached_prompt_tokens_ += cached;
}

void ServerMetrics::add_generated_tokens(uint64_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  generated_tokens_ += n;
}

void ServerMetrics::add_step_seconds(double prompt_seconds, double generation_seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  prompt_seconds_ += prompt_seconds;
  generation_seconds_ += generation_seconds;
}

void ServerMetrics::set_gauges(uint64_t queue_depth, uint64_t busy_slots, uint64_t kv_cells_used) {
  std::lock_guard<std::mutex> lock(mutex_);
  queue_depth_ = queue_depth;
  busy_slots_ = busy_slots;
  kv_cells_used_ = kv_cells_used;
}

std::string ServerMetrics::prometheus_text(uint64_t total_slots, uint64_t kv_cells_total) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::ostringstream out;
  auto metric = [&](const char* name, const char* type, const char* help, auto value) {
    out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n' << name << ' ' << value << '\n';
  };
  out << "# HELP clport_requests_total Requests answered, by HTTP status.\n# TYPE clport_requests_total counter\n";
  for (const auto& [status, n] : responses_) out << "clport_requests_total{status=\"" << status << "\"} " << n << '\n';
  metric("clport_prompt_tokens_total", "counter", "Prompt tokens evaluated (cached ones not counted).", prompt_tokens_);
  metric("clport_prompt_tokens_cached_total", "counter", "Prompt tokens reused from a slot's KV cache.",
         cached_prompt_tokens_);
  metric("clport_generated_tokens_total", "counter", "Tokens generated.", generated_tokens_);
  metric("clport_prompt_tokens_per_second", "gauge", "Prompt tokens evaluated per second of prompt steps.",
         prompt_seconds_ > 0 ? prompt_tokens_ / prompt_seconds_ : 0.0);
  metric("clport_generated_tokens_per_second", "gauge",
         "Tokens generated per second of generation steps, over all slots.",
         generation_seconds_ > 0 ? generated_tokens_ / generation_seconds_ : 0.0);
  metric("clport_queue_depth", "gauge", "Requests waiting for a slot.", queue_depth_);
  metric("clport_slots_busy", "gauge", "Slots generating.", busy_slots_);
  metric("clport_slots_total", "gauge", "Slots (sequences) of the model.", total_slots);
  metric("clport_kv_cells_used", "gauge", "KV cache cells holding tokens, over all slots.", kv_cells_used_);
  metric("clport_kv_cells_total", "gauge", "KV cache cells, over all slots.", kv_cells_total);
  return out.str();
}

}  // namespace clport::serve
