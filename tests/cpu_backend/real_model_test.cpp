// The real SmolLM2-135M-Instruct (Q4_1) on the fast CPU backend, greedy, first 32 tokens of two
// prompts, against the CPU reference:
//  - with float activations (precision fp32) the tokens must be identical;
//  - with 8-bit activations they must be identical, or the first divergence must be a near-tie
//    in the reference's logits, the fast logits tracking the reference's up to there
//    (tests/common/greedy_compare.h).
// The model comes from the e2e fetch fixture (CLPORT_TEST_MODEL); without it the test fails, it
// is not skipped.
#include <gtest/gtest.h>

#include <cstdlib>

#include "engine/engine_core.h"
#include "gguf/gguf.h"
#include "greedy_compare.h"

namespace clport {
namespace {

constexpr int kTokens = 32;

TEST(FastCpuRealModel, GreedyTokensMatchTheReference) {
  const char* env = std::getenv("CLPORT_TEST_MODEL");
  ASSERT_NE(env, nullptr) << "CLPORT_TEST_MODEL is not set (the fetch fixture did not run?)";
  auto file = GgufFile::open(env);
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  auto tokenizer = Tokenizer::from_gguf(*file.value());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().to_string();

  auto reference = make_cpu_backend(0);
  auto fast = make_fast_cpu_backend(0);
  FastCpuOptions fp32_options;
  fp32_options.float_activations = true;
  auto fast_fp32 = make_fast_cpu_backend(fp32_options);
  ModelOptions lo;
  lo.n_ctx = 128;
  auto ref_model = LlamaModel::load(file.value(), *reference, lo);
  ASSERT_TRUE(ref_model.ok()) << ref_model.status().to_string();
  auto fast_model = LlamaModel::load(file.value(), *fast, lo);
  ASSERT_TRUE(fast_model.ok()) << fast_model.status().to_string();
  auto fp32_model = LlamaModel::load(file.value(), *fast_fp32, lo);
  ASSERT_TRUE(fp32_model.ok()) << fp32_model.status().to_string();

  const char* prompts[] = {
      "The capital of France is",
      "<|im_start|>user\nWrite a haiku about rain.<|im_end|>\n<|im_start|>assistant\n"};
  for (const char* prompt : prompts) {
    auto ids = tokenizer.value()->encode(prompt, tokenizer.value()->add_bos_default(), true);
    ASSERT_TRUE(ids.ok());
    const test::Greedy want = test::greedy_with_logits(*ref_model.value(), ids.value(), kTokens);
    ASSERT_EQ(want.tokens.size(), static_cast<size_t>(kTokens)) << want.error;

    const test::Greedy fp32 = test::greedy_with_logits(*fp32_model.value(), ids.value(), kTokens);
    EXPECT_EQ(fp32.tokens, want.tokens) << "precision fp32, prompt: " << prompt;

    const test::Greedy got = test::greedy_with_logits(*fast_model.value(), ids.value(), kTokens);
    const test::NearTieVerdict v = test::identical_or_near_tie(want, got);
    std::printf("prompt \"%s\": %s\n", prompt, v.detail.c_str());
    EXPECT_TRUE(v.ok) << v.detail << "\nprompt: " << prompt
                      << "\nreference: " << tokenizer.value()->decode(want.tokens)
                      << "\nfast:      " << tokenizer.value()->decode(got.tokens);
  }
}

}  // namespace
}  // namespace clport
