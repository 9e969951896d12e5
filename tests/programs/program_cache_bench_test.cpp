// The cold/warm benchmark helper: checks what it did (compiled then loaded every program), not
// how fast (benchmarks are not timed assertions).
#include <gtest/gtest.h>

#include <cstdio>

#include "../memory/cl_test_device.h"
#include "clport_devtools/program_cache_bench.h"

namespace clport {
namespace {

TEST(ProgramCacheBench, ColdCompilesEverythingWarmLoadsEverything) {
  auto device = testing::first_test_device();
  if (device.library == nullptr) GTEST_SKIP() << device.why_not;
  auto ctx = DeviceContext::create(device.library, device.info);
  ASSERT_TRUE(ctx.ok()) << ctx.status().to_string();
  std::vector<BenchProgram> programs;
  for (int i = 0; i < 3; ++i) {
    programs.push_back({"k" + std::to_string(i),
                        "__kernel void k(__global float* x) { x[0] = " + std::to_string(i) + "; }",
                        ""});
  }
  auto result = bench_program_cache(*ctx.value(), programs);
  ASSERT_TRUE(result.ok()) << result.status().to_string();
  EXPECT_EQ(result->programs, 3u);
  EXPECT_EQ(result->cold.misses, 3u);
  EXPECT_EQ(result->cold.saves, 3u);
  EXPECT_EQ(result->warm.hits, 3u);
  EXPECT_EQ(result->warm.misses, 0u);
  EXPECT_GT(result->cold_ms, 0.0);
  EXPECT_GT(result->warm_ms, 0.0);
  std::printf("cold %.1f ms, warm %.1f ms for %zu programs\n", result->cold_ms, result->warm_ms,
              result->programs);

  programs.push_back({"broken", "__kernel void k( { }", ""});
  auto failed = bench_program_cache(*ctx.value(), programs);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().stage(), Stage::ProgramBuild);
  EXPECT_NE(failed.status().message().find("broken"), std::string::npos);
}

TEST(ProgramCacheBench, SharedKernelProgramsSkipHelperFiles) {
  for (const auto& program : shared_kernel_bench_programs()) {
    EXPECT_NE(program.name, "common.cl");
    EXPECT_NE(program.name, "blocks.cl");
    EXPECT_NE(program.name, "reduce.cl");
    EXPECT_FALSE(program.source.empty());
  }
}

}  // namespace
}  // namespace clport
