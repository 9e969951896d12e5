// A device that gives out, through the fault-injecting OpenCL library (tests/fakecl) in front of
// the real driver: out of device memory at load, and an enqueue, read, write or finish that
// fails in the middle of a generation. In every case the text equals that of a run on the CPU
// path from the start (greedy, float activations on both paths), the device's memory is given
// back, and a failure during a run is recorded so that the next start avoids the device until
// its driver changes.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "selftest/device_failure.h"
#include "engine/engine_core.h"
#include "common/logger.h"
#include "clport/tokenizer.h"
#include "model_compare.h"
#include "fault_injecting_env.h"
#include "scoped_env.h"
#include "test_dir.h"

namespace clport::test {
namespace {

namespace fs = std::filesystem;
using testing_env::ScopedEnv;

constexpr int kTokens = 24;
constexpr int kFailingToken = 10;  // the first token whose forward step fails on the device

// Bytes of the device buffers the fake library has handed out and not had back.
size_t live_device_bytes() {
  void* lib = ::dlopen(CLPORT_FAKECL_FORWARD, RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) return 0;
  using Fn = size_t (*)();
  auto fn = reinterpret_cast<Fn>(::dlsym(lib, "fakecl_live_buffer_bytes"));
  const size_t bytes = fn != nullptr ? fn() : 0;
  ::dlclose(lib);
  return bytes;
}

// What the engine logs as warnings while it lives.
class CapturedWarnings {
 public:
  CapturedWarnings() : log_(logger("engine")), sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(text_)) {
    log_->sinks().push_back(sink_);
  }
  ~CapturedWarnings() { log_->sinks().pop_back(); }
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::logger> log_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
};

struct Generation {
  Status status;
  std::vector<int32_t> tokens;  // as streamed to on_token
  std::string text;
  GenerationStats stats;
  std::string backend;  // after the run
  // The logits one more step would sample from: equal only when the KV cache holds what the
  // CPU path's holds (a random model's greedy tokens hardly depend on the context).
  std::vector<float> next_logits;
};

class Recovery : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = write_temp_model(RandomModelSpec{}, "recovery_" + test::test_name_tag());
    cache_ = test::fresh_test_dir("clport-recovery");
    policy_ = model_.string() + ".yaml";
    write_activation_policy(policy_, /*integer=*/false);  // float activations: device = CPU path
    use_fault_injecting_library(env_, cache_);  // no self-test kernels: the faults hit the model alone
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove(model_, ec);
    fs::remove(policy_, ec);
    fs::remove_all(cache_, ec);
  }

  EngineOptions options(const std::string& device = "auto") const {
    EngineOptions o;
    o.model_path = model_.string();
    o.device = device;
    o.config_path = policy_;
    o.model = small_options(/*fusion=*/true);
    o.cpu_float_activations = device == "cpu";  // what the policy's precision: fp32 gives
    o.n_threads = 2;
    return o;
  }

  // kTokens greedy tokens after the comparison prompt; `after_token(n)` runs once n are out.
  Generation generate(EngineCore& engine, const std::function<void(int)>& after_token = {}) {
    Generation g;
    Sampler sampler(SamplerOptions{});
    TokenStreamDecoder decoder(engine.tokenizer());
    g.status = engine.generate(compare_prompt(), kTokens, sampler,
                               [&](int32_t token) {
                                 g.tokens.push_back(token);
                                 g.text += decoder.push(token);
                                 if (after_token) after_token(static_cast<int>(g.tokens.size()));
                                 return true;
                               },
                               &g.stats);
    g.text += decoder.flush();
    g.backend = engine.backend().name();
    if (g.status.ok() && !g.tokens.empty()) {
      const auto n_past = static_cast<uint32_t>(compare_prompt().size() + g.tokens.size() - 1);
      const Status st = engine.model().forward({g.tokens.back()}, n_past, false, g.next_logits);
      EXPECT_TRUE(st.ok()) << st.to_string();
    }
    return g;
  }

  // The run that was on the CPU path from the start.
  Generation cpu_path() {
    auto engine = EngineCore::open(options("cpu"));
    EXPECT_TRUE(engine.ok()) << engine.status().to_string();
    if (!engine.ok()) return {};
    return generate(*engine.value());
  }

  size_t failure_records() const {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(cache_, ec))
      n += e.path().filename().string().rfind("avoid-", 0) == 0 ? 1 : 0;
    return n;
  }

  // A generation on the device whose `function` starts failing with `code` at kFailingToken.
  Generation failing_at_token_10(const std::string& function, int code) {
    auto engine = EngineCore::open(options());
    EXPECT_TRUE(engine.ok()) << engine.status().to_string();
    if (!engine.ok()) return {};
    EXPECT_EQ(engine.value()->backend().name().rfind("opencl:", 0), 0u) << engine.value()->backend().description();
    const std::string fault = function + ":0:" + std::to_string(code);
    size_t device_bytes = 0;
    Generation g = generate(*engine.value(), [&](int n) {
      if (n != kFailingToken - 1) return;
      device_bytes = live_device_bytes();
      ::setenv("FAKECL_FAIL", fault.c_str(), 1);  // every later call of `function` fails
    });
    ::unsetenv("FAKECL_FAIL");
    EXPECT_GT(device_bytes, 0u) << "the model was not on the device when the fault began";
    EXPECT_EQ(live_device_bytes(), 0u) << "the failed device's buffers were not all released";
    return g;
  }

  ScopedEnv env_;
  fs::path model_, cache_;
  std::string policy_;
};

class FailingCall : public Recovery, public ::testing::WithParamInterface<std::pair<const char*, int>> {};

// The criterion: a generation whose device starts failing at token 10 prints the same
// text as one on the CPU path; on the CPU path afterwards, with the device recorded as failing.
TEST_P(FailingCall, FromToken10TheRunGoesOnOnTheCpuPathWithTheSameText) {
  const auto [function, code] = GetParam();
  const Generation want = cpu_path();
  ASSERT_TRUE(want.status.ok()) << want.status.to_string();
  ASSERT_EQ(want.tokens.size(), static_cast<size_t>(kTokens));
  CapturedWarnings warnings;
  const Generation got = failing_at_token_10(function, code);
  ASSERT_TRUE(got.status.ok()) << got.status.to_string();
  EXPECT_EQ(got.tokens, want.tokens);
  EXPECT_EQ(got.text, want.text);
  EXPECT_EQ(got.next_logits, want.next_logits) << "the CPU path's cache differs from a run there from the start";
  EXPECT_EQ(got.backend, "cpu");
  EXPECT_EQ(got.stats.generated_tokens, kTokens);
  const std::string& why = got.stats.device_failure;
  // What failed, as the core ("clEnqueueReadBuffer failed: CL_..._ERROR (-14)") or the plugin
  // ("OpenCL error -5 in clEnqueueNDRangeKernel(get_rows_q8_0)") says it.
  EXPECT_NE(why.find(function), std::string::npos) << why;
  EXPECT_NE(why.find(std::to_string(code)), std::string::npos) << why;
  EXPECT_NE(why.find("prompt 11, generated " + std::to_string(kFailingToken - 1)), std::string::npos) << why;
  EXPECT_NE(why.find("is avoided from now on"), std::string::npos) << why;
  EXPECT_NE(why.find("recorded in " + cache_.string() + "/avoid-"), std::string::npos) << why;
  EXPECT_NE(warnings.text().find(why), std::string::npos) << "not logged: " << warnings.text();
  EXPECT_EQ(failure_records(), 1u);
}

INSTANTIATE_TEST_SUITE_P(EnqueueReadWrite, FailingCall,
                         ::testing::Values(std::make_pair("clEnqueueNDRangeKernel", -5),  // CL_OUT_OF_RESOURCES
                                           std::make_pair("clEnqueueReadBuffer", -14),
                                           std::make_pair("clEnqueueWriteBuffer", -4)),
                         [](const auto& info) { return std::string(info.param.first); });

// clFinish runs where the prompt spans several batches (11 tokens, batches of 8): a failure there
// moves the run before its first token.
TEST_F(Recovery, FinishFailingInThePromptMovesTheRunBeforeItsFirstToken) {
  const Generation want = cpu_path();
  auto engine = EngineCore::open(options());
  ASSERT_TRUE(engine.ok()) << engine.status().to_string();
  ScopedEnv fault{{"FAKECL_FAIL", "clFinish:0:-36"}};  // CL_INVALID_COMMAND_QUEUE
  const Generation got = generate(*engine.value());
  ASSERT_TRUE(got.status.ok()) << got.status.to_string();
  EXPECT_EQ(got.tokens, want.tokens);
  EXPECT_EQ(got.next_logits, want.next_logits);
  EXPECT_NE(got.stats.device_failure.find("prompt 11, generated 0"), std::string::npos) << got.stats.device_failure;
  EXPECT_EQ(failure_records(), 1u);
}

TEST_F(Recovery, TheFailedDeviceIsAvoidedAtTheNextStartUntilItsDriverChanges) {
  const Generation first = failing_at_token_10("clEnqueueNDRangeKernel", -5);
  ASSERT_TRUE(first.status.ok()) << first.status.to_string();
  ASSERT_EQ(failure_records(), 1u);
  {
    CapturedWarnings warnings;
    auto backend = create_backend(options());
    ASSERT_TRUE(backend.ok()) << backend.status().to_string();
    EXPECT_EQ(backend.value()->name(), "cpu");
    EXPECT_NE(warnings.text().find("failed during an earlier run"), std::string::npos) << warnings.text();
    EXPECT_NE(warnings.text().find("error -5 in clEnqueueNDRangeKernel"), std::string::npos) << warnings.text();
  }
  {
    auto engine = EngineCore::open(options());  // and the next run's text is the CPU path's again
    ASSERT_TRUE(engine.ok()) << engine.status().to_string();
    EXPECT_EQ(engine.value()->backend().name(), "cpu");
    EXPECT_EQ(generate(*engine.value()).tokens, first.tokens);
  }
  {
    auto named = create_backend(options("0"));  // the user's own choice still binds it
    ASSERT_TRUE(named.ok()) << named.status().to_string();
    EXPECT_EQ(named.value()->name().rfind("opencl:", 0), 0u);
  }
  ScopedEnv new_driver{{"FAKECL_DRIVER_VERSION", "99.1-updated"}};
  auto updated = create_backend(options());
  ASSERT_TRUE(updated.ok()) << updated.status().to_string();
  EXPECT_EQ(updated.value()->name().rfind("opencl:", 0), 0u) << "a new driver is not avoided";
}

TEST_F(Recovery, ACorruptFailureRecordCountsAsNone) {
  const Generation first = failing_at_token_10("clEnqueueNDRangeKernel", -5);
  ASSERT_TRUE(first.status.ok()) << first.status.to_string();
  ASSERT_EQ(failure_records(), 1u);
  for (const auto& e : fs::directory_iterator(cache_))
    if (e.path().filename().string().rfind("avoid-", 0) == 0) std::ofstream(e.path()) << "{\"format\": \"one\", [";
  auto backend = create_backend(options());
  ASSERT_TRUE(backend.ok()) << backend.status().to_string();
  EXPECT_EQ(backend.value()->name().rfind("opencl:", 0), 0u);
}

TEST_F(Recovery, WithTheCacheOffTheFailureIsNotRememberedAndTheRunStillGoesOn) {
  env_.set("CLPORT_CACHE_DIR", "off");
  const Generation got = failing_at_token_10("clEnqueueNDRangeKernel", -5);
  ASSERT_TRUE(got.status.ok()) << got.status.to_string();
  EXPECT_NE(got.stats.device_failure.find("is tried again at the next start: the cache is off"), std::string::npos)
      << got.stats.device_failure;
  auto backend = create_backend(options());
  ASSERT_TRUE(backend.ok());
  EXPECT_EQ(backend.value()->name().rfind("opencl:", 0), 0u);
}

// Out of device memory while the weights load, each way a driver says it.
struct LoadFault {
  const char* name;
  const char* variable;
  const char* value;
};

class OutOfMemoryAtLoad : public Recovery, public ::testing::WithParamInterface<LoadFault> {};

TEST_P(OutOfMemoryAtLoad, FallsBackToTheCpuPathWithAWarningThatNamesTheSizes) {
  const Generation want = cpu_path();
  ScopedEnv fault{{GetParam().variable, GetParam().value}};
  CapturedWarnings warnings;
  auto engine = EngineCore::open(options());
  ASSERT_TRUE(engine.ok()) << engine.status().to_string();
  EXPECT_EQ(engine.value()->backend().name(), "cpu");
  EXPECT_EQ(live_device_bytes(), 0u) << "the device's buffers were not all released";
  const std::string log = warnings.text();
  EXPECT_NE(log.find("out of device memory while loading the model"), std::string::npos) << log;
  EXPECT_NE(log.find(" bytes"), std::string::npos) << log;  // the request that failed
  EXPECT_NE(log.find("the weights are "), std::string::npos) << log;
  EXPECT_NE(log.find("MiB of global memory and a largest allocation of "), std::string::npos) << log;
  EXPECT_NE(log.find("running on the CPU"), std::string::npos) << log;
  const Generation got = generate(*engine.value());
  ASSERT_TRUE(got.status.ok()) << got.status.to_string();
  EXPECT_EQ(got.tokens, want.tokens);
  EXPECT_EQ(failure_records(), 0u) << "running out of memory says nothing about the driver";
}

INSTANTIATE_TEST_SUITE_P(
    Faults, OutOfMemoryAtLoad,
    ::testing::Values(LoadFault{"LiveBytesLimit", "FAKECL_ALLOC_FAIL_AFTER_BYTES", "524288"},
                      LoadFault{"LargestBuffer", "FAKECL_ALLOC_MAX_BYTES", "65536"},
                      LoadFault{"OutOfHostMemory", "FAKECL_FAIL", "clCreateBuffer:1+:-6"},
                      LoadFault{"LazyAllocationAtUpload", "FAKECL_FAIL", "clEnqueueWriteBuffer:2+:-4"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST_F(Recovery, OutOfMemoryOnANamedDeviceIsAnErrorThatNamesTheSizes) {
  ScopedEnv fault{{"FAKECL_ALLOC_MAX_BYTES", "65536"}};
  auto engine = EngineCore::open(options("0"));
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.status().stage(), Stage::OutOfMemory);
  const std::string& why = engine.status().message();
  EXPECT_NE(why.find("the weights are "), std::string::npos) << why;
  EXPECT_NE(why.find("--device auto would run it on the CPU path"), std::string::npos) << why;
  EXPECT_EQ(live_device_bytes(), 0u);
}

}  // namespace
}  // namespace clport::test
