// What GET /metrics reports, in Prometheus' text format: counters the HTTP threads and the
// scheduler add to, and gauges the scheduler sets after each step.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace clport::serve {

class ServerMetrics {
 public:
  void count_response(int status);
  void add_prompt_tokens(uint64_t evaluated, uint64_t cached);
  void add_generated_tokens(uint64_t n);
  // Seconds the engine spent in steps that evaluated prompt tokens / only generated tokens.
  void add_step_seconds(double prompt_seconds, double generation_seconds);
  void set_gauges(uint64_t queue_depth, uint64_t busy_slots, uint64_t kv_cells_used);
  std::string prometheus_text(uint64_t total_slots, uint64_t kv_cells_total) const;

 private:
  mutable std::mutex mutex_;
  std::map<int, uint64_t> responses_;  // by HTTP status
  uint64_t prompt_tokens_ = 0, cached_prompt_tokens_ = 0, generated_tokens_ = 0;
  double prompt_seconds_ = 0, generation_seconds_ = 0;
  uint64_t queue_depth_ = 0, busy_slots_ = 0, kv_cells_used_ = 0;
};

}  // namespace clport::serve
