// MemoryPool on the real OpenCL device (PoCL here): reuse, alignment, statistics, trim.
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "cl_test_device.h"
#include "memory/memory_pool.h"
#include "memory/range_allocator.h"

namespace clport {
namespace {

class MemoryPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    device_ = testing::first_test_device();
    if (device_.library == nullptr) GTEST_SKIP() << "no OpenCL device: " << device_.why_not;
    const auto& cl = device_.library->api();
    cl_int err = CL_SUCCESS;
    context_ = cl.clCreateContext(nullptr, 1, &device_.info.device, nullptr, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    queue_ = cl.clCreateCommandQueue(context_, device_.info.device, 0, &err);
    ASSERT_EQ(err, CL_SUCCESS);
  }
  void TearDown() override {
    if (device_.library == nullptr) return;
    device_.library->api().clReleaseCommandQueue(queue_);
    device_.library->api().clReleaseContext(context_);
  }
  std::unique_ptr<MemoryPool> make_pool(MemoryPoolOptions options = {}) {
    return std::make_unique<MemoryPool>(device_.library->api(), context_,
                                        device_.info.mem_base_addr_align_bytes,
                                        device_.info.max_alloc_bytes, options);
  }
  size_t mem_size(cl_mem mem) {
    size_t size = 0;
    device_.library->api().clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof(size), &size, nullptr);
    return size;
  }
  size_t mem_offset(cl_mem mem) {
    size_t offset = 0;
    device_.library->api().clGetMemObjectInfo(mem, CL_MEM_OFFSET, sizeof(offset), &offset,
                                              nullptr);
    return offset;
  }

  testing::TestDevice device_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
};

TEST(RangeAllocator, FirstFitAndCoalescing) {
  memory::RangeAllocator ranges(1024);
  auto a = ranges.allocate(256), b = ranges.allocate(256), c = ranges.allocate(256);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(*a, 0u);
  EXPECT_EQ(*b, 256u);
  EXPECT_EQ(*c, 512u);
  EXPECT_FALSE(ranges.allocate(512).has_value());  // only 256 left at the end
  ranges.release(*a, 256);
  ranges.release(*c, 256);
  EXPECT_EQ(ranges.free_range_count(), 2u);  // [0,256) and [512,1024)
  EXPECT_EQ(ranges.largest_free_range(), 512u);
  ranges.release(*b, 256);
  EXPECT_EQ(ranges.free_range_count(), 1u);  // everything merged again
  EXPECT_EQ(ranges.largest_free_range(), 1024u);
  EXPECT_EQ(ranges.used(), 0u);
}

TEST_F(MemoryPoolTest, SizeClassesAreAlignedMonotoneAndTight) {
  auto pool = make_pool();
  const size_t align = pool->alignment();
  ASSERT_GE(align, device_.info.mem_base_addr_align_bytes);
  ASSERT_EQ(align & (align - 1), 0u) << "alignment must be a power of two";
  size_t previous = 0;
  for (size_t bytes = 1; bytes < (size_t{64} << 20); bytes = bytes * 5 / 4 + 1) {
    const size_t cls = pool->size_class(bytes);
    EXPECT_GE(cls, bytes);
    EXPECT_EQ(cls % align, 0u) << bytes;
    EXPECT_GE(cls, previous) << bytes;
    if (bytes > 4 * align) {
      EXPECT_LE(cls, bytes + bytes / 4) << "more than 25% waste at " << bytes;
    }
    previous = cls;
  }
}

TEST_F(MemoryPoolTest, FreedBufferIsReusedForTheSameSizeClass) {
  auto pool = make_pool();
  auto first = pool->allocate(1000);
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  ASSERT_TRUE(pool->free(first.value()).ok());
  auto second = pool->allocate(pool->size_class(1000) - 1);  // same class, different size
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second.value(), first.value());
  auto third = pool->allocate(100000);  // other class: new memory
  ASSERT_TRUE(third.ok());
  EXPECT_NE(third.value(), first.value());
  const MemoryPoolStats stats = pool->stats();
  EXPECT_EQ(stats.allocations, 3u);
  EXPECT_EQ(stats.reuse_hits, 1u);
  EXPECT_NEAR(stats.hit_rate(), 1.0 / 3.0, 1e-9);
  ASSERT_TRUE(pool->free(second.value()).ok());
  ASSERT_TRUE(pool->free(third.value()).ok());
}

TEST_F(MemoryPoolTest, SubBuffersAreAlignedDisjointAndHoldTheirData) {
  if (device_.library->api().clCreateSubBuffer == nullptr) {
    GTEST_SKIP() << "library has no clCreateSubBuffer";
  }
  auto pool = make_pool();
  ASSERT_TRUE(pool->sub_allocation_enabled());
  const size_t device_align = std::max<size_t>(device_.info.mem_base_addr_align_bytes, 1);
  std::vector<cl_mem> buffers;
  const size_t sizes[] = {1, 77, 4096, 5000, 65536, 300000};
  for (size_t bytes : sizes) {
    auto mem = pool->allocate(bytes);
    ASSERT_TRUE(mem.ok()) << mem.status().to_string();
    EXPECT_EQ(mem_offset(mem.value()) % device_align, 0u);
    EXPECT_GE(mem_size(mem.value()), bytes);
    buffers.push_back(mem.value());
  }
  EXPECT_EQ(pool->stats().blocks, 1u) << "small buffers should share one block";
  // Distinct patterns written to every buffer must all survive: no two buffers overlap.
  const auto& cl = device_.library->api();
  for (size_t i = 0; i < buffers.size(); ++i) {
    std::vector<unsigned char> data(sizes[i], static_cast<unsigned char>(0x11 * (i + 1)));
    ASSERT_EQ(cl.clEnqueueWriteBuffer(queue_, buffers[i], CL_TRUE, 0, data.size(), data.data(), 0,
                                      nullptr, nullptr),
              CL_SUCCESS);
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    std::vector<unsigned char> data(sizes[i]);
    ASSERT_EQ(cl.clEnqueueReadBuffer(queue_, buffers[i], CL_TRUE, 0, data.size(), data.data(), 0,
                                     nullptr, nullptr),
              CL_SUCCESS);
    for (unsigned char byte : data) ASSERT_EQ(byte, static_cast<unsigned char>(0x11 * (i + 1)));
  }
  for (cl_mem mem : buffers) ASSERT_TRUE(pool->free(mem).ok());
}

TEST_F(MemoryPoolTest, LargeRequestsGetDedicatedBuffers) {
  MemoryPoolOptions options;
  options.sub_alloc_max_bytes = 1 << 20;
  auto pool = make_pool(options);
  auto big = pool->allocate(3 << 20);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(mem_offset(big.value()), 0u);
  const MemoryPoolStats stats = pool->stats();
  EXPECT_EQ(stats.blocks, 0u);
  EXPECT_EQ(stats.dedicated_buffers, 1u);
  EXPECT_EQ(stats.reserved_bytes, pool->size_class(3 << 20));
  ASSERT_TRUE(pool->free(big.value()).ok());
}

TEST_F(MemoryPoolTest, StatisticsTrackLivePeakReservedAndTrim) {
  MemoryPoolOptions options;
  options.block_bytes = 1 << 20;
  auto pool = make_pool(options);
  const size_t a_class = pool->size_class(3000), b_class = pool->size_class(50000);
  auto a = pool->allocate(3000);
  auto b = pool->allocate(50000);
  ASSERT_TRUE(a.ok() && b.ok());
  MemoryPoolStats stats = pool->stats();
  EXPECT_EQ(stats.live_allocations, 2u);
  EXPECT_EQ(stats.live_bytes, a_class + b_class);
  EXPECT_EQ(stats.requested_bytes, 53000u);
  EXPECT_EQ(stats.peak_live_bytes, a_class + b_class);
  EXPECT_EQ(stats.reserved_bytes, size_t{1} << 20);  // one block
  ASSERT_TRUE(pool->free(a.value()).ok());
  stats = pool->stats();
  EXPECT_EQ(stats.live_bytes, b_class);
  EXPECT_EQ(stats.peak_live_bytes, a_class + b_class);
  EXPECT_EQ(stats.idle_bytes, a_class);
  ASSERT_TRUE(pool->free(b.value()).ok());
  EXPECT_EQ(pool->trim(), size_t{1} << 20);
  stats = pool->stats();
  EXPECT_EQ(stats.reserved_bytes, 0u);
  EXPECT_EQ(stats.idle_bytes, 0u);
  EXPECT_EQ(stats.blocks, 0u);
  EXPECT_EQ(stats.frees, 2u);
  const auto json = nlohmann::json::parse(stats.to_json());
  EXPECT_EQ(json.at("peak_live_bytes").get<uint64_t>(), a_class + b_class);
  EXPECT_EQ(json.at("allocations").get<uint64_t>(), 2u);
  EXPECT_NE(stats.to_string().find("hit rate"), std::string::npos);
}

TEST_F(MemoryPoolTest, FragmentationReflectsHolesInBlocks) {
  MemoryPoolOptions options;
  options.block_bytes = 1 << 20;
  auto pool = make_pool(options);
  std::vector<cl_mem> buffers;
  for (int i = 0; i < 8; ++i) {
    auto mem = pool->allocate(64 << 10);
    ASSERT_TRUE(mem.ok());
    buffers.push_back(mem.value());
  }
  EXPECT_DOUBLE_EQ(pool->stats().fragmentation, 0.0);  // one free tail
  // Freeing parks buffers (still reserved in the block); trimming punches real holes.
  for (size_t i = 0; i < buffers.size(); i += 2) ASSERT_TRUE(pool->free(buffers[i]).ok());
  pool->trim();
  EXPECT_GT(pool->stats().fragmentation, 0.3);
  for (size_t i = 1; i < buffers.size(); i += 2) ASSERT_TRUE(pool->free(buffers[i]).ok());
  pool->trim();
  EXPECT_EQ(pool->stats().reserved_bytes, 0u);
}

TEST_F(MemoryPoolTest, BadRequestsAreErrorsNotCrashes) {
  auto pool = make_pool();
  auto zero = pool->allocate(0);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().stage(), Stage::InvalidArgument);
  auto huge = pool->allocate(size_t{1} << 62);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().stage(), Stage::OutOfMemory);
  auto mem = pool->allocate(100);
  ASSERT_TRUE(mem.ok());
  ASSERT_TRUE(pool->free(mem.value()).ok());
  Status twice = pool->free(mem.value());
  EXPECT_EQ(twice.stage(), Stage::InvalidArgument) << "double free must be refused";
  EXPECT_EQ(pool->free(nullptr).stage(), Stage::InvalidArgument);
  EXPECT_EQ(pool->stats().live_allocations, 0u);
}

TEST_F(MemoryPoolTest, WithoutSubBuffersEveryBufferIsDedicated) {
  MemoryPoolOptions options;
  options.use_sub_buffers = false;
  auto pool = make_pool(options);
  EXPECT_FALSE(pool->sub_allocation_enabled());
  auto mem = pool->allocate(1000);
  ASSERT_TRUE(mem.ok());
  EXPECT_EQ(pool->stats().blocks, 0u);
  EXPECT_EQ(pool->stats().dedicated_buffers, 1u);
  ASSERT_TRUE(pool->free(mem.value()).ok());
}

TEST_F(MemoryPoolTest, IdleLimitReleasesInsteadOfParking) {
  MemoryPoolOptions options;
  options.use_sub_buffers = false;
  options.max_idle_bytes = 1;  // park nothing
  auto pool = make_pool(options);
  auto mem = pool->allocate(4096);
  ASSERT_TRUE(mem.ok());
  ASSERT_TRUE(pool->free(mem.value()).ok());
  const MemoryPoolStats stats = pool->stats();
  EXPECT_EQ(stats.idle_bytes, 0u);
  EXPECT_EQ(stats.reserved_bytes, 0u);
  EXPECT_EQ(stats.released_to_driver, 1u);
}

}  // namespace
}  // namespace clport
