// Text and JSON renderings of the pool statistics (for `clport bench`, `clport profile`, logs).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "memory/memory_pool.h"

namespace clport {
namespace {

std::string mib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f MiB", double(bytes) / (1024.0 * 1024.0));
  return text;
}

}  // namespace

std::string MemoryPoolStats::to_string() const {
  char rates[96];
  std::snprintf(rates, sizeof(rates), "hit rate %.1f%%, fragmentation %.1f%%",
                hit_rate() * 100.0, fragmentation * 100.0);
  return "live " + mib(live_bytes) + " in " + std::to_string(live_allocations) +
         " buffers (peak " + mib(peak_live_bytes) + "), reserved " + mib(reserved_bytes) +
         " (peak " + mib(peak_reserved_bytes) + ", idle " + mib(idle_bytes) + ", " +
         std::to_string(blocks) + " blocks, " + std::to_string(dedicated_buffers) +
         " dedicated), " + std::to_string(allocations) + " allocations, " + rates + ", " +
         std::to_string(failures) + " failures";
}

std::string MemoryPoolStats::to_json() const {
  nlohmann::json j = {{"live_bytes", live_bytes},
                      {"requested_bytes", requested_bytes},
                      {"peak_requested_bytes", peak_requested_bytes},
                      {"peak_live_bytes", peak_live_bytes},
                      {"reserved_bytes", reserved_bytes},
                      {"peak_reserved_bytes", peak_reserved_bytes},
                      {"idle_bytes", idle_bytes},
                      {"live_allocations", live_allocations},
                      {"blocks", blocks},
                      {"dedicated_buffers", dedicated_buffers},
                      {"allocations", allocations},
                      {"reuse_hits", reuse_hits},
                      {"hit_rate", hit_rate()},
                      {"failures", failures},
                      {"frees", frees},
                      {"released_to_driver", released_to_driver},
                      {"fragmentation", fragmentation}};
  return j.dump();
}

}  // namespace clport
