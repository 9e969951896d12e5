// A real model file (SmolLM2-135M-Instruct Q4_1; Gemma 3 270M Q4_K_M): greedy generation on the
// OpenCL device against the CPU reference, for a plain prompt and a chat turn in the model's own
// format, on both activation paths:
//  - float activations (policy `precision: fp32`): token for token the reference's, 64 tokens;
//  - the device's default (8-bit activations where the plugin has an integer GEMV, e.g. the
//    generic plugin on a CPU device): identical, or the first divergence a near-tie in the
//    reference's logits with the logits tracking the reference's up to there (greedy_compare.h).
// The model is fetched by scripts/fetch-model.sh or fetch-gemma3.sh (ctest fixtures) and named by
// CLPORT_TEST_MODEL; without it the test fails (it is not skipped).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "clport/chat_template.h"
#include "engine/engine_core.h"
#include "gguf/gguf.h"
#include "greedy_compare.h"

namespace clport {
namespace {

// Tokens generated per prompt: 64, or CLPORT_TEST_TOKENS (1-256).
int token_count() {
  const char* env = std::getenv("CLPORT_TEST_TOKENS");
  if (env == nullptr) return 64;
  const int n = std::atoi(env);
  return n >= 1 && n <= 256 ? n : -1;
}

std::string model_path() {
  const char* env = std::getenv("CLPORT_TEST_MODEL");
  return env ? env : "";
}

TEST(RealModel, GreedyTokensOnDeviceMatchCpu) {
  const int kTokens = token_count();
  ASSERT_GT(kTokens, 0) << "CLPORT_TEST_TOKENS must be a number from 1 to 256";
  const std::string path = model_path();
  ASSERT_FALSE(path.empty()) << "CLPORT_TEST_MODEL is not set (the fetch fixture did not run?)";
  auto file = GgufFile::open(path);
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  auto tokenizer = Tokenizer::from_gguf(*file.value());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().to_string();

  const auto fp32_policy = std::filesystem::temp_directory_path() /
                           ("clport_real_fp32_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(fp32_policy) << "version: 1\nprecision: fp32\n";
  EngineOptions fp32_options;
  fp32_options.config_path = fp32_policy.string();
  auto device = create_backend(EngineOptions{});
  auto device_fp32 = create_backend(fp32_options);
  std::filesystem::remove(fp32_policy);
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  ASSERT_TRUE(device_fp32.ok()) << device_fp32.status().to_string();
  ASSERT_EQ(device.value()->name().rfind("opencl:", 0), 0u) << device.value()->description();
  ASSERT_EQ(device_fp32.value()->name().rfind("opencl:", 0), 0u) << device_fp32.value()->description();
  auto cpu = make_cpu_backend();
  ModelOptions lo;
  lo.n_ctx = 256;
  auto dev_model = LlamaModel::load(file.value(), *device.value(), lo);
  ASSERT_TRUE(dev_model.ok()) << dev_model.status().to_string();
  auto fp32_model = LlamaModel::load(file.value(), *device_fp32.value(), lo);
  ASSERT_TRUE(fp32_model.ok()) << fp32_model.status().to_string();
  auto cpu_model = LlamaModel::load(file.value(), *cpu, lo);
  ASSERT_TRUE(cpu_model.ok()) << cpu_model.status().to_string();

  const std::string arch = cpu_model.value()->hparams().arch;
  // The file's chat format; the Gemma 3 270M file carries no tokenizer.chat_template, so its
  // family is named.
  auto choice = choose_chat_template(*file.value(), arch == "gemma3" ? "gemma" : "");
  ASSERT_TRUE(choice.ok()) << choice.status().to_string();
  auto chat = format_chat(choice->family, {{"user", "Write a haiku about rain."}}, true, "");
  ASSERT_TRUE(chat.ok()) << chat.status().to_string();
  const std::string prompts[] = {"The capital of France is", chat.value()};
  for (const std::string& prompt : prompts) {
    auto ids = tokenizer.value()->encode(prompt, tokenizer.value()->add_bos_default(), true);
    ASSERT_TRUE(ids.ok());
    const test::Greedy want = test::greedy_with_logits(*cpu_model.value(), ids.value(), kTokens);
    ASSERT_EQ(want.tokens.size(), static_cast<size_t>(kTokens)) << want.error;
    const test::Greedy fp32 = test::greedy_with_logits(*fp32_model.value(), ids.value(), kTokens);
    EXPECT_EQ(fp32.tokens, want.tokens) << "precision fp32, prompt: " << prompt
                                        << "\ncpu:    " << tokenizer.value()->decode(want.tokens)
                                        << "\ndevice: " << tokenizer.value()->decode(fp32.tokens);
    const test::Greedy got = test::greedy_with_logits(*dev_model.value(), ids.value(), kTokens);
    const test::NearTieVerdict v = test::identical_or_near_tie(want, got);
    std::printf("default path, prompt \"%s\": %s\n", prompt.c_str(), v.detail.c_str());
    EXPECT_TRUE(v.ok) << v.detail << "\nprompt: " << prompt << "\ncpu:    " << tokenizer.value()->decode(want.tokens)
                      << "\ndevice: " << tokenizer.value()->decode(got.tokens);
  }
}

}  // namespace
}  // namespace clport
