// DeviceContext: creation and its failure stages, blocking transfers, the host table handed to
// plugins (log, buffers, program builds, shared kernel sources, profiling events).
#include <gtest/gtest.h>

#include <cstdlib>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <spdlog/sinks/ostream_sink.h>

#include "cl_test_device.h"
#include "runtime/device_context.h"
#include "clport_plugin/embedded_kernel.h"
#include "common/logger.h"
#include "memory/memory_pool.h"
#include "programs/program_cache.h"
#include "test_dir.h"

extern const clport::EmbeddedKernel clport_shared_kernels[];
extern const unsigned clport_shared_kernels_count;

namespace clport {
namespace {

namespace fs = std::filesystem;

const char* kScaleSource = R"(
__kernel void scale(__global float* x, float s) { x[get_global_id(0)] *= s; }
)";

class DeviceContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    device_ = testing::first_test_device();
    if (device_.library == nullptr) GTEST_SKIP() << "no OpenCL device: " << device_.why_not;
    cache_dir_ = test::fresh_test_dir("clport-dc-test");
    ::setenv("CLPORT_CACHE_DIR", cache_dir_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("CLPORT_CACHE_DIR");
    std::error_code ec;
    fs::remove_all(cache_dir_, ec);
  }
  std::shared_ptr<DeviceContext> make(bool profiling = false) {
    DeviceContextOptions options;
    options.profiling = profiling;
    auto ctx = DeviceContext::create(device_.library, device_.info, options);
    EXPECT_TRUE(ctx.ok()) << ctx.status().to_string();
    return ctx.ok() ? ctx.value() : nullptr;
  }
  testing::TestDevice device_;
  fs::path cache_dir_;
};

TEST_F(DeviceContextTest, WriteReadRoundTripThroughThePool) {
  auto ctx = make();
  ASSERT_NE(ctx, nullptr);
  EXPECT_NE(ctx->context(), nullptr);
  EXPECT_NE(ctx->queue(), nullptr);
  auto mem = ctx->pool().allocate(1024 * sizeof(float));
  ASSERT_TRUE(mem.ok());
  std::vector<float> in(1024), out(1024, 0.f);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(i) * 0.5f;
  ASSERT_TRUE(ctx->write(mem.value(), 0, in.data(), in.size() * sizeof(float)).ok());
  ASSERT_TRUE(ctx->read(mem.value(), 0, out.data(), out.size() * sizeof(float)).ok());
  EXPECT_EQ(in, out);
  ASSERT_TRUE(ctx->finish().ok());
  // Out of range: a Device status, not a crash.
  Status beyond = ctx->read(mem.value(), 1 << 20, out.data(), 16);
  EXPECT_EQ(beyond.stage(), Stage::Device);
  EXPECT_EQ(ctx->write(nullptr, 0, in.data(), 4).stage(), Stage::InvalidArgument);
  ASSERT_TRUE(ctx->pool().free(mem.value()).ok());
}

TEST_F(DeviceContextTest, MissingDeviceOrLibraryIsInvalidArgument) {
  auto no_lib = DeviceContext::create(nullptr, device_.info);
  EXPECT_EQ(no_lib.status().stage(), Stage::InvalidArgument);
  DeviceInfo empty;
  auto no_device = DeviceContext::create(device_.library, empty);
  EXPECT_EQ(no_device.status().stage(), Stage::InvalidArgument);
}

cl_context CL_API_CALL failing_create_context(const cl_context_properties*, cl_uint,
                                              const cl_device_id*,
                                              void(CL_CALLBACK*)(const char*, const void*, size_t,
                                                                 void*),
                                              void*, cl_int* err) {
  if (err != nullptr) *err = CL_OUT_OF_HOST_MEMORY;
  return nullptr;
}
cl_command_queue CL_API_CALL failing_queue(cl_context, cl_device_id, cl_command_queue_properties,
                                           cl_int* err) {
  if (err != nullptr) *err = CL_INVALID_QUEUE_PROPERTIES;
  return nullptr;
}
cl_command_queue CL_API_CALL failing_queue2(cl_context, cl_device_id, const cl_queue_properties*,
                                            cl_int* err) {
  if (err != nullptr) *err = CL_INVALID_QUEUE_PROPERTIES;
  return nullptr;
}

TEST_F(DeviceContextTest, ContextAndQueueFailuresNameTheirStage) {
  LoadAttempt attempt;
  auto lib = open_opencl_library(device_.library->path(), &attempt);
  ASSERT_TRUE(lib.ok()) << lib.status().to_string();
  auto library = lib.value();
  const clport_cl_api original = library->api();

  library->mutable_api().clCreateContext = failing_create_context;
  auto no_context = DeviceContext::create(library, device_.info);
  ASSERT_FALSE(no_context.ok());
  EXPECT_EQ(no_context.status().stage(), Stage::Context);
  EXPECT_NE(no_context.status().message().find("CL_OUT_OF_HOST_MEMORY"), std::string::npos);

  library->mutable_api() = original;
  library->mutable_api().clCreateCommandQueue = failing_queue;
  if (library->api().clCreateCommandQueueWithProperties != nullptr) {
    library->mutable_api().clCreateCommandQueueWithProperties = failing_queue2;
  }
  auto no_queue = DeviceContext::create(library, device_.info);
  ASSERT_FALSE(no_queue.ok());
  EXPECT_EQ(no_queue.status().stage(), Stage::Queue);
  EXPECT_NE(no_queue.status().message().find("CL_INVALID_QUEUE_PROPERTIES"), std::string::npos);
  library->mutable_api() = original;
}

TEST_F(DeviceContextTest, HostTableRoutesIntoThisContext) {
  auto ctx = make();
  ASSERT_NE(ctx, nullptr);
  TypedSetting tile;
  tile.name = "tile";
  tile.type = CLPORT_SETTING_INT;
  tile.int_value = 4;
  const clport_host* host = ctx->make_host("unit", {tile}, 2);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->struct_size, sizeof(clport_host));
  EXPECT_EQ(host->cl, &ctx->cl());
  EXPECT_EQ(host->context, ctx->context());
  EXPECT_EQ(host->queue, ctx->queue());
  ASSERT_EQ(host->n_settings, 1u);
  EXPECT_STREQ(host->settings[0].name, "tile");
  EXPECT_EQ(host->settings[0].type, CLPORT_SETTING_INT);
  EXPECT_EQ(host->settings[0].int_value, 4);
  EXPECT_EQ(host->precision, 2);

  int32_t status = -1;
  cl_mem mem = host->alloc_buffer(host->host_ctx, 4096, &status);
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(status, CLPORT_PLUGIN_OK);
  EXPECT_EQ(ctx->pool().stats().live_allocations, 1u);
  host->free_buffer(host->host_ctx, mem);
  EXPECT_EQ(ctx->pool().stats().live_allocations, 0u);
  EXPECT_EQ(host->alloc_buffer(host->host_ctx, 0, &status), nullptr);
  EXPECT_EQ(status, CLPORT_PLUGIN_ERROR);

  const char* log = nullptr;
  cl_program program = host->build_program(host->host_ctx, kScaleSource, 0, "", &log);
  ASSERT_NE(program, nullptr) << (log ? log : "");
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = ctx->cl().clCreateKernel(program, "scale", &err);
  EXPECT_EQ(err, CL_SUCCESS);
  ctx->cl().clReleaseKernel(kernel);
  ctx->cl().clReleaseProgram(program);
  EXPECT_EQ(ctx->programs().counters().saves, 1u);

  const char* broken = "__kernel void broken(__global float* x) { x[0] = undefined_name; }";
  EXPECT_EQ(host->build_program(host->host_ctx, broken, 0, "", &log), nullptr);
  ASSERT_NE(log, nullptr);
  EXPECT_NE(std::string(log).find("undefined_name"), std::string::npos) << log;
}

TEST_F(DeviceContextTest, HostLogGoesToThePluginLogger) {
  auto ctx = make();
  ASSERT_NE(ctx, nullptr);
  const clport_host* host = ctx->make_host("logtest", {}, 0);
  std::ostringstream captured;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(captured);
  auto log = logger("plugin.logtest");
  log->sinks().push_back(sink);
  const auto old_level = log->level();
  log->set_level(spdlog::level::trace);
  host->log(host->host_ctx, CLPORT_LOG_WARN, "tiling disabled on this driver");
  host->log(host->host_ctx, 99, nullptr);  // ignored, no crash
  log->flush();
  log->sinks().pop_back();
  log->set_level(old_level);
  EXPECT_NE(captured.str().find("tiling disabled on this driver"), std::string::npos);
  EXPECT_NE(captured.str().find("warn"), std::string::npos);
}

TEST_F(DeviceContextTest, SharedKernelSourceHonoursTheOverrideDirectory) {
  auto ctx = make();
  ASSERT_NE(ctx, nullptr);
  const clport_host* host = ctx->make_host("kernels", {}, 0);
  size_t len = 123;
  EXPECT_EQ(host->shared_kernel_source(host->host_ctx, "no_such_file.cl", &len), nullptr);
  EXPECT_EQ(len, 0u);

  const fs::path dir = cache_dir_.string() + "-kernels";
  fs::create_directories(dir);
  std::ofstream(dir / "override_only.cl") << "// edited on disk\n";
  ::setenv("CLPORT_KERNEL_DIR", dir.c_str(), 1);
  const char* text = host->shared_kernel_source(host->host_ctx, "override_only.cl", &len);
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(std::string(text, len), "// edited on disk\n");
  // Paths that would leave the directory are refused.
  EXPECT_EQ(host->shared_kernel_source(host->host_ctx, "../override_only.cl", &len), nullptr);
  EXPECT_EQ(host->shared_kernel_source(host->host_ctx, "/etc/passwd", &len), nullptr);
  ::unsetenv("CLPORT_KERNEL_DIR");
  fs::remove_all(dir);
}

TEST_F(DeviceContextTest, SharedKernelSourceServesTheEmbeddedTable) {
  if (clport_shared_kernels_count == 0) GTEST_SKIP() << "kernels/ holds no .cl file yet";
  auto ctx = make();
  ASSERT_NE(ctx, nullptr);
  const clport_host* host = ctx->make_host("kernels", {}, 0);
  const EmbeddedKernel& first = clport_shared_kernels[0];
  size_t len = 0;
  const char* text = host->shared_kernel_source(host->host_ctx, first.name, &len);
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(len, first.size);
  // The embedded copy is the file in the source tree, byte for byte.
  std::ifstream file(std::string(CLPORT_SOURCE_DIR) + "/kernels/" + first.name, std::ios::binary);
  std::ostringstream disk;
  disk << file.rdbuf();
  EXPECT_EQ(std::string(text, len), disk.str());
}

TEST_F(DeviceContextTest, ProfilingRecorderReturnsKernelTimes) {
  auto ctx = make(/*profiling=*/true);
  ASSERT_NE(ctx, nullptr);
  ASSERT_TRUE(ctx->profiling());
  const clport_host* host = ctx->make_host("prof", {}, 0);
  const auto& cl = ctx->cl();
  auto program = ctx->programs().build(kScaleSource, "");
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = cl.clCreateKernel(program.value(), "scale", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  auto mem = ctx->pool().allocate(256 * sizeof(float));
  ASSERT_TRUE(mem.ok());
  cl_mem buffer = mem.value();
  float s = 2.f;
  cl.clSetKernelArg(kernel, 0, sizeof(buffer), &buffer);
  cl.clSetKernelArg(kernel, 1, sizeof(s), &s);
  for (int i = 0; i < 2; ++i) {
    size_t global = 256;
    cl_event event = nullptr;
    ASSERT_EQ(cl.clEnqueueNDRangeKernel(ctx->queue(), kernel, 1, nullptr, &global, nullptr, 0,
                                        nullptr, &event),
              CL_SUCCESS);
    host->record_event(host->host_ctx, i == 0 ? "scale" : "scale_again", event);
    cl.clReleaseEvent(event);  // the recorder holds its own reference
  }
  auto timings = ctx->take_timings();
  ASSERT_EQ(timings.size(), 2u);
  EXPECT_EQ(timings[0].name, "scale");
  EXPECT_EQ(timings[1].name, "scale_again");
  for (const auto& t : timings) {
    EXPECT_GT(t.start_ns, 0u);
    EXPECT_LE(t.queued_ns, t.start_ns);
    EXPECT_LE(t.start_ns, t.end_ns);
  }
  EXPECT_LE(timings[0].end_ns, timings[1].start_ns) << "in-order queue";
  EXPECT_TRUE(ctx->take_timings().empty());
  cl.clReleaseKernel(kernel);
  cl.clReleaseProgram(program.value());
  ASSERT_TRUE(ctx->pool().free(buffer).ok());
}

TEST_F(DeviceContextTest, WithoutProfilingEventsAreNotKept) {
  auto ctx = make(/*profiling=*/false);
  ASSERT_NE(ctx, nullptr);
  const auto& cl = ctx->cl();
  cl_event marker = nullptr;
  ASSERT_EQ(cl.clEnqueueMarkerWithWaitList(ctx->queue(), 0, nullptr, &marker), CL_SUCCESS);
  ctx->record_event("marker", marker);
  cl.clReleaseEvent(marker);
  EXPECT_TRUE(ctx->take_timings().empty());
  // Plugins are not asked for an event per launch either (the SDK then passes none).
  EXPECT_EQ(ctx->make_host("quiet", {}, 0)->record_event, nullptr);
}

}  // namespace
}  // namespace clport
