// Internal: splitting an op's independent work items (output rows, heads) over std::threads.
// Workers never allocate: callers size per-thread scratch with plan_threads() first, so nothing
// inside a worker can throw.
#pragma once

#include <cstdint>
#include <functional>

namespace clport::cpu::detail {

// How many threads to use for n_items items of roughly `work_per_item` scalar operations each:
// at most the requested count (0 = hardware concurrency), never more than the items, and only
// as many as keep every thread busy with a worthwhile amount of work.
int plan_threads(int64_t n_items, double work_per_item, int n_threads);

// Runs fn(thread_index, begin, end) over [0, n_items) on `threads` threads (the calling thread
// is thread 0) with dynamic chunking; falls back to the calling thread if a thread cannot be
// started. fn must not throw.
void run_parallel(int threads, int64_t n_items,
                  const std::function<void(int, int64_t, int64_t)>& fn);

}  // namespace clport::cpu::detail
