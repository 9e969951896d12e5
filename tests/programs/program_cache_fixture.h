// Shared set-up for program cache tests: a context on the first device, an empty cache
// directory per test, and helpers to look at and damage entry files.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "../memory/cl_test_device.h"
#include "programs/program_cache.h"
#include "test_dir.h"

namespace clport::testing {

inline const char* kAddOneSource = R"(
__kernel void add_one(__global int* x) { x[get_global_id(0)] += 1; }
)";

class ProgramCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    device_ = first_test_device();
    if (device_.library == nullptr) GTEST_SKIP() << "no OpenCL device: " << device_.why_not;
    const auto& cl = device_.library->api();
    cl_int err = CL_SUCCESS;
    context_ = cl.clCreateContext(nullptr, 1, &device_.info.device, nullptr, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    queue_ = cl.clCreateCommandQueue(context_, device_.info.device, 0, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    dir_ = clport::test::fresh_test_dir("clport-pc-test");
  }
  void TearDown() override {
    if (device_.library == nullptr) return;
    device_.library->api().clReleaseCommandQueue(queue_);
    device_.library->api().clReleaseContext(context_);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  ProgramCacheIdentity identity() const {
    return {device_.info.name, device_.info.driver_version, device_.info.platform_version};
  }
  // A fresh cache object, as a new process would make it (no in-memory state carried over).
  std::unique_ptr<ProgramCache> fresh_cache(const std::string& dir = {}) {
    ProgramCacheOptions options;
    options.directory = dir.empty() ? dir_.string() : dir;
    options.memoize = false;
    return std::make_unique<ProgramCache>(device_.library->api(), context_, device_.info.device,
                                          identity(), options);
  }

  // Runs add_one from `program` over {0..15} and checks that every element went up by one.
  void expect_program_works(cl_program program) {
    const auto& cl = device_.library->api();
    cl_int err = CL_SUCCESS;
    cl_kernel kernel = cl.clCreateKernel(program, "add_one", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    std::vector<int> data(16);
    for (int i = 0; i < 16; ++i) data[i] = i * 10;
    cl_mem mem = cl.clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   data.size() * sizeof(int), data.data(), &err);
    ASSERT_EQ(err, CL_SUCCESS);
    cl.clSetKernelArg(kernel, 0, sizeof(mem), &mem);
    size_t global = data.size();
    ASSERT_EQ(cl.clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, nullptr, 0, nullptr,
                                        nullptr),
              CL_SUCCESS);
    ASSERT_EQ(cl.clEnqueueReadBuffer(queue_, mem, CL_TRUE, 0, data.size() * sizeof(int),
                                     data.data(), 0, nullptr, nullptr),
              CL_SUCCESS);
    for (int i = 0; i < 16; ++i) EXPECT_EQ(data[i], i * 10 + 1);
    cl.clReleaseMemObject(mem);
    cl.clReleaseKernel(kernel);
  }

  // Builds kAddOneSource through `cache`, checks it runs, releases it.
  void build_and_check(ProgramCache& cache, const std::string& options = "") {
    auto program = cache.build(kAddOneSource, options);
    ASSERT_TRUE(program.ok()) << program.status().to_string();
    expect_program_works(program.value());
    device_.library->api().clReleaseProgram(program.value());
  }

  std::vector<unsigned char> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }

  TestDevice device_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::filesystem::path dir_;
};

}  // namespace clport::testing
