// Shared by the random-model e2e tests of each architecture family (and greedy decoding by the
// vendor identities' tests): the prompt, the load options,
// greedy decoding, and the two comparisons every family runs — the device path against the CPU
// reference (prompt logits, four decode steps, eight greedy tokens) and the fast CPU backend
// against the reference.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/engine_core.h"
#include "gguf/gguf.h"
#include "common/nmse.h"
#include "activation_policy.h"
#include "random_model.h"

namespace clport::test {

// An 11-token prompt: with n_batch 8 it spans two batches.
inline const std::vector<int32_t>& compare_prompt() {
  static const std::vector<int32_t> prompt{1, 260, 70, 261, 100, 262, 33, 263, 264, 120, 299};
  return prompt;
}

inline ModelOptions small_options(bool fusion, uint32_t n_ctx = 64) {
  ModelOptions lo;
  lo.n_ctx = n_ctx;
  lo.n_batch = 8;
  lo.fusion = fusion;
  return lo;
}

// Writes `spec` to a temporary file named after `tag` (the caller removes it).
inline std::filesystem::path write_temp_model(const RandomModelSpec& spec, const std::string& tag) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("clport_" + spec.arch + "_" + tag + "_" + std::to_string(::getpid()) + ".gguf");
  const Status st = write_random_llama(path.string(), spec);
  EXPECT_TRUE(st.ok()) << st.to_string();
  return path;
}

// n greedy tokens after `prompt`, from position 0; the first step's logits into first_logits when
// given.
inline std::vector<int32_t> greedy(LlamaModel& model, std::vector<int32_t> prompt, int n,
                                   std::vector<float>* first_logits = nullptr) {
  std::vector<int32_t> out;
  std::vector<float> logits;
  uint32_t n_past = 0;
  for (int i = 0; i < n; ++i) {
    if (!model.forward(prompt, n_past, false, logits).ok()) return out;
    if (i == 0 && first_logits != nullptr) *first_logits = logits;
    n_past += static_cast<uint32_t>(prompt.size());
    const auto best = static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    out.push_back(best);
    prompt = {best};
  }
  return out;
}

// n greedy tokens after the comparison prompt.
inline std::vector<int32_t> greedy(LlamaModel& model, int n) { return greedy(model, compare_prompt(), n); }

struct DeviceComparison {
  bool fusion = true;
  bool integer = false;  // 8-bit activations (generic int_dot: on) against the rounding reference
  uint32_t n_ctx = 64;
  std::function<void(const LlamaHParams&)> check_hparams;  // optional, on the CPU model's
};

// The model at `path` on the best OpenCL device and on the CPU reference: logits within NMSE 1e-6
// (5e-4 on 8-bit activations), fused nodes in the decode plan when fusion is on, greedy tokens equal.
inline void expect_device_matches_cpu(const std::filesystem::path& path, const DeviceComparison& c) {
  auto file = GgufFile::open(path.string());
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  EngineOptions options;
  const std::string policy = path.string() + ".yaml";
  write_activation_policy(policy, c.integer);
  options.config_path = policy;
  auto device = create_backend(options);
  std::filesystem::remove(policy);
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  ASSERT_EQ(device.value()->name().rfind("opencl:", 0), 0u)
      << "no OpenCL device backend: " << device.value()->description();
  auto cpu = make_cpu_backend(0, c.integer);
  auto dev_model = LlamaModel::load(file.value(), *device.value(), small_options(c.fusion, c.n_ctx));
  ASSERT_TRUE(dev_model.ok()) << dev_model.status().to_string();
  auto cpu_model = LlamaModel::load(file.value(), *cpu, small_options(c.fusion, c.n_ctx));
  ASSERT_TRUE(cpu_model.ok()) << cpu_model.status().to_string();
  if (c.check_hparams) c.check_hparams(cpu_model.value()->hparams());

  std::vector<float> got, want;
  ASSERT_TRUE(dev_model.value()->forward(compare_prompt(), 0, true, got).ok());
  ASSERT_TRUE(cpu_model.value()->forward(compare_prompt(), 0, true, want).ok());
  ASSERT_EQ(got.size(), want.size());
  const double bound = c.integer ? kIntegerPathLogitNmse : 1e-6;
  EXPECT_LT(nmse(want.data(), got.data(), want.size()), bound) << "prompt logits";
  uint32_t n_past = static_cast<uint32_t>(compare_prompt().size());
  for (int32_t token : {5, 280, 17, 265}) {
    ASSERT_TRUE(dev_model.value()->forward({token}, n_past, false, got).ok());
    ASSERT_TRUE(cpu_model.value()->forward({token}, n_past, false, want).ok());
    EXPECT_LT(nmse(want.data(), got.data(), want.size()), bound) << "decode step at " << n_past;
    ++n_past;
  }
  if (c.fusion) {
    EXPECT_GT(dev_model.value()->decode_plan_summary().fused_nodes, 0);
  }
  EXPECT_EQ(greedy(*dev_model.value(), 8), greedy(*cpu_model.value(), 8));
}

// The fast CPU backend against the reference: it quantizes activations to 8-bit blocks for its
// mat-muls (DESIGN.md: within NMSE 5e-4 of the exact reference per mat-mul), so the logits bound
// is 5e-3; the greedy tokens must match.
inline void expect_fast_cpu_matches_reference(const std::filesystem::path& path) {
  auto file = GgufFile::open(path.string());
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  auto ref = make_cpu_backend();
  auto fast = make_fast_cpu_backend(2);
  auto ref_model = LlamaModel::load(file.value(), *ref, small_options(true));
  ASSERT_TRUE(ref_model.ok()) << ref_model.status().to_string();
  auto fast_model = LlamaModel::load(file.value(), *fast, small_options(true));
  ASSERT_TRUE(fast_model.ok()) << fast_model.status().to_string();
  std::vector<float> got, want;
  ASSERT_TRUE(fast_model.value()->forward(compare_prompt(), 0, true, got).ok());
  ASSERT_TRUE(ref_model.value()->forward(compare_prompt(), 0, true, want).ok());
  EXPECT_LT(nmse(want.data(), got.data(), want.size()), 5e-3);
  EXPECT_EQ(greedy(*fast_model.value(), 8), greedy(*ref_model.value(), 8));
}

}  // namespace clport::test
