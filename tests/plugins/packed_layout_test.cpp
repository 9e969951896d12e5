// The generic plugin's opt-in packed GEMV layout through the plugin ABI on the test device
// (PoCL here): what prepare_weight accepts, that the packed GEMV computes what the plain one
// does, that a device out of memory keeps the plain layout instead of failing, and that a
// layout the plugin did not make is refused rather than dereferenced.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "binding/binding.h"
#include "runtime/device_context.h"
#include "common/nmse.h"
#include "binding/op_desc.h"
#include "loader/opencl_loader.h"
#include "plugins/plugin_manager.h"
#include "probe/device_info.h"
#include "common/dtype.h"
#include "quant/quant.h"

namespace clport {
namespace {

constexpr int64_t kK = 256, kN = 40;

cl_mem out_of_memory(void*, size_t, int32_t* status) {
  if (status != nullptr) *status = CLPORT_PLUGIN_OUT_OF_MEMORY;
  return nullptr;
}

class PackedLayout : public ::testing::Test {
 protected:
  void SetUp() override {
    LoadReport load = load_opencl();
    if (load.library == nullptr) GTEST_SKIP() << load.status.to_string();
    auto devices = probe_all_devices(load.library->api());
    if (!devices.ok() || devices->empty()) GTEST_SKIP() << "no OpenCL device";
    auto ctx = DeviceContext::create(load.library, devices->front());
    ASSERT_TRUE(ctx.ok()) << ctx.status().to_string();
    ctx_ = ctx.value();
    std::string reason;
    // CLPORT_TEST_GENERIC_PLUGIN: the plugin file when the build tree is not there (a bundle run
    // on another machine).
    const char* file = std::getenv("CLPORT_TEST_GENERIC_PLUGIN");
    plugin_ = PluginManager::load_file(file != nullptr && *file != '\0' ? file : CLPORT_GENERIC_PLUGIN, "test", true,
                                       &reason);
    ASSERT_NE(plugin_, nullptr) << reason;
    desc_ = ctx_->info().to_desc();
  }
  void TearDown() override {
    if (instance_ != nullptr) plugin_->table().destroy(instance_);
    for (cl_mem m : buffers_) ctx_->cl().clReleaseMemObject(m);
  }

  // A host table with these policy settings, checked against the plugin's declarations.
  const clport_host* make_host(const std::string& settings_yaml) {
    auto written = parse_settings_text(settings_yaml, "test settings");
    EXPECT_TRUE(written.ok()) << written.status().to_string();
    if (!written.ok()) return nullptr;
    auto typed = check_plugin_settings(plugin_->table(), written.value());
    EXPECT_TRUE(typed.ok()) << typed.status().to_string();
    return typed.ok() ? ctx_->make_host("generic", typed.value(), 0) : nullptr;
  }

  // An instance with gemv_packed on; `host_override` replaces the host table when given.
  void create(const clport_host* host_override = nullptr) {
    // int_dot off: the plain GEMV these tests compare the packed one with is the float kernel.
    const clport_host* host = make_host("gemv_packed: 1\nint_dot: off\n");
    ASSERT_NE(host, nullptr);
    host_ = *host;
    if (host_override != nullptr) host_ = *host_override;
    clport_plugin_error* error = nullptr;
    ASSERT_EQ(plugin_->table().create(&host_, &desc_, &instance_, &error), CLPORT_PLUGIN_OK);
  }

  cl_mem upload(const void* data, size_t bytes) {
    cl_int err = CL_SUCCESS;
    cl_mem m = ctx_->cl().clCreateBuffer(ctx_->context(), CL_MEM_READ_WRITE, bytes, nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    buffers_.push_back(m);
    EXPECT_TRUE(ctx_->write(m, 0, data, bytes).ok());
    return m;
  }

  clport_tensor q4_weight() {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> values(static_cast<size_t>(kK * kN));
    for (float& v : values) v = dist(rng);
    const int64_t row = *row_bytes(DType::Q4_0, kK);
    std::vector<uint8_t> bytes(static_cast<size_t>(row * kN));
    for (int64_t n = 0; n < kN; ++n)
      EXPECT_TRUE(quantize_row(DType::Q4_0, values.data() + n * kK, bytes.data() + n * row, kK).ok());
    return contiguous_tensor(CLPORT_DTYPE_Q4_0, {kK, kN, 1, 1}, 2, upload(bytes.data(), bytes.size()));
  }

  // dst = x * W^T for one activation row; the weight as given (layout or not).
  std::vector<float> gemv(const clport_tensor& w, int32_t* rc) {
    std::vector<float> x(static_cast<size_t>(kK));
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * static_cast<float>(i));
    const clport_tensor xt = contiguous_tensor(CLPORT_DTYPE_F32, {kK, 1, 1, 1}, 2, upload(x.data(), x.size() * 4));
    std::vector<float> out(static_cast<size_t>(kN), -1.0f);
    const clport_tensor dt = contiguous_tensor(CLPORT_DTYPE_F32, {kN, 1, 1, 1}, 2, upload(out.data(), out.size() * 4));
    const clport_op op = two_source_op(CLPORT_OP_MUL_MAT, w, xt, dt);
    clport_plugin_error* error = nullptr;
    *rc = enqueue_once(plugin_->table(), instance_, op, &error);
    if (error != nullptr) plugin_->table().release_error(error);
    EXPECT_TRUE(ctx_->finish().ok());
    EXPECT_TRUE(ctx_->read(dt.buffer, 0, out.data(), out.size() * 4).ok());
    return out;
  }

  std::shared_ptr<DeviceContext> ctx_;
  std::shared_ptr<LoadedPlugin> plugin_;
  clport_device_desc desc_{};
  clport_host host_{};
  clport_plugin_instance* instance_ = nullptr;
  std::vector<cl_mem> buffers_;
};

TEST_F(PackedLayout, PackedGemvComputesWhatThePlainOneDoes) {
  create();
  clport_tensor w = q4_weight();
  int32_t rc = -1;
  const std::vector<float> plain = gemv(w, &rc);
  ASSERT_EQ(rc, CLPORT_PLUGIN_OK);

  void* layout = nullptr;
  int32_t owns_weight = -1;
  clport_plugin_error* error = nullptr;
  ASSERT_EQ(plugin_->table().prepare_weight(instance_, &w, &layout, &owns_weight, &error), CLPORT_PLUGIN_OK);
  ASSERT_NE(layout, nullptr);
  EXPECT_EQ(owns_weight, 0);  // the GEMM and get_rows still read the plain copy
  w.layout = layout;
  const std::vector<float> packed = gemv(w, &rc);
  ASSERT_EQ(rc, CLPORT_PLUGIN_OK);
  EXPECT_LT(nmse(plain.data(), packed.data(), plain.size()), 1e-10);
  EXPECT_NE(packed[0], -1.0f);  // written, not the initial fill
  plugin_->table().release_layout(instance_, layout);
}

TEST_F(PackedLayout, OutOfDeviceMemoryKeepsThePlainLayout) {
  const clport_host* real = make_host("gemv_packed: 1\n");
  ASSERT_NE(real, nullptr);
  clport_host starved = *real;
  starved.alloc_buffer = out_of_memory;
  create(&starved);
  clport_tensor w = q4_weight();
  void* layout = reinterpret_cast<void*>(0x1);
  clport_plugin_error* error = nullptr;
  int32_t owns_weight = -1;
  EXPECT_EQ(plugin_->table().prepare_weight(instance_, &w, &layout, &owns_weight, &error), CLPORT_PLUGIN_UNSUPPORTED);
  EXPECT_EQ(layout, nullptr);
  if (error != nullptr) plugin_->table().release_error(error);
  int32_t rc = -1;
  (void)gemv(w, &rc);  // the plain weight still runs
  EXPECT_EQ(rc, CLPORT_PLUGIN_OK);
}

TEST_F(PackedLayout, OnlyPackableWeightsArePrepared) {
  create();
  const int64_t row = *row_bytes(DType::Q5_0, kK);
  std::vector<uint8_t> bytes(static_cast<size_t>(row * kN), 0);
  clport_tensor q5 = contiguous_tensor(CLPORT_DTYPE_Q5_0, {kK, kN, 1, 1}, 2, upload(bytes.data(), bytes.size()));
  void* layout = nullptr;
  clport_plugin_error* error = nullptr;
  int32_t owns_weight = -1;
  EXPECT_EQ(plugin_->table().prepare_weight(instance_, &q5, &layout, &owns_weight, &error), CLPORT_PLUGIN_UNSUPPORTED);
  EXPECT_EQ(layout, nullptr);
  if (error != nullptr) plugin_->table().release_error(error);
}

TEST_F(PackedLayout, ALayoutThePluginDidNotMakeIsRefused) {
  create();
  clport_tensor w = q4_weight();
  int foreign = 0;
  w.layout = &foreign;
  const clport_tensor xt = contiguous_tensor(CLPORT_DTYPE_F32, {kK, 1, 1, 1}, 2);
  const clport_tensor dt = contiguous_tensor(CLPORT_DTYPE_F32, {kN, 1, 1, 1}, 2);
  const clport_op query = two_source_op(CLPORT_OP_MUL_MAT, w, xt, dt);
  EXPECT_EQ(plugin_->table().claim_op(instance_, &query), 0);
  int32_t rc = CLPORT_PLUGIN_OK;
  (void)gemv(w, &rc);
  EXPECT_NE(rc, CLPORT_PLUGIN_OK);
  plugin_->table().release_layout(instance_, &foreign);  // ignored: not the plugin's
  EXPECT_EQ(foreign, 0);
}

}  // namespace
}  // namespace clport
