// The fast CPU backend's persistent thread pool: every item runs exactly once, thread indices
// stay within size(), and thousands of back-to-back jobs (as decode issues) neither lose work
// nor hang.
#include "cpu_backend/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace clport::fastcpu {
namespace {

TEST(ThreadPool, EveryItemRunsOnceOnAValidThread) {
  for (const int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), threads);
    std::vector<std::atomic<int>> hits(1000);
    std::atomic<bool> bad_thread{false};
    pool.parallel_for(1000, 7, [&](int thread, int64_t begin, int64_t end) {
      if (thread < 0 || thread >= pool.size()) bad_thread = true;
      for (int64_t i = begin; i < end; ++i) hits[static_cast<size_t>(i)]++;
    });
    EXPECT_FALSE(bad_thread);
    for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].load(), 1) << "item " << i;
  }
}

TEST(ThreadPool, ManySmallJobsInARow) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  for (int job = 0; job < 5000; ++job) {
    pool.parallel_for(4, 1, [&](int, int64_t begin, int64_t end) { total += end - begin; });
  }
  EXPECT_EQ(total.load(), 4 * 5000);
}

TEST(ThreadPool, WorkersThatBlockedWakeForTheNextJob) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  for (int job = 0; job < 3; ++job) {
    // Long enough apart that the worker stops spinning and blocks.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    pool.parallel_for(64, 1, [&](int, int64_t begin, int64_t end) { total += end - begin; });
  }
  EXPECT_EQ(total.load(), 3 * 64);
}

TEST(ThreadPool, EmptyAndSingleChunkJobsRunOnTheCaller) {
  ThreadPool pool(2);
  int calls = 0;
  pool.parallel_for(0, 1, [&](int, int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
  pool.parallel_for(5, 8, [&](int thread, int64_t begin, int64_t end) {
    ++calls;
    EXPECT_EQ(thread, 0);
    EXPECT_EQ(begin, 0);
    EXPECT_EQ(end, 5);
  });
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace clport::fastcpu
