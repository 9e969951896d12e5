// A persistent pool of worker threads for the fast CPU backend. Threads are started once, when
// the backend is created, and woken for each op: decode runs about 500 small ops per token, so
// starting threads per op (as the reference does) would cost more than many of the ops
// themselves. A woken worker spins briefly before it blocks, because the next op usually follows
// within microseconds.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace clport::fastcpu {

class ThreadPool {
 public:
  // n_threads counts the calling thread (0 = hardware concurrency); n_threads - 1 workers are
  // started. If a worker cannot be started the pool runs with the ones that did.
  explicit ThreadPool(int n_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads that take part in parallel_for (workers + the caller).
  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(thread_index, begin, end) over [0, n_items) in chunks of `chunk` items taken
  // dynamically (so a thread that lost its core to another process does not hold up the op);
  // returns when every item is done. The caller is thread 0, workers are 1 .. size() - 1, so
  // per-thread scratch can be indexed by thread_index. fn must not throw. Not reentrant: call
  // it from one thread at a time.
  template <typename Fn>
  void parallel_for(int64_t n_items, int64_t chunk, Fn&& fn) {
    if (n_items <= 0) return;
    if (chunk < 1) chunk = 1;
    if (workers_.empty() || n_items <= chunk) {
      fn(0, int64_t{0}, n_items);
      return;
    }
    using F = std::remove_reference_t<Fn>;
    run_job([](void* ctx, int thread, int64_t begin,
               int64_t end) { (*static_cast<F*>(ctx))(thread, begin, end); },
            &fn, n_items, chunk);
  }

 private:
  using Trampoline = void (*)(void* ctx, int thread, int64_t begin, int64_t end);

  // One job's description. Two slots alternate by generation, so a worker that wakes late reads
  // its own job's slot while the caller fills the other one for the next job.
  struct Job {
    std::atomic<Trampoline> fn{nullptr};
    std::atomic<void*> ctx{nullptr};
    std::atomic<int64_t> n_items{0};
    std::atomic<int64_t> chunk{1};
  };

  void run_job(Trampoline fn, void* ctx, int64_t n_items, int64_t chunk);
  // Claims and runs chunks of the job of generation `gen` until none are left (or a newer job
  // has replaced it). Completion counts finished items, not threads, so the caller never waits
  // for a worker that is not running (these cores are shared): it takes the chunks itself.
  void work_on(uint64_t gen, int thread);
  void worker_main(int thread);

  static constexpr int kIndexBits = 40;
  static constexpr uint64_t kIndexMask = (uint64_t{1} << kIndexBits) - 1;

  std::vector<std::thread> workers_;
  Job jobs_[2];
  // (generation << kIndexBits) | next unclaimed item of the current job.
  std::atomic<uint64_t> cursor_{0};
  std::atomic<int64_t> done_items_{0};  // items of the current job finished
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  int sleepers_ = 0;  // workers blocked on wake_ (guarded by mutex_)
};

}  // namespace clport::fastcpu
