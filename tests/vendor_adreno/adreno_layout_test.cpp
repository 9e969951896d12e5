// The Adreno split layout through the runtime's own path: DeviceBinding::prepare_weight repacks
// a weight at "load", MUL_MAT ops carrying that layout go back to the Adreno plugin, and the
// results match the CPU reference; releasing the layout frees its arrays. Weights are large
// enough (> 4 MiB of quants) for the pool to hand out whole buffers, on which PoCL accepts
// image1d_buffer views, so the default run takes the image path; a policy setting
// (use_images: false) forces plain buffers. Runs under the spoofed Adreno 740 identity.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "binding/binding.h"
#include "ops/cpu_ops.h"
#include "runtime/device_context.h"
#include "memory/memory_pool.h"
#include "loader/opencl_loader.h"
#include "plugins/plugin_manager.h"
#include "policy/policy.h"
#include "quant/quant.h"

namespace clport {
namespace {

struct Rig {
  std::shared_ptr<DeviceContext> context;
  std::shared_ptr<PluginManager> manager;
  std::unique_ptr<DeviceBinding> binding;
};

void make_rig(const std::string& user_policy, Rig& rig) {
  const char* lib = std::getenv("CLPORT_OPENCL_LIBRARY");
  ASSERT_NE(lib, nullptr) << "CLPORT_OPENCL_LIBRARY (the fake library) is not set";
  auto library = open_opencl_library(lib, nullptr);
  ASSERT_TRUE(library.ok()) << library.status().to_string();
  auto devices = probe_all_devices(library.value()->api());
  ASSERT_TRUE(devices.ok() && !devices->empty());
  auto context = DeviceContext::create(library.value(), devices->front());
  ASSERT_TRUE(context.ok()) << context.status().to_string();
  rig.context = context.value();
  PluginSearchOptions search;
  search.paths = {CLPORT_ADRENO_PLUGIN_DIR};
  search.use_environment = false;
  search.use_default_dirs = false;
  rig.manager = PluginManager::discover(search);
  auto policy = Policy::defaults();
  ASSERT_TRUE(policy.ok());
  if (!user_policy.empty()) {
    ASSERT_TRUE(policy->add_layer(user_policy, "test.yaml").ok());
  }
  rig.binding = DeviceBinding::create(*rig.manager, policy.value(), rig.context);
}

clport_tensor dense(int32_t dtype, int64_t ne0, int64_t ne1, int64_t row_bytes, cl_mem buffer) {
  clport_tensor t{};
  t.dtype = dtype;
  t.n_dims = 2;
  t.ne[0] = ne0;
  t.ne[1] = ne1;
  t.ne[2] = t.ne[3] = 1;
  t.nb[0] = dtype == CLPORT_DTYPE_F32 ? 4 : (dtype == CLPORT_DTYPE_F16 ? 2 : 1);
  t.nb[1] = row_bytes;
  t.nb[2] = t.nb[3] = row_bytes * ne1;
  t.buffer = buffer;
  return t;
}

double nmse(const std::vector<float>& want, const std::vector<float>& got) {
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    num += (double(want[i]) - got[i]) * (double(want[i]) - got[i]);
    den += double(want[i]) * want[i];
  }
  return den > 0 ? num / den : num;
}

struct Case {
  DType dtype;
  int64_t K, N;
};

void run_case(Rig& rig, const Case& c, int64_t M) {
  const int32_t abi = static_cast<int32_t>(c.dtype);
  std::mt19937 rng(static_cast<uint32_t>(c.K * 31 + c.N + M));
  std::normal_distribution<float> dist(0.0f, 1.0f);
  const int64_t row = row_bytes(c.dtype, c.K).value();
  std::vector<float> wf(static_cast<size_t>(c.K)), x(static_cast<size_t>(c.K * M));
  std::vector<uint8_t> wq(static_cast<size_t>(row * c.N));
  for (int64_t n = 0; n < c.N; ++n) {
    for (auto& v : wf) v = dist(rng);
    ASSERT_TRUE(quantize_row(c.dtype, wf.data(), wq.data() + n * row, c.K).ok());
  }
  for (auto& v : x) v = dist(rng);
  std::vector<float> want(static_cast<size_t>(c.N * M)), got(want.size(), NAN);
  ASSERT_TRUE(cpu::run_op(CLPORT_OP_MUL_MAT,
                          {cpu::HostTensor::contiguous(c.dtype, {c.K, c.N, 1, 1}, wq.data()),
                           cpu::HostTensor::contiguous(DType::F32, {c.K, M, 1, 1}, x.data())},
                          cpu::HostTensor::contiguous(DType::F32, {c.N, M, 1, 1}, want.data()), {})
                  .ok());

  MemoryPool& pool = rig.context->pool();
  auto wb = pool.allocate(wq.size()), xb = pool.allocate(x.size() * 4), db = pool.allocate(got.size() * 4);
  ASSERT_TRUE(wb.ok() && xb.ok() && db.ok());
  ASSERT_TRUE(rig.context->write(wb.value(), 0, wq.data(), wq.size()).ok());
  ASSERT_TRUE(rig.context->write(xb.value(), 0, x.data(), x.size() * 4).ok());
  clport_tensor w = dense(abi, c.K, c.N, row, wb.value());
  {
    auto layout = rig.binding->prepare_weight(CLPORT_OP_MUL_MAT, w);
    ASSERT_TRUE(layout.ok()) << layout.status().to_string();
    ASSERT_NE(layout.value().layout(), nullptr) << "the Adreno plugin did not repack a " << c.K << "x" << c.N << " weight";
    w.layout = layout.value().layout();
    clport_tensor xt = dense(CLPORT_DTYPE_F32, c.K, M, 4 * c.K, xb.value());
    clport_tensor dt = dense(CLPORT_DTYPE_F32, c.N, M, 4 * c.N, db.value());
    clport_op op{};
    op.struct_size = sizeof(op);
    op.kind = CLPORT_OP_MUL_MAT;
    op.n_src = 2;
    op.src[0] = &w;
    op.src[1] = &xt;
    op.dst = &dt;
    const BoundInstance* inst = rig.binding->select(op);
    ASSERT_NE(inst, nullptr);
    EXPECT_EQ(inst->name(), "adreno");
    ASSERT_TRUE(rig.binding->enqueue(op).ok());
    ASSERT_TRUE(rig.context->read(db.value(), 0, got.data(), got.size() * 4).ok());
  }  // the layout is released here, before its source buffer
  const double e = nmse(want, got);
  EXPECT_LT(e, 1e-8) << dtype_name(c.dtype) << " K=" << c.K << " N=" << c.N << " M=" << M;
  for (cl_mem m : {wb.value(), xb.value(), db.value()}) EXPECT_TRUE(pool.free(m).ok());
}

// Quant arrays above the pool's 4 MiB sub-allocation limit (whole buffers, image views on PoCL).
const Case kCases[] = {
    {DType::F16, 1024, 4100}, {DType::Q4_0, 4096, 4100}, {DType::Q4_1, 4096, 4100},
    {DType::Q8_0, 2048, 4100}, {DType::Q6_K, 4096, 2100},
};

class AdrenoLayout : public ::testing::TestWithParam<bool> {};

TEST_P(AdrenoLayout, PreparedWeightsMatchCpuForGemvAndGemm) {
  const bool images = GetParam();
  Rig rig;
  make_rig(images ? "" : "rules: [{id: buffers, reason: test, match: {family: adreno}, settings: {adreno: {use_images: false}}}]\n",
           rig);
  if (HasFatalFailure()) return;
  for (const Case& c : kCases) {
    for (int64_t M : {int64_t{1}, int64_t{3}, int64_t{7}}) {
      run_case(rig, c, M);
      if (HasFatalFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, AdrenoLayout, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& i) { return i.param ? "images" : "buffers"; });

}  // namespace
}  // namespace clport
