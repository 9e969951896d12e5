// The CPU-first start (EngineOptions::cpu_first_start): a device never set up loads in the
// background while the CPU path generates, and the generation moves to it at a step boundary,
// through the fault-injecting OpenCL library (tests/fakecl) in front of the real driver. The
// background load is held until token 5 (EngineOptions::before_background_device_load), so the
// move happens at a known token: the tokens before it are the CPU path's, the tokens after it the
// device's own continuation of the same history, none repeated or lost.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "engine/engine_core.h"
#include "clport/tokenizer.h"
#include "model_compare.h"
#include "fault_injecting_env.h"
#include "scoped_env.h"
#include "test_dir.h"

namespace clport::test {
namespace {

namespace fs = std::filesystem;
using testing_env::ScopedEnv;

constexpr int kTokens = 16;
constexpr int kReadyAtToken = 5;

// A gate the background load waits at until the test opens it.
class Gate {
 public:
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return open_; });
  }
  void open() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false;
};

bool wait_until(const std::function<bool()>& done, std::chrono::seconds limit = std::chrono::seconds(300)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

class DeviceStart : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = write_temp_model(RandomModelSpec{}, "device_start_" + test::test_name_tag());
    cache_ = test::fresh_test_dir("clport-device-start");
    policy_ = model_.string() + ".yaml";
    write_activation_policy(policy_, /*integer=*/false);
    // No self-test: its verdict is what marks a device as set up, so every start is a first one.
    use_fault_injecting_library(env_, cache_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove(model_, ec);
    fs::remove(policy_, ec);
    fs::remove_all(cache_, ec);
  }

  EngineOptions options(bool cpu_first) const {
    EngineOptions o;
    o.model_path = model_.string();
    o.config_path = policy_;
    o.model = small_options(/*fusion=*/true);
    o.n_threads = 2;
    o.cpu_first_start = cpu_first;
    return o;
  }

  struct Run {
    Status status;
    std::vector<int32_t> tokens;
    GenerationStats stats;
  };
  Run generate(EngineCore& engine, const std::vector<int32_t>& prompt, int n, const std::function<void(int)>& after = {}) {
    Run r;
    Sampler sampler(SamplerOptions{});
    r.status = engine.generate(prompt, n, sampler,
                               [&](int32_t t) {
                                 r.tokens.push_back(t);
                                 if (after) after(static_cast<int>(r.tokens.size()));
                                 return true;
                               },
                               &r.stats);
    return r;
  }

  ScopedEnv env_;
  fs::path model_, cache_;
  std::string policy_;
};

TEST_F(DeviceStart, TheGenerationMovesToTheDeviceWhenItIsReadyWithNoTokenRepeatedOrLost) {
  Gate gate;
  EngineOptions o = options(true);
  o.before_background_device_load = [&] { gate.wait(); };
  auto engine = EngineCore::open(o);
  ASSERT_TRUE(engine.ok()) << engine.status().to_string();
  EngineCore& e = *engine.value();
  ASSERT_EQ(e.backend().name(), "cpu") << "a first start did not begin on the CPU path";
  ASSERT_EQ(e.device_start(), EngineCore::DeviceStart::Loading);
  const Run got = generate(e, compare_prompt(), kTokens, [&](int n) {
    if (n != kReadyAtToken) return;
    gate.open();
    ASSERT_TRUE(wait_until([&] { return e.device_start() != EngineCore::DeviceStart::Loading; }));
  });
  ASSERT_TRUE(got.status.ok()) << got.status.to_string();
  EXPECT_EQ(e.device_start(), EngineCore::DeviceStart::Moved);
  EXPECT_EQ(e.backend().name().rfind("opencl:", 0), 0u) << e.backend().description();
  ASSERT_EQ(got.tokens.size(), static_cast<size_t>(kTokens));
  EXPECT_EQ(got.stats.generated_tokens, kTokens);
  EXPECT_EQ(got.stats.tokens_before_device_move, kReadyAtToken);
  EXPECT_NE(got.stats.device_move.find("first 5 generated tokens came from the CPU path"), std::string::npos)
      << got.stats.device_move;

  // Before the move: the CPU path's tokens.
  auto cpu = EngineCore::open([&] {
    EngineOptions c = options(false);
    c.device = "cpu";
    c.cpu_float_activations = true;
    return c;
  }());
  ASSERT_TRUE(cpu.ok()) << cpu.status().to_string();
  const Run on_cpu = generate(*cpu.value(), compare_prompt(), kReadyAtToken);
  ASSERT_TRUE(on_cpu.status.ok());
  EXPECT_EQ(std::vector<int32_t>(got.tokens.begin(), got.tokens.begin() + kReadyAtToken), on_cpu.tokens);
  // After it: the device's continuation of the same history.
  auto device = EngineCore::open(options(false));
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  ASSERT_EQ(device.value()->backend().name().rfind("opencl:", 0), 0u);
  std::vector<int32_t> history = compare_prompt();
  history.insert(history.end(), got.tokens.begin(), got.tokens.begin() + kReadyAtToken);
  const Run on_device = generate(*device.value(), history, kTokens - kReadyAtToken);
  ASSERT_TRUE(on_device.status.ok());
  EXPECT_EQ(std::vector<int32_t>(got.tokens.begin() + kReadyAtToken, got.tokens.end()), on_device.tokens);
}

TEST_F(DeviceStart, ADeviceReadyBeforeThePromptRunsItAll) {
  auto engine = EngineCore::open(options(true));
  ASSERT_TRUE(engine.ok()) << engine.status().to_string();
  ASSERT_TRUE(engine.value()->wait_for_device().ok());
  EXPECT_EQ(engine.value()->device_start(), EngineCore::DeviceStart::Moved);
  const Run got = generate(*engine.value(), compare_prompt(), 4);
  ASSERT_TRUE(got.status.ok()) << got.status.to_string();
  EXPECT_EQ(got.tokens.size(), 4u);
  EXPECT_EQ(got.stats.tokens_before_device_move, -1);  // it moved before this generation
}

TEST_F(DeviceStart, ADeviceThatFailsToLoadLeavesTheWorkOnTheCpuPath) {
  // Every buffer the device is asked for fails: the background load fails, the CPU path goes on.
  env_.set("FAKECL_ALLOC_FAIL_AFTER_BYTES", "0");
  auto engine = EngineCore::open(options(true));
  ASSERT_TRUE(engine.ok()) << engine.status().to_string();
  EngineCore& e = *engine.value();
  const Run got = generate(e, compare_prompt(), kTokens, [&](int n) {
    if (n == 2) {
      ASSERT_TRUE(wait_until([&] { return e.device_start() != EngineCore::DeviceStart::Loading; }));
    }
  });
  ASSERT_TRUE(got.status.ok()) << got.status.to_string();
  EXPECT_EQ(got.tokens.size(), static_cast<size_t>(kTokens));
  EXPECT_EQ(e.device_start(), EngineCore::DeviceStart::Failed);
  EXPECT_EQ(e.backend().name(), "cpu");
  EXPECT_TRUE(got.stats.device_move.empty());
}

TEST_F(DeviceStart, AnEngineGoneBeforeTheDeviceIsReadyLeavesTheLoadToFinish) {
  Gate gate;
  EngineOptions o = options(true);
  o.before_background_device_load = [&] { gate.wait(); };
  {
    auto engine = EngineCore::open(o);
    ASSERT_TRUE(engine.ok()) << engine.status().to_string();
  }
  EXPECT_EQ(detached_device_loads(), 1);
  gate.open();
  EXPECT_TRUE(wait_until([] { return detached_device_loads() == 0; }));
}

TEST_F(DeviceStart, ThePolicyCanAskToWait) {
  EngineOptions o = options(true);
  o.config_texts.push_back("device_start: wait\n");
  auto engine = EngineCore::open(o);
  ASSERT_TRUE(engine.ok()) << engine.status().to_string();
  EXPECT_EQ(engine.value()->backend().name().rfind("opencl:", 0), 0u);
  EXPECT_EQ(engine.value()->device_start(), EngineCore::DeviceStart::None);
}

TEST_F(DeviceStart, WaitingForTheDeviceIsTheDefault) {
  auto engine = EngineCore::open(options(false));
  ASSERT_TRUE(engine.ok()) << engine.status().to_string();
  EXPECT_EQ(engine.value()->backend().name().rfind("opencl:", 0), 0u);
  EXPECT_EQ(engine.value()->device_start(), EngineCore::DeviceStart::None);
}

}  // namespace
}  // namespace clport::test
