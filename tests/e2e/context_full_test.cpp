// A context that fills up is an error that says how many tokens fit and what raises it, unless
// the bounded generation fits; `n_ctx = 0` is the model's own context length. On the CPU backend
// (the logic is the engine's, the same on every backend) with a small random model.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "engine/engine_core.h"
#include "random_model.h"

namespace clport {
namespace {

class ContextFull : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    path_ = (std::filesystem::temp_directory_path() /
             ("clport_context_full_" + std::to_string(::getpid()) + ".gguf"))
                .string();
    test::RandomModelSpec spec;
    spec.n_layer = 1;
    spec.n_ctx = kModelContext;
    ASSERT_TRUE(test::write_random_llama(path_, spec).ok());
  }
  static void TearDownTestSuite() { std::filesystem::remove(path_); }

  static std::unique_ptr<EngineCore> open(uint32_t n_ctx) {
    EngineOptions options;
    options.model_path = path_;
    options.device = "cpu";
    options.model.n_ctx = n_ctx;
    auto engine = EngineCore::open(options);
    EXPECT_TRUE(engine.ok()) << engine.status().to_string();
    return engine.ok() ? std::move(engine.value()) : nullptr;
  }

  // Greedy generation of n_predict tokens after `prompt_tokens` byte tokens; counts the tokens
  // handed to the callback.
  static Status generate(EngineCore& e, size_t prompt_tokens, int n_predict, int* streamed,
                         GenerationStats* stats) {
    std::vector<int32_t> prompt;
    for (size_t i = 0; i < prompt_tokens; ++i) prompt.push_back(static_cast<int32_t>(10 + i % 200));
    Sampler sampler(SamplerOptions{});
    *streamed = 0;
    return e.generate(prompt, n_predict, sampler, [&](int32_t) { return ++*streamed > 0; }, stats);
  }

  static constexpr uint32_t kModelContext = 64;
  static std::string path_;
};
std::string ContextFull::path_;

TEST_F(ContextFull, BoundedGenerationThatFitsSucceeds) {
  auto e = open(8);
  ASSERT_NE(e, nullptr);
  int streamed = 0;
  GenerationStats stats;
  // 4 prompt tokens + 5 generated: the 5th is never fed back, so 8 positions suffice.
  const Status st = generate(*e, 4, 5, &streamed, &stats);
  EXPECT_TRUE(st.ok()) << st.to_string();
  EXPECT_EQ(stats.generated_tokens, 5);
  EXPECT_EQ(streamed, 5);
}

TEST_F(ContextFull, OneTokenTooManySaysHowManyFitAndWhatRaisesIt) {
  auto e = open(8);
  ASSERT_NE(e, nullptr);
  int streamed = 0;
  GenerationStats stats;
  const Status st = generate(*e, 4, 6, &streamed, &stats);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.stage(), Stage::InvalidArgument);
  const std::string& m = st.message();
  EXPECT_NE(m.find("context full after 5 of 6 tokens"), std::string::npos) << m;
  EXPECT_NE(m.find("the context holds 8 tokens (prompt 4, generated 5) and 9 are needed"),
            std::string::npos) << m;
  EXPECT_NE(m.find("raise it with --ctx 9"), std::string::npos) << m;
  EXPECT_NE(m.find("own context length is 64"), std::string::npos) << m;
  // What was generated before the context filled was streamed and counted.
  EXPECT_EQ(streamed, 5);
  EXPECT_EQ(stats.generated_tokens, 5);
}

TEST_F(ContextFull, PromptLongerThanTheContextIsRefusedBeforeAnyWork) {
  auto e = open(8);
  ASSERT_NE(e, nullptr);
  int streamed = 0;
  GenerationStats stats;
  const Status st = generate(*e, 9, 1, &streamed, &stats);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("context full: the prompt has 9 tokens but the context holds 8; "
                              "raise it with --ctx 9"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(streamed, 0);
}

TEST_F(ContextFull, ZeroMeansTheModelsOwnContextLengthAndItsLimitIsNamed) {
  auto e = open(0);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->model().n_ctx(), kModelContext);
  int streamed = 0;
  GenerationStats stats;
  // 60 + 10 - 1 = 69 positions: past what --ctx can give this model.
  const Status st = generate(*e, 60, 10, &streamed, &stats);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("context full after 5 of 10 tokens"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("the model's own context length is 64, the most --ctx can give: "
                              "shorten the prompt or ask for fewer tokens (-n)"),
            std::string::npos)
      << st.message();
}

TEST_F(ContextFull, MoreThanTheModelsContextIsCappedAtIt) {
  auto e = open(100000);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->model().n_ctx(), kModelContext);
}

TEST_F(ContextFull, NegativeTokenCountIsRefused) {
  auto e = open(8);
  ASSERT_NE(e, nullptr);
  int streamed = 0;
  GenerationStats stats;
  const Status st = generate(*e, 2, -5, &streamed, &stats);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.stage(), Stage::InvalidArgument);
  EXPECT_NE(st.message().find("n_predict is -5"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace clport
