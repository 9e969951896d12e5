// The driver self-test against a deliberately broken kernel: the test OpenCL library
// (tests/fakecl) forwards to PoCL and, with FAKECL_CORRUPT_KERNEL=rms_norm_f32, damages the
// buffers of every run of that kernel. The self-test must catch it, take RMS_NORM away from the
// generic plugin (CPU path), cache the verdict (a second start reads it instead of testing), and
// a whole model must still match the CPU reference. Controls: a healthy driver gets a clean
// verdict, and with the self-test off the same corruption really does break the model.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "binding/binding.h"
#include "runtime/device_context.h"
#include "engine/engine_core.h"
#include "gguf/gguf.h"
#include "common/nmse.h"
#include "binding/op_desc.h"
#include "loader/opencl_loader.h"
#include "selftest/self_test.h"
#include "activation_policy.h"
#include "random_model.h"
#include "scoped_env.h"

namespace clport {
namespace {

namespace fs = std::filesystem;
using testing_env::ScopedEnv;

constexpr const char* kBrokenKernel = "rms_norm_f32";

// One cache directory in the build tree: compiled programs are shared by the tests and later runs
// (PoCL builds are slow; ctest runs each test in its own process and the tests hold the
// RESOURCE_LOCK selftest_cache); each test removes the verdict files it needs gone.
const std::string& cache_dir() {
  static const std::string dir = [] {
    fs::path p = fs::path(CLPORT_BINARY_DIR) / "tests" / "selftest" / "cache";
    fs::create_directories(p);
    return p.string();
  }();
  return dir;
}

void remove_verdicts() {
  for (const auto& e : fs::directory_iterator(cache_dir()))
    if (e.path().filename().string().rfind("selftest-", 0) == 0) fs::remove(e.path());
}

int verdict_files() {
  int n = 0;
  for (const auto& e : fs::directory_iterator(cache_dir()))
    n += e.path().filename().string().rfind("selftest-", 0) == 0 && e.path().extension() == ".json";
  return n;
}

struct Started {
  std::shared_ptr<DeviceContext> context;
  std::shared_ptr<PluginManager> manager;
  std::unique_ptr<DeviceBinding> binding;
};

// What engine start-up does up to the binding, through the fake library; `policy_layer`, when
// given, is a user policy YAML layered over the defaults.
Started start(const std::string& policy_layer = "") {
  Started s;
  LoadAttempt attempt;
  auto library = open_opencl_library(CLPORT_FAKECL_FORWARD, &attempt);
  EXPECT_TRUE(library.ok()) << library.status().to_string();
  if (!library.ok()) return s;
  auto devices = probe_all_devices(library.value()->api());
  EXPECT_TRUE(devices.ok() && !devices->empty());
  if (!devices.ok() || devices->empty()) return s;
  auto context = DeviceContext::create(library.value(), devices->front());
  EXPECT_TRUE(context.ok()) << context.status().to_string();
  if (!context.ok()) return s;
  s.context = context.value();
  PluginSearchOptions search;
  search.paths = {CLPORT_PLUGIN_BUILD_DIR};
  search.use_environment = false;
  search.use_default_dirs = false;
  s.manager = PluginManager::discover(search);
  auto policy = Policy::defaults();
  EXPECT_TRUE(policy.ok());
  if (!policy_layer.empty()) {
    EXPECT_TRUE(policy->add_layer(policy_layer, "test.yaml").ok());
  }
  s.binding = DeviceBinding::create(*s.manager, policy.value(), s.context);
  return s;
}

// Shapes only (select() never looks at buffers).
struct Ops {
  clport_tensor x = contiguous_tensor(CLPORT_DTYPE_F32, {256, 4, 1, 1}, 2);
  clport_tensor w = contiguous_tensor(CLPORT_DTYPE_F32, {256, 1, 1, 1}, 2);
  clport_tensor y = contiguous_tensor(CLPORT_DTYPE_F32, {256, 4, 1, 1}, 2);
  clport_tensor q = contiguous_tensor(CLPORT_DTYPE_Q8_0, {256, 64, 1, 1}, 2);
  clport_tensor a = contiguous_tensor(CLPORT_DTYPE_F32, {256, 1, 1, 1}, 2);
  clport_tensor o = contiguous_tensor(CLPORT_DTYPE_F32, {64, 1, 1, 1}, 2);
  clport_op rms = two_source_op(CLPORT_OP_RMS_NORM, x, w, y);
  clport_op mm = two_source_op(CLPORT_OP_MUL_MAT, q, a, o);
  Ops() { rms.params.eps = 1e-5f; }
  Ops(const Ops&) = delete;  // the ops point into this object
  Ops& operator=(const Ops&) = delete;
};

std::string served_by(const DeviceBinding& b, const clport_op& op) {
  const BoundInstance* inst = b.select(op);
  return inst ? inst->name() : "cpu";
}

class SelfTest : public ::testing::Test {
 protected:
  ScopedEnv env{{"CLPORT_CACHE_DIR", cache_dir().c_str()}, {"CLPORT_SELF_TEST", nullptr},
                {"FAKECL_CORRUPT_KERNEL", nullptr}, {"FAKECL_PRESET", nullptr}};
};

TEST_F(SelfTest, HealthyDriverGetsACleanVerdict) {
  remove_verdicts();
  Started s = start();
  ASSERT_TRUE(s.binding && s.binding->has_device());
  const selftest::Verdict v = selftest::run(*s.context, *s.binding);
  EXPECT_EQ(v.source, selftest::Verdict::Source::Ran) << v.note;
  EXPECT_GT(v.passed(), 20);  // every op of the generic plugin, several dtypes
  EXPECT_EQ(v.failed(), 0);
  for (const auto& c : v.cases) {
    if (!c.passed) ADD_FAILURE() << c.plugin << " " << c.name << ": " << c.message;
  }
  EXPECT_TRUE(s.binding->exclusions().empty());
  Ops ops;
  EXPECT_EQ(served_by(*s.binding, ops.rms), "generic");
}

TEST_F(SelfTest, CorruptedKernelIsCaughtReboundAndCached) {
  remove_verdicts();
  env.set("FAKECL_CORRUPT_KERNEL", kBrokenKernel);
  Ops ops;
  {
    Started s = start();
    ASSERT_TRUE(s.binding && s.binding->has_device());
    ASSERT_EQ(served_by(*s.binding, ops.rms), "generic");  // before the test: the broken plugin
    const uint64_t runs = selftest::runs_in_process();
    const selftest::Verdict v = selftest::run(*s.context, *s.binding);
    EXPECT_EQ(v.source, selftest::Verdict::Source::Ran) << v.note;
    EXPECT_EQ(selftest::runs_in_process(), runs + 1);
    EXPECT_GT(v.failed(), 0);
    for (const auto& c : v.cases) {
      if (!c.passed) {
        EXPECT_EQ(c.op_kind, CLPORT_OP_RMS_NORM) << c.name << ": " << c.message;
      }
      if (c.op_kind == CLPORT_OP_RMS_NORM) {
        EXPECT_FALSE(c.passed) << c.name;
      }
    }
    ASSERT_EQ(v.rebound.size(), 1u);
    EXPECT_NE(v.rebound[0].find("RMS_NORM"), std::string::npos) << v.rebound[0];
    EXPECT_NE(v.rebound[0].find("'generic'"), std::string::npos) << v.rebound[0];
    EXPECT_NE(v.rebound[0].find("re-bound to the CPU path"), std::string::npos) << v.rebound[0];
    EXPECT_EQ(served_by(*s.binding, ops.rms), "cpu");
    EXPECT_EQ(served_by(*s.binding, ops.mm), "generic");  // other ops stay on the device
    EXPECT_FALSE(v.file.empty());
    EXPECT_TRUE(fs::exists(v.file));
    EXPECT_EQ(verdict_files(), 1);
  }
  {
    // Second start: the cached verdict is applied; nothing is tested again.
    Started s = start();
    ASSERT_TRUE(s.binding && s.binding->has_device());
    const uint64_t runs = selftest::runs_in_process();
    const selftest::Verdict v = selftest::run(*s.context, *s.binding);
    EXPECT_EQ(v.source, selftest::Verdict::Source::Cache) << v.note;
    EXPECT_EQ(selftest::runs_in_process(), runs);
    EXPECT_GT(v.failed(), 0);
    EXPECT_EQ(served_by(*s.binding, ops.rms), "cpu");
    EXPECT_EQ(served_by(*s.binding, ops.mm), "generic");
  }
  {
    // CLPORT_SELF_TEST=force tests again even with a cached verdict.
    ScopedEnv force{{"CLPORT_SELF_TEST", "force"}};
    Started s = start();
    const uint64_t runs = selftest::runs_in_process();
    const selftest::Verdict v = selftest::run(*s.context, *s.binding);
    EXPECT_EQ(v.source, selftest::Verdict::Source::Ran);
    EXPECT_EQ(selftest::runs_in_process(), runs + 1);
    EXPECT_EQ(served_by(*s.binding, ops.rms), "cpu");
  }
  {
    // CLPORT_SELF_TEST=off: no test, no exclusion (the broken kernel stays in service).
    ScopedEnv off{{"CLPORT_SELF_TEST", "off"}};
    Started s = start();
    const selftest::Verdict v = selftest::run(*s.context, *s.binding);
    EXPECT_EQ(v.source, selftest::Verdict::Source::Skipped);
    EXPECT_EQ(served_by(*s.binding, ops.rms), "generic");
  }
}

TEST_F(SelfTest, OtherPluginSettingsAreTestedAgain) {
  // Policy settings change which kernels and build options a plugin uses (gemv_packed, tile
  // sizes), so a verdict cached under other settings says nothing about them.
  remove_verdicts();
  const std::string packed = "version: 1\nplugins:\n  generic:\n    gemv_packed: 1\n";
  std::string default_key;
  {
    Started s = start();
    ASSERT_TRUE(s.binding && s.binding->has_device());
    const selftest::Verdict v = selftest::run(*s.context, *s.binding);
    EXPECT_EQ(v.source, selftest::Verdict::Source::Ran) << v.note;
    default_key = v.key;
  }
  {
    Started s = start(packed);
    ASSERT_TRUE(s.binding && s.binding->has_device());
    const selftest::Verdict v = selftest::run(*s.context, *s.binding);
    EXPECT_EQ(v.source, selftest::Verdict::Source::Ran) << v.note;
    EXPECT_NE(v.key, default_key);
  }
  {
    Started s = start(packed);  // the same settings again: the verdict just cached
    const selftest::Verdict v = selftest::run(*s.context, *s.binding);
    EXPECT_EQ(v.source, selftest::Verdict::Source::Cache) << v.note;
  }
  EXPECT_EQ(verdict_files(), 2);
}

TEST_F(SelfTest, CorruptCachedVerdictIsIgnoredAndTestedAgain) {
  remove_verdicts();
  Started first = start();
  ASSERT_TRUE(first.binding && first.binding->has_device());
  const selftest::Verdict v = selftest::run(*first.context, *first.binding);
  ASSERT_FALSE(v.file.empty());
  std::ofstream(v.file, std::ios::trunc) << "{\"format\": 1, \"key\": \"" << v.key << "\", \"cases\": [{\"plugin\": 7}]}";
  Started s = start();
  const uint64_t runs = selftest::runs_in_process();
  const selftest::Verdict again = selftest::run(*s.context, *s.binding);
  EXPECT_EQ(again.source, selftest::Verdict::Source::Ran);
  EXPECT_EQ(selftest::runs_in_process(), runs + 1);
}

TEST(SelfTestScope, KvOpsCountUnderTheCacheTypesAndTheRestUnderTheTensorDtypes) {
  const selftest::TestScope scope = selftest::model_scope({CLPORT_DTYPE_Q4_1, CLPORT_DTYPE_F32}, CLPORT_DTYPE_F16,
                                                          CLPORT_DTYPE_F16);
  EXPECT_EQ(scope.tensor_dtypes, (std::vector<int32_t>{-1, CLPORT_DTYPE_F32, CLPORT_DTYPE_Q4_1}));
  EXPECT_EQ(scope.kv_types, (std::vector<int32_t>{CLPORT_DTYPE_F16}));
  EXPECT_TRUE(scope.includes(CLPORT_OP_MUL_MAT, CLPORT_DTYPE_Q4_1));
  EXPECT_FALSE(scope.includes(CLPORT_OP_MUL_MAT, CLPORT_DTYPE_Q8_0));
  EXPECT_FALSE(scope.includes(CLPORT_OP_MUL_MAT, CLPORT_DTYPE_F16));
  EXPECT_TRUE(scope.includes(CLPORT_OP_RMS_NORM, CLPORT_DTYPE_F32));
  EXPECT_TRUE(scope.includes(CLPORT_OP_ROPE_KV_STORE_ATTENTION, CLPORT_DTYPE_F16));
  EXPECT_FALSE(scope.includes(CLPORT_OP_ROPE_KV_STORE_ATTENTION, CLPORT_DTYPE_F32));  // F32 is no cache type here
  EXPECT_TRUE(scope.includes(CLPORT_OP_COPY, CLPORT_DTYPE_F16));  // into the cache
  EXPECT_TRUE(scope.includes(CLPORT_OP_COPY, CLPORT_DTYPE_F32));  // between tensors
  EXPECT_TRUE(selftest::TestScope{}.includes(CLPORT_OP_MUL_MAT, CLPORT_DTYPE_Q6_K));  // everything
}

// A model's load tests its own dtypes; another model's adds only what it lacks, and the cached
// verdict then covers both.
TEST_F(SelfTest, AModelsScopeIsTestedAndAnotherModelCompletesIt) {
  remove_verdicts();
  const selftest::TestScope q4_1 = selftest::model_scope({CLPORT_DTYPE_Q4_1}, CLPORT_DTYPE_F16, CLPORT_DTYPE_F16);
  const selftest::TestScope q8_0 = selftest::model_scope({CLPORT_DTYPE_Q8_0}, CLPORT_DTYPE_Q8_0, CLPORT_DTYPE_Q8_0);
  size_t first_cases = 0;
  {
    Started s = start();
    ASSERT_TRUE(s.binding && s.binding->has_device());
    selftest::Options options;
    options.scope = q4_1;
    const selftest::Verdict v = selftest::run(*s.context, *s.binding, options);
    ASSERT_EQ(v.source, selftest::Verdict::Source::Ran) << v.note;
    EXPECT_EQ(v.failed(), 0);
    EXPECT_EQ(v.scope.tensor_dtypes, q4_1.tensor_dtypes);
    EXPECT_EQ(v.scope.kv_types, q4_1.kv_types);
    bool q4_1_mul_mat = false;
    for (const auto& c : v.cases) {
      EXPECT_TRUE(q4_1.includes(c.op_kind, c.dtype)) << c.name;
      q4_1_mul_mat = q4_1_mul_mat || (c.op_kind == CLPORT_OP_MUL_MAT && c.dtype == CLPORT_DTYPE_Q4_1);
    }
    EXPECT_TRUE(q4_1_mul_mat);
    first_cases = v.cases.size();
  }
  {
    // Only asking: the verdict lacks Q8_0, so this device is not set up for that model.
    Started s = start();
    selftest::Options ask;
    ask.scope = q8_0;
    ask.run_if_missing = false;
    EXPECT_NE(selftest::run(*s.context, *s.binding, ask).source, selftest::Verdict::Source::Cache);
    ask.scope = {};  // nor for every dtype
    EXPECT_NE(selftest::run(*s.context, *s.binding, ask).source, selftest::Verdict::Source::Cache);
    ask.scope = q4_1;
    EXPECT_EQ(selftest::run(*s.context, *s.binding, ask).source, selftest::Verdict::Source::Cache);
  }
  {
    Started s = start();
    selftest::Options options;
    options.scope = q8_0;
    const uint64_t runs = selftest::runs_in_process();
    const selftest::Verdict v = selftest::run(*s.context, *s.binding, options);
    ASSERT_EQ(v.source, selftest::Verdict::Source::Ran) << v.note;
    EXPECT_EQ(selftest::runs_in_process(), runs + 1);
    ASSERT_GT(v.cases.size(), first_cases);
    // The first model's cases are kept, and none of them ran again.
    size_t new_q4_1 = 0;
    for (size_t i = first_cases; i < v.cases.size(); ++i) {
      EXPECT_TRUE(q8_0.includes(v.cases[i].op_kind, v.cases[i].dtype)) << v.cases[i].name;
      new_q4_1 += q4_1.includes(v.cases[i].op_kind, v.cases[i].dtype) ? 1 : 0;
    }
    EXPECT_EQ(new_q4_1, 0u);
    EXPECT_EQ(v.scope.tensor_dtypes, (std::vector<int32_t>{-1, CLPORT_DTYPE_F32, CLPORT_DTYPE_Q4_1, CLPORT_DTYPE_Q8_0}));
    EXPECT_EQ(v.scope.kv_types, (std::vector<int32_t>{CLPORT_DTYPE_F16, CLPORT_DTYPE_Q8_0}));
  }
  {
    Started s = start();
    for (const selftest::TestScope& scope : {q4_1, q8_0}) {
      selftest::Options ask;
      ask.scope = scope;
      ask.run_if_missing = false;
      EXPECT_EQ(selftest::run(*s.context, *s.binding, ask).source, selftest::Verdict::Source::Cache);
    }
  }
}

// A whole model through the engine (create_backend runs the self-test) with the broken kernel.
std::vector<float> prompt_logits(Backend& backend, const std::shared_ptr<GgufFile>& file) {
  ModelOptions lo;
  lo.n_ctx = 32;
  lo.n_batch = 8;
  auto model = LlamaModel::load(file, backend, lo);
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  std::vector<float> logits;
  if (!model.ok()) return logits;
  EXPECT_TRUE(model.value()->forward({1, 260, 70, 261, 100}, 0, false, logits).ok());
  return logits;
}

TEST_F(SelfTest, ModelForwardMatchesCpuDespiteTheBrokenKernel) {
  remove_verdicts();
  env.set("CLPORT_OPENCL_LIBRARY", CLPORT_FAKECL_FORWARD);
  env.set("CLPORT_PLUGIN_PATH", CLPORT_PLUGIN_BUILD_DIR);
  // A kernel the model's plan runs: with fused patterns on, the norm lives inside the Q/K/V and
  // output GEMVs, so the standalone rms_norm_f32 of the other tests never runs here. The KV
  // store's first buffer is the Q/K/V projection, which attention reads next.
  env.set("FAKECL_CORRUPT_KERNEL", "kv_store_rope_f16");
  const fs::path path = fs::path(cache_dir()) / "model.gguf";
  test::RandomModelSpec spec;
  spec.weight_dtype = DType::Q8_0;
  ASSERT_TRUE(test::write_random_llama(path.string(), spec).ok());
  auto file = GgufFile::open(path.string());
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  auto cpu = make_cpu_backend();
  const std::vector<float> want = prompt_logits(*cpu, file.value());
  ASSERT_FALSE(want.empty());

  // Float activations, so the device's logits are the exact reference's (the integer GEMV's
  // rounding has its own tests).
  const fs::path policy = fs::path(cache_dir()) / "fp32.yaml";
  test::write_activation_policy(policy.string(), false);
  EngineOptions options;
  options.config_path = policy.string();
  auto device = create_backend(options);
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  ASSERT_EQ(device.value()->name().rfind("opencl:", 0), 0u) << device.value()->description();
  const std::vector<float> got = prompt_logits(*device.value(), file.value());
  ASSERT_EQ(got.size(), want.size());
  EXPECT_LT(nmse(want.data(), got.data(), want.size()), 1e-6);
  EXPECT_EQ(verdict_files(), 1);

  // Control: the same corruption with the self-test off really breaks the model.
  ScopedEnv off{{"CLPORT_SELF_TEST", "off"}};
  auto unchecked = create_backend(options);
  ASSERT_TRUE(unchecked.ok());
  const std::vector<float> broken = prompt_logits(*unchecked.value(), file.value());
  ASSERT_EQ(broken.size(), want.size());
  const double err = nmse(want.data(), broken.data(), want.size());
  EXPECT_FALSE(err < 1e-6) << "the injected corruption did not change the logits (NMSE " << err << ")";
}

}  // namespace
}  // namespace clport
