// A real model file (SmolLM2-135M-Instruct Q4_1; Gemma 3 270M Q4_K_M): greedy generation on the
// OpenCL device must match the CPU path token for token, for a plain prompt and a chat turn in
// the model's own format. The model is fetched by scripts/fetch-model.sh or fetch-gemma3.sh
// (ctest fixtures) and named by CLPORT_TEST_MODEL; without it the test fails (it is not skipped).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "clport/chat_template.h"
#include "clport/engine.h"
#include "clport/gguf.h"

namespace clport {
namespace {

std::string model_path() {
  const char* env = std::getenv("CLPORT_TEST_MODEL");
  return env ? env : "";
}

std::vector<int32_t> greedy(LlamaModel& model, std::vector<int32_t> tokens, int n) {
  std::vector<float> logits;
  std::vector<int32_t> out;
  uint32_t n_past = 0;
  for (int i = 0; i < n; ++i) {
    if (!model.forward(tokens, n_past, false, logits).ok()) return out;
    n_past += static_cast<uint32_t>(tokens.size());
    const int32_t next =
        static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    out.push_back(next);
    tokens = {next};
  }
  return out;
}

TEST(RealModel, GreedyTokensOnDeviceMatchCpuFor64Tokens) {
  const std::string path = model_path();
  ASSERT_FALSE(path.empty()) << "CLPORT_TEST_MODEL is not set (the fetch fixture did not run?)";
  auto file = GgufFile::open(path);
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  auto tokenizer = Tokenizer::from_gguf(*file.value());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().to_string();

  auto device = create_backend(EngineOptions{});
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  ASSERT_EQ(device.value()->name().rfind("opencl:", 0), 0u) << device.value()->description();
  auto cpu = make_cpu_backend();
  LlamaOptions lo;
  lo.n_ctx = 256;
  auto dev_model = LlamaModel::load(file.value(), *device.value(), lo);
  ASSERT_TRUE(dev_model.ok()) << dev_model.status().to_string();
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
    const auto want = greedy(*cpu_model.value(), ids.value(), 64);
    const auto got = greedy(*dev_model.value(), ids.value(), 64);
    ASSERT_EQ(want.size(), 64u);
    EXPECT_EQ(got, want) << "prompt: " << prompt << "\ncpu:    " << tokenizer.value()->decode(want)
                         << "\ndevice: " << tokenizer.value()->decode(got);
  }
}

}  // namespace
}  // namespace clport
