// Several threads allocating and freeing at once: no buffer is ever handed to two owners, and
// the statistics add up afterwards.
#include <gtest/gtest.h>

#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "cl_test_device.h"
#include "memory/memory_pool.h"

namespace clport {
namespace {

TEST(MemoryPoolThreads, ConcurrentAllocFreeNeverSharesABuffer) {
  testing::TestDevice device = testing::first_test_device();
  if (device.library == nullptr) GTEST_SKIP() << device.why_not;
  const auto& cl = device.library->api();
  cl_int err = CL_SUCCESS;
  cl_context context = cl.clCreateContext(nullptr, 1, &device.info.device, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  constexpr int kThreads = 6;
  constexpr int kRounds = 400;
  uint64_t total_allocations = 0;
  {
    MemoryPoolOptions options;
    options.block_bytes = 1 << 20;  // small blocks: many block creations under contention
    MemoryPool pool(cl, context, device.info.mem_base_addr_align_bytes,
                    device.info.max_alloc_bytes, options);
    std::mutex owners_mutex;
    std::set<cl_mem> owned;  // buffers some thread holds right now
    std::vector<int> errors(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        std::mt19937 rng(1234 + t);
        std::uniform_int_distribution<size_t> size(1, 200000);
        std::vector<cl_mem> mine;
        for (int round = 0; round < kRounds; ++round) {
          if (mine.size() < 8 && (mine.empty() || rng() % 3 != 0)) {
            auto mem = pool.allocate(size(rng));
            if (!mem.ok()) {
              ++errors[t];
              continue;
            }
            std::lock_guard<std::mutex> lock(owners_mutex);
            if (!owned.insert(mem.value()).second) ++errors[t];  // handed out twice
            mine.push_back(mem.value());
          } else {
            const size_t pick = rng() % mine.size();
            {
              std::lock_guard<std::mutex> lock(owners_mutex);
              owned.erase(mine[pick]);
            }
            if (!pool.free(mine[pick]).ok()) ++errors[t];
            mine.erase(mine.begin() + static_cast<long>(pick));
          }
        }
        for (cl_mem mem : mine) {
          {
            std::lock_guard<std::mutex> lock(owners_mutex);
            owned.erase(mem);
          }
          if (!pool.free(mem).ok()) ++errors[t];
        }
      });
    }
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], 0) << "thread " << t;
    const MemoryPoolStats stats = pool.stats();
    EXPECT_EQ(stats.live_allocations, 0u);
    EXPECT_EQ(stats.live_bytes, 0u);
    EXPECT_EQ(stats.requested_bytes, 0u);
    EXPECT_EQ(stats.allocations, stats.frees);
    EXPECT_GT(stats.reuse_hits, 0u);
    total_allocations = stats.allocations;
    pool.trim();
    EXPECT_EQ(pool.stats().reserved_bytes, 0u);
  }
  EXPECT_GT(total_allocations, uint64_t{kThreads} * 50);
  cl.clReleaseContext(context);
}

}  // namespace
}  // namespace clport
