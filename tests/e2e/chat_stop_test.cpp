// Generation ends at a chat family's end-of-turn token: EngineCore::generate's stop tokens, on the
// CPU backend with a small random model whose vocabulary has Gemma's markers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "clport/chat_template.h"
#include "engine/engine_core.h"
#include "random_model.h"

namespace clport {
namespace {

class ChatStop : public testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("clport_chat_stop_" + std::to_string(::getpid()) + ".gguf"))
                .string();
    test::RandomModelSpec spec;
    spec.n_layer = 1;
    spec.chat_template = "gemma";
    ASSERT_TRUE(test::write_random_llama(path_, spec).ok());
    EngineOptions options;
    options.model_path = path_;
    options.device = "cpu";
    auto engine = EngineCore::open(options);
    ASSERT_TRUE(engine.ok()) << engine.status().to_string();
    engine_ = std::move(engine.value());
  }
  void TearDown() override {
    engine_.reset();
    std::filesystem::remove(path_);
  }

  // Greedy tokens after a fixed prompt, stopping at `stop`.
  std::vector<int32_t> generate(int n_predict, const std::vector<int32_t>& stop, GenerationStats* stats) {
    Sampler sampler(SamplerOptions{});
    std::vector<int32_t> streamed;
    const Status st = engine_->generate({1, 40, 41, 42}, n_predict, sampler,
                                        [&](int32_t t) {
                                          streamed.push_back(t);
                                          return true;
                                        },
                                        stats, stop);
    EXPECT_TRUE(st.ok()) << st.to_string();
    return streamed;
  }

  std::string path_;
  std::unique_ptr<EngineCore> engine_;
};

TEST_F(ChatStop, GenerationEndsAtAStopToken) {
  GenerationStats free_run;
  const auto tokens = generate(6, {}, &free_run);
  ASSERT_GE(tokens.size(), 3u);
  // The third greedy token as the end of turn: two tokens stream, the third ends the turn.
  GenerationStats stopped;
  const auto until_stop = generate(6, {tokens[2]}, &stopped);
  const size_t first = static_cast<size_t>(
      std::find(tokens.begin(), tokens.end(), tokens[2]) - tokens.begin());
  EXPECT_EQ(until_stop, std::vector<int32_t>(tokens.begin(), tokens.begin() + first));
  EXPECT_EQ(stopped.generated_tokens, static_cast<int>(first) + 1);
}

TEST_F(ChatStop, GemmaFileStopsAtEndOfTurn) {
  auto choice = choose_chat_template(engine_->file(), "");
  ASSERT_TRUE(choice.ok()) << choice.status().to_string();
  EXPECT_EQ(choice->family, ChatFamily::Gemma);
  const auto stop = chat_stop_tokens(choice->family, engine_->tokenizer());
  EXPECT_EQ(stop, std::vector<int32_t>{engine_->tokenizer().find_token("<end_of_turn>").value()});
}

}  // namespace
}  // namespace clport
