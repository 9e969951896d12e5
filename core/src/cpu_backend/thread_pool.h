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

  void run_job(Trampoline fn, void* ctx, int64_t n_items, int64_t chunk);
  void work_on_job(int thread);
  void worker_main(int thread);

  std::vector<std::thread> workers_;
  // The current job. Written by the caller before generation_ is bumped, read by workers after
  // they see the new generation.
  Trampoline job_fn_ = nullptr;
  void* job_ctx_ = nullptr;
  int64_t job_items_ = 0;
  int64_t job_chunk_ = 1;
  std::atomic<int64_t> next_item_{0};
  std::atomic<int> busy_workers_{0};  // workers still inside the current job
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  int sleepers_ = 0;  // workers blocked on wake_ (guarded by mutex_)
};

}  // namespace clport::fastcpu
