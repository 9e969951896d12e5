// The real SmolLM2-135M-Instruct (Q4_1) on the fast CPU backend, greedy, first 32 tokens of two
// prompts, against the CPU reference:
//  - with float activations (precision fp32) the tokens must be identical;
//  - with 8-bit activations they must be identical, or the first divergence must be a near-tie:
//    the reference's logit for the token the fast backend picked is within kNearTie of the
//    reference's best; and up to that step the fast logits must track the reference's (NMSE
//    below kLogitNmse).
// The model comes from the e2e fetch fixture (CLPORT_TEST_MODEL); without it the test fails, it
// is not skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "clport/engine.h"
#include "clport/gguf.h"
#include "clport/nmse.h"

namespace clport {
namespace {

constexpr int kTokens = 32;
// Logit difference of a near-tie: e^0.25 = 1.28, the two tokens' probabilities within 28%.
constexpr float kNearTie = 0.25f;
// With 8-bit activations the logits of these prompts were 3e-3 .. 1.8e-2 (NMSE) from the
// reference's, varying between kernel versions that all agree with the scalar reference to 1e-13
// (summation order differs between them); see measurements/README.md. A wrong kernel gives logits
// unrelated to the reference's, NMSE near 1.
constexpr double kLogitNmse = 5e-2;

struct Greedy {
  std::vector<int32_t> tokens;
  std::vector<std::vector<float>> logits;  // before each token was chosen
};

Greedy greedy(LlamaModel& model, std::vector<int32_t> tokens, int n) {
  Greedy out;
  std::vector<float> logits;
  uint32_t n_past = 0;
  for (int i = 0; i < n; ++i) {
    const Status st = model.forward(tokens, n_past, false, logits);
    EXPECT_TRUE(st.ok()) << st.to_string();
    if (!st.ok()) return out;
    n_past += static_cast<uint32_t>(tokens.size());
    const auto next =
        static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    out.tokens.push_back(next);
    out.logits.push_back(logits);
    tokens = {next};
  }
  return out;
}

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
  LlamaOptions lo;
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
    const Greedy want = greedy(*ref_model.value(), ids.value(), kTokens);
    ASSERT_EQ(want.tokens.size(), static_cast<size_t>(kTokens));

    const Greedy fp32 = greedy(*fp32_model.value(), ids.value(), kTokens);
    EXPECT_EQ(fp32.tokens, want.tokens) << "precision fp32, prompt: " << prompt;

    const Greedy got = greedy(*fast_model.value(), ids.value(), kTokens);
    ASSERT_EQ(got.tokens.size(), static_cast<size_t>(kTokens));
    const auto diverge = std::mismatch(want.tokens.begin(), want.tokens.end(), got.tokens.begin());
    const auto same = static_cast<size_t>(diverge.first - want.tokens.begin());
    // Steps 0 .. same saw the same tokens on both backends, so their logits are comparable.
    double worst_nmse = 0.0;
    for (size_t i = 0; i <= std::min(same, want.tokens.size() - 1); ++i) {
      worst_nmse = std::max(
          worst_nmse, nmse(want.logits[i].data(), got.logits[i].data(), want.logits[i].size()));
    }
    EXPECT_LT(worst_nmse, kLogitNmse) << "prompt: " << prompt;
    if (same == want.tokens.size()) {
      std::printf("prompt \"%s\": %d tokens identical, worst logit NMSE %.2e\n", prompt, kTokens,
                  worst_nmse);
      continue;
    }
    const auto& ref_logits = want.logits[same];
    const int32_t ref_token = *diverge.first, fast_token = *diverge.second;
    const float gap =
        ref_logits[static_cast<size_t>(ref_token)] - ref_logits[static_cast<size_t>(fast_token)];
    std::printf(
        "prompt \"%s\": first divergence at token %zu (reference %d, fast %d), logit gap "
        "in the reference %.4f, worst logit NMSE up to there %.2e\n",
        prompt, same, ref_token, fast_token, gap, worst_nmse);
    EXPECT_LT(gap, kNearTie) << "not a near-tie; prompt: " << prompt
                             << "\nreference: " << tokenizer.value()->decode(want.tokens)
                             << "\nfast:      " << tokenizer.value()->decode(got.tokens);
  }
}

}  // namespace
}  // namespace clport
