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
    // A new generation with no items wakes every worker, which then sees stop_.
    const uint64_t gen = (cursor_.load(std::memory_order_relaxed) >> kIndexBits) + 1;
    cursor_.store(gen << kIndexBits);
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::run_job(Trampoline fn, void* ctx, int64_t n_items, int64_t chunk) {
  const uint64_t gen = (cursor_.load(std::memory_order_relaxed) >> kIndexBits) + 1;
  Job& job = jobs_[gen & 1];
  job.fn.store(fn);
  job.ctx.store(ctx);
  job.n_items.store(n_items);
  job.chunk.store(chunk);
  done_items_.store(0, std::memory_order_relaxed);
  {
    // Under the mutex, so a worker that is about to block cannot miss the new generation.
    std::lock_guard<std::mutex> lock(mutex_);
    cursor_.store(gen << kIndexBits);
    if (sleepers_ > 0) wake_.notify_all();
  }
  work_on(gen, 0);
  while (done_items_.load(std::memory_order_acquire) < n_items) cpu_relax();
}

void ThreadPool::work_on(uint64_t gen, int thread) {
  const Job& job = jobs_[gen & 1];
  for (;;) {
    uint64_t cur = cursor_.load();
    if ((cur >> kIndexBits) != gen) return;  // a newer job replaced this one
    // Read after seeing this generation: the slot holds this job until the caller has started
    // the job after next, which it cannot do while the claim below can still succeed. All of
    // these are sequentially consistent, so that argument holds on weakly ordered CPUs too.
    const Trampoline fn = job.fn.load();
    void* ctx = job.ctx.load();
    const int64_t n_items = job.n_items.load();
    const int64_t chunk = job.chunk.load();
    const auto begin = static_cast<int64_t>(cur & kIndexMask);
    if (begin >= n_items) return;
    const int64_t end = std::min(n_items, begin + chunk);
    if (!cursor_.compare_exchange_weak(cur, (gen << kIndexBits) | static_cast<uint64_t>(end))) {
      continue;  // another thread claimed it first (or a newer job started): look again
    }
    fn(ctx, thread, begin, end);
    done_items_.fetch_add(end - begin, std::memory_order_acq_rel);
  }
}

void ThreadPool::worker_main(int thread) {
  uint64_t seen = 0;
  for (;;) {
    auto generation = [this] { return cursor_.load(std::memory_order_acquire) >> kIndexBits; };
    uint64_t now = generation();
    for (int spins = 0; now == seen && spins < kSpinsBeforeBlocking; ++spins) {
      cpu_relax();
      now = generation();
    }
    if (now == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      ++sleepers_;
      wake_.wait(lock, [&] { return generation() != seen; });
      --sleepers_;
      now = generation();
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = now;
    work_on(now, thread);
  }
}

}  // namespace clport::fastcpu
