#include "cpu_backend/thread_pool.h"

#include <algorithm>
#include <system_error>

namespace clport::fastcpu {
namespace {

// About 50-200 microseconds of spinning before a worker blocks: long enough to cover the gap
// between two ops of one forward pass, short enough not to burn a core between tokens.
constexpr int kSpinsBeforeBlocking = 1 << 14;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#else
  std::this_thread::yield();
#endif
}

}  // namespace

ThreadPool::ThreadPool(int n_threads) {
  int wanted = n_threads > 0 ? n_threads : static_cast<int>(std::thread::hardware_concurrency());
  wanted = std::max(wanted, 1);
  workers_.reserve(static_cast<size_t>(wanted - 1));
  for (int t = 1; t < wanted; ++t) {
    try {
      workers_.emplace_back([this, t] { worker_main(t); });
    } catch (const std::system_error&) {
      break;  // the pool runs with the workers that did start
    }
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::run_job(Trampoline fn, void* ctx, int64_t n_items, int64_t chunk) {
  job_fn_ = fn;
  job_ctx_ = ctx;
  job_items_ = n_items;
  job_chunk_ = chunk;
  next_item_.store(0, std::memory_order_relaxed);
  busy_workers_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  {
    // Under the mutex, so a worker that is about to block cannot miss the new generation.
    std::lock_guard<std::mutex> lock(mutex_);
    generation_.fetch_add(1, std::memory_order_release);
    if (sleepers_ > 0) wake_.notify_all();
  }
  work_on_job(0);
  for (int spins = 0; busy_workers_.load(std::memory_order_acquire) != 0; ++spins) {
    if (spins < kSpinsBeforeBlocking) {
      cpu_relax();
    } else {
      std::this_thread::yield();  // a worker lost its core: give it ours
    }
  }
}

void ThreadPool::work_on_job(int thread) {
  for (;;) {
    const int64_t begin = next_item_.fetch_add(job_chunk_, std::memory_order_relaxed);
    if (begin >= job_items_) return;
    job_fn_(job_ctx_, thread, begin, std::min(job_items_, begin + job_chunk_));
  }
}

void ThreadPool::worker_main(int thread) {
  uint64_t seen = 0;
  for (;;) {
    uint64_t now = generation_.load(std::memory_order_acquire);
    for (int spins = 0; now == seen && spins < kSpinsBeforeBlocking; ++spins) {
      cpu_relax();
      now = generation_.load(std::memory_order_acquire);
    }
    if (now == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      ++sleepers_;
      wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
      --sleepers_;
      now = generation_.load(std::memory_order_acquire);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = now;
    work_on_job(thread);
    busy_workers_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

}  // namespace clport::fastcpu
