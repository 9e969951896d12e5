// A conversation kept in the KV cache (EngineCore::generate_reusing_cache, rewind, save_state,
// load_state) on small random models: a turn that reuses the cache writes what a run from zero
// writes, a saved state continues in another engine as the uninterrupted one does, and a state
// file for another model, other KV types, or a damaged one is refused without touching the cache.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "engine/engine_core.h"
#include "clport/sampler.h"
#include "random_model.h"

namespace clport {
namespace {

class Conversation : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("clport_conversation_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    model_ = (dir_ / "model.gguf").string();
    test::RandomModelSpec spec;
    ASSERT_TRUE(test::write_random_llama(model_, spec).ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<EngineCore> open(const std::string& model, KvCacheType kv = KvCacheType::F16) const {
    EngineOptions options;
    options.model_path = model;
    options.device = GetParam();
    options.model.n_ctx = 128;
    options.model.kv_type_k = options.model.kv_type_v = kv;
    options.kv_types_set = true;
    auto engine = EngineCore::open(options);
    EXPECT_TRUE(engine.ok()) << engine.status().to_string();
    return engine.ok() ? std::move(engine.value()) : nullptr;
  }

  // Greedy tokens for `prompt`, from the cache or from zero.
  static std::vector<int32_t> turn(EngineCore& engine, const std::vector<int32_t>& prompt, bool reuse,
                                   GenerationStats* stats = nullptr) {
    Sampler greedy(SamplerOptions{});
    std::vector<int32_t> out;
    auto keep = [&](int32_t t) {
      out.push_back(t);
      return true;
    };
    const Status s = reuse ? engine.generate_reusing_cache(prompt, 6, greedy, keep, stats)
                           : engine.generate(prompt, 6, greedy, keep, stats);
    EXPECT_TRUE(s.ok()) << s.to_string();
    return out;
  }

  static std::vector<int32_t> joined(std::vector<int32_t> a, const std::vector<int32_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  }

  std::filesystem::path dir_;
  std::string model_;
  const std::vector<int32_t> first_{1, 40, 41, 42, 43}, second_{50, 51, 52};
};

TEST_P(Conversation, ASecondTurnEvaluatesOnlyItsNewTokensAndWritesWhatARunFromZeroWrites) {
  auto engine = open(model_);
  ASSERT_NE(engine, nullptr);
  const auto reply = turn(*engine, first_, false);
  ASSERT_EQ(reply.size(), 6u) << "the random model wrote an end-of-generation token early";
  // The cache holds the prompt and the five replies fed back (the sixth was never evaluated).
  EXPECT_EQ(engine->cached_tokens(), joined(first_, {reply.begin(), reply.end() - 1}));

  const auto conversation = joined(joined(first_, reply), second_);
  GenerationStats reused;
  const auto continued = turn(*engine, conversation, true, &reused);
  EXPECT_EQ(reused.prompt_tokens, static_cast<int>(conversation.size()));
  EXPECT_EQ(reused.cached_tokens, static_cast<int>(first_.size() + reply.size() - 1));

  auto fresh = open(model_);
  ASSERT_NE(fresh, nullptr);
  GenerationStats from_zero;
  EXPECT_EQ(turn(*fresh, conversation, false, &from_zero), continued);
  EXPECT_EQ(from_zero.cached_tokens, 0);

  // The same prompt again: everything is cached but its last token, evaluated for its logits.
  GenerationStats again;
  EXPECT_EQ(turn(*engine, conversation, true, &again), continued);
  EXPECT_EQ(again.cached_tokens, static_cast<int>(conversation.size()) - 1);
}

TEST_P(Conversation, RewindDropsTheLastTokensAndTheNextTurnEvaluatesFromThere) {
  auto engine = open(model_);
  ASSERT_NE(engine, nullptr);
  const auto reply = turn(*engine, first_, false);
  const size_t held = engine->cached_tokens().size();
  EXPECT_EQ(engine->rewind(held + 1).stage(), Stage::InvalidArgument);
  EXPECT_EQ(engine->cached_tokens().size(), held) << "a refused rewind changes nothing";
  ASSERT_TRUE(engine->rewind(held - first_.size()).ok());
  EXPECT_EQ(engine->cached_tokens(), first_);
  // Regenerating the reply: only the prompt's last token is evaluated again, the same reply comes.
  GenerationStats stats;
  EXPECT_EQ(turn(*engine, first_, true, &stats), reply);
  EXPECT_EQ(stats.cached_tokens, static_cast<int>(first_.size()) - 1);
}

TEST_P(Conversation, ASavedStateContinuesInAnotherEngineAsTheUninterruptedOne) {
  const std::string state = (dir_ / "turn1.clstate").string();
  std::vector<int32_t> conversation, uninterrupted;
  {
    auto engine = open(model_);
    ASSERT_NE(engine, nullptr);
    const auto reply = turn(*engine, first_, false);
    ASSERT_TRUE(engine->save_state(state).ok());
    conversation = joined(joined(first_, reply), second_);
    uninterrupted = turn(*engine, conversation, true);
  }
  auto loaded = open(model_);
  ASSERT_NE(loaded, nullptr);
  const Status s = loaded->load_state(state);
  ASSERT_TRUE(s.ok()) << s.to_string();
  GenerationStats stats;
  EXPECT_EQ(turn(*loaded, conversation, true, &stats), uninterrupted);
  EXPECT_GT(stats.cached_tokens, static_cast<int>(first_.size())) << "the loaded cache was reused";
}

TEST_P(Conversation, AStateFileForAnotherSetupOrDamagedIsRefusedAndTheCacheKept) {
  const std::string state = (dir_ / "s.clstate").string();
  {
    auto engine = open(model_);
    ASSERT_NE(engine, nullptr);
    turn(*engine, first_, false);
    ASSERT_TRUE(engine->save_state(state).ok());
  }
  std::ifstream in(state, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto write = [&](const std::string& name, const std::string& contents) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << contents;
    return path;
  };
  auto engine = open(model_);
  ASSERT_NE(engine, nullptr);
  turn(*engine, second_, false);
  const std::vector<int32_t> before = engine->cached_tokens();
  auto refused = [&](const std::string& path, Stage stage, const std::string& says) {
    const Status s = engine->load_state(path);
    EXPECT_EQ(s.stage(), stage) << path << ": " << s.to_string();
    EXPECT_NE(s.message().find(says), std::string::npos) << s.message();
    EXPECT_EQ(engine->cached_tokens(), before) << path;
  };
  refused(write("truncated", bytes.substr(0, bytes.size() / 2)), Stage::Io, "checksum");
  std::string flipped = bytes;
  flipped[flipped.size() - 40] = static_cast<char>(flipped[flipped.size() - 40] ^ 1);
  refused(write("flipped", flipped), Stage::Io, "checksum");
  refused(write("short", bytes.substr(0, 10)), Stage::Io, "signature");
  refused(write("other", "not a state file at all, but long enough to hold a header and a digest"), Stage::Io,
          "signature");
  refused((dir_ / "missing").string(), Stage::Io, "cannot open");

  // Another model file of the same shape.
  const std::string other_model = (dir_ / "other.gguf").string();
  test::RandomModelSpec spec;
  spec.seed = 99;
  ASSERT_TRUE(test::write_random_llama(other_model, spec).ok());
  auto other = open(other_model);
  ASSERT_NE(other, nullptr);
  const Status s = other->load_state(state);
  EXPECT_EQ(s.stage(), Stage::InvalidArgument);
  EXPECT_NE(s.message().find("model file SHA-256"), std::string::npos) << s.message();

  auto q8 = open(model_, KvCacheType::Q8_0);
  ASSERT_NE(q8, nullptr);
  const Status t = q8->load_state(state);
  EXPECT_EQ(t.stage(), Stage::InvalidArgument);
  EXPECT_NE(t.message().find("K cache type f16 when saved, q8_0 here"), std::string::npos) << t.message();
}

TEST_P(Conversation, ASaveThatCannotBeWrittenLeavesNoFile) {
  auto engine = open(model_);
  ASSERT_NE(engine, nullptr);
  turn(*engine, first_, false);
  const std::string path = (dir_ / "no-such-dir" / "s.clstate").string();
  EXPECT_EQ(engine->save_state(path).stage(), Stage::Io);
  EXPECT_FALSE(std::filesystem::exists(path));
}

// The fast CPU path, and the best OpenCL device (PoCL in CI) where there is one.
INSTANTIATE_TEST_SUITE_P(Devices, Conversation, testing::Values("cpu", "auto"),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace clport
