// Allocation failures: injected through the fault-injecting forwarding OpenCL library
// (tests/fakecl) and through a patched copy of the API table. Either way a failure must be an
// OutOfMemory status and leave the pool consistent and usable.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <vector>

#include "cl_test_device.h"
#include "memory/memory_pool.h"

namespace clport {
namespace {

// Restores (unsets) an environment variable at scope exit.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

// A context on the first device of `library`.
struct Fixture {
  std::shared_ptr<OpenClLibrary> library;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  uint32_t align = 0;
  ~Fixture() {
    if (context != nullptr) library->api().clReleaseContext(context);
  }
  bool open(std::shared_ptr<OpenClLibrary> lib) {
    library = std::move(lib);
    const auto& cl = library->api();
    cl_platform_id platform = nullptr;
    if (cl.clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS) return false;
    if (cl.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS) {
      return false;
    }
    cl_uint bits = 0;
    cl.clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(bits), &bits, nullptr);
    align = bits / 8;
    cl_int err = CL_SUCCESS;
    context = cl.clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    return err == CL_SUCCESS;
  }
};

void expect_consistent(const MemoryPool& pool, size_t live_allocations) {
  const MemoryPoolStats stats = pool.stats();
  EXPECT_EQ(stats.live_allocations, live_allocations);
  EXPECT_LE(stats.live_bytes + stats.idle_bytes, stats.reserved_bytes);
}

class FakeClPool : public ::testing::Test {
 protected:
  void SetUp() override {
    LoadAttempt attempt;
    auto lib = open_opencl_library(CLPORT_FAKECL_FORWARD, &attempt);
    ASSERT_TRUE(lib.ok()) << lib.status().to_string();
    ASSERT_TRUE(fixture_.open(lib.value())) << "no device behind the forwarding library";
  }
  Fixture fixture_;
};

TEST_F(FakeClPool, DeviceOutOfMemoryIsAStatusAndThePoolRecovers) {
  MemoryPoolOptions options;
  options.use_sub_buffers = false;  // every allocation is a counted clCreateBuffer
  MemoryPool pool(fixture_.library->api(), fixture_.context, fixture_.align, 0, options);
  ScopedEnv limit("FAKECL_ALLOC_FAIL_AFTER_BYTES", std::to_string(1 << 20));
  std::vector<cl_mem> held;
  Status failure;
  for (int i = 0; i < 64; ++i) {
    auto mem = pool.allocate(100 << 10);
    if (!mem.ok()) {
      failure = mem.status();
      break;
    }
    held.push_back(mem.value());
  }
  ASSERT_FALSE(failure.ok()) << "1 MiB budget never ran out";
  EXPECT_EQ(failure.stage(), Stage::OutOfMemory);
  EXPECT_NE(failure.message().find("CL_MEM_OBJECT_ALLOCATION_FAILURE"), std::string::npos)
      << failure.message();
  EXPECT_GE(held.size(), 8u);
  expect_consistent(pool, held.size());
  EXPECT_EQ(pool.stats().failures, 1u);
  // Freed memory is parked; a request of another size class needs it back from the driver:
  // the pool releases idle buffers and retries instead of failing.
  for (cl_mem mem : held) ASSERT_TRUE(pool.free(mem).ok());
  auto other_class = pool.allocate(600 << 10);
  ASSERT_TRUE(other_class.ok()) << other_class.status().to_string();
  ASSERT_TRUE(pool.free(other_class.value()).ok());
  expect_consistent(pool, 0);
}

TEST_F(FakeClPool, BlockAllocationFailureFallsBackThenFails) {
  MemoryPool pool(fixture_.library->api(), fixture_.context, fixture_.align, 0);
  if (!pool.sub_allocation_enabled()) GTEST_SKIP() << "no clCreateSubBuffer";
  {
    // The 32 MiB block does not fit a 1 MiB budget, a dedicated 4 KiB buffer does.
    ScopedEnv limit("FAKECL_ALLOC_FAIL_AFTER_BYTES", std::to_string(1 << 20));
    auto mem = pool.allocate(4096);
    ASSERT_TRUE(mem.ok()) << mem.status().to_string();
    EXPECT_EQ(pool.stats().blocks, 0u);
    EXPECT_EQ(pool.stats().dedicated_buffers, 1u);
    ASSERT_TRUE(pool.free(mem.value()).ok());
  }
  pool.trim();
  {
    ScopedEnv fail("FAKECL_FAIL", "clCreateBuffer:0:-5");  // every call: CL_OUT_OF_RESOURCES
    auto mem = pool.allocate(4096);
    ASSERT_FALSE(mem.ok());
    EXPECT_EQ(mem.status().stage(), Stage::OutOfMemory);
    EXPECT_NE(mem.status().message().find("CL_OUT_OF_RESOURCES"), std::string::npos);
  }
  expect_consistent(pool, 0);
  EXPECT_EQ(pool.stats().reserved_bytes, 0u);
  auto after = pool.allocate(4096);  // the fault is gone: the pool works again
  ASSERT_TRUE(after.ok()) << after.status().to_string();
  ASSERT_TRUE(pool.free(after.value()).ok());
}

TEST_F(FakeClPool, SubBufferFailureUsesADedicatedBufferOrReportsOutOfMemory) {
  MemoryPoolOptions options;
  options.block_bytes = 64 << 10;
  MemoryPool pool(fixture_.library->api(), fixture_.context, fixture_.align, 0, options);
  if (!pool.sub_allocation_enabled()) GTEST_SKIP() << "no clCreateSubBuffer";
  ScopedEnv fail("FAKECL_FAIL", "clCreateSubBuffer:0:-4");
  {
    auto mem = pool.allocate(8192);
    ASSERT_TRUE(mem.ok()) << mem.status().to_string();
    EXPECT_EQ(pool.stats().dedicated_buffers, 1u);
    ASSERT_TRUE(pool.free(mem.value()).ok());
  }
  pool.trim();
  {
    // The block fits the budget exactly; the dedicated fallback does not.
    ScopedEnv limit("FAKECL_ALLOC_FAIL_AFTER_BYTES", std::to_string(64 << 10));
    auto mem = pool.allocate(8192);
    ASSERT_FALSE(mem.ok());
    EXPECT_EQ(mem.status().stage(), Stage::OutOfMemory);
    EXPECT_NE(mem.status().message().find("clCreateSubBuffer"), std::string::npos)
        << mem.status().message();
  }
  expect_consistent(pool, 0);
  EXPECT_EQ(pool.trim(), size_t{64} << 10) << "the empty block is released";
  EXPECT_EQ(pool.stats().reserved_bytes, 0u);
}

// The same without the fake library: the pool only sees the API table, so a patched copy of it
// is a fault injector too.
std::atomic<int> g_buffers_left{0};
cl_api_clCreateBuffer g_real_create_buffer = nullptr;

cl_mem CL_API_CALL limited_create_buffer(cl_context context, cl_mem_flags flags, size_t size,
                                         void* host, cl_int* err) {
  if (g_buffers_left.fetch_sub(1) <= 0) {
    if (err != nullptr) *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return nullptr;
  }
  return g_real_create_buffer(context, flags, size, host, err);
}

TEST(MemoryPoolPatchedApi, FailureAfterNBuffersLeavesThePoolConsistent) {
  testing::TestDevice device = testing::first_test_device();
  if (device.library == nullptr) GTEST_SKIP() << device.why_not;
  Fixture fixture;
  ASSERT_TRUE(fixture.open(device.library));
  clport_cl_api patched = device.library->api();
  g_real_create_buffer = patched.clCreateBuffer;
  patched.clCreateBuffer = limited_create_buffer;
  g_buffers_left = 3;
  MemoryPoolOptions options;
  options.use_sub_buffers = false;
  {
    MemoryPool pool(patched, fixture.context, fixture.align, 0, options);
    std::vector<cl_mem> held;
    for (size_t bytes = 1000; held.size() < 3; bytes *= 3) {
      auto mem = pool.allocate(bytes);
      ASSERT_TRUE(mem.ok());
      held.push_back(mem.value());
    }
    auto fourth = pool.allocate(5000000);
    ASSERT_FALSE(fourth.ok());
    EXPECT_EQ(fourth.status().stage(), Stage::OutOfMemory);
    expect_consistent(pool, 3);
    // Reuse needs no driver call, so it still works while the driver refuses new memory.
    ASSERT_TRUE(pool.free(held[1]).ok());
    auto reused = pool.allocate(3000);
    ASSERT_TRUE(reused.ok());
    EXPECT_EQ(reused.value(), held[1]);
    held[1] = reused.value();
    for (cl_mem mem : held) ASSERT_TRUE(pool.free(mem).ok());
    expect_consistent(pool, 0);
  }
}

}  // namespace
}  // namespace clport
