#include "ops/cpu_parallel.h"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>
#include <vector>

namespace clport::cpu::detail {
namespace {

// Below this many operations per thread, starting a thread costs more than it saves.
constexpr double kMinWorkPerThread = 64.0 * 1024.0;

}  // namespace

int plan_threads(int64_t n_items, double work_per_item, int n_threads) {
  int wanted = n_threads > 0 ? n_threads : static_cast<int>(std::thread::hardware_concurrency());
  wanted = std::max(wanted, 1);
  const double total = static_cast<double>(n_items) * work_per_item;
  const auto by_work = static_cast<int64_t>(total / kMinWorkPerThread);
  const int64_t limit = std::max<int64_t>(1, std::min<int64_t>(n_items, by_work));
  return static_cast<int>(std::min<int64_t>(wanted, limit));
}

void run_parallel(int threads, int64_t n_items,
                  const std::function<void(int, int64_t, int64_t)>& fn) {
  if (n_items <= 0) return;
  if (threads <= 1) {
    fn(0, 0, n_items);
    return;
  }
  // Several chunks per thread so uneven items (e.g. causal attention rows) balance out.
  const int64_t chunk = std::max<int64_t>(1, n_items / (static_cast<int64_t>(threads) * 4));
  std::atomic<int64_t> next{0};
  auto worker = [&](int index) {
    for (;;) {
      const int64_t begin = next.fetch_add(chunk);
      if (begin >= n_items) return;
      fn(index, begin, std::min(n_items, begin + chunk));
    }
  };
  std::vector<std::thread> pool;
  try {
    pool.reserve(static_cast<size_t>(threads - 1));
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  } catch (const std::exception&) {
    // Could not start (more) threads: the threads that did start and this one finish the work.
  }
  worker(0);
  for (auto& th : pool) th.join();
}

}  // namespace clport::cpu::detail
