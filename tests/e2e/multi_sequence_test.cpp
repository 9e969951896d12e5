// Several sequences on one model (ModelOptions::n_seq, EngineCore::evaluate, LlamaModel::forward_step)
// on small random models of each family, on the CPU reference and the best device: a step over
// sequences of different lengths gives each the logits it gets alone, a prompt chunk joining
// decode steps too, a fork continues as its source, the KV cache is n_seq times one sequence's,
// and bad steps are refused by name.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <tuple>

#include "engine/engine_core.h"
#include "activation_policy.h"
#include "common/nmse.h"
#include "random_model.h"

namespace clport {
namespace {

// On the CPU path the batched and the lone step run the same kernels over the same 8-bit
// activation rows: their logits agree to summation order. A device may run them on different
// kernels (a fused decode layer alone, a batched GEMM and the *_CELLS attention together), where an
// ulp upstream now and then moves an activation across a rounding boundary of its 8-bit code: the
// bound of two integer paths (activation_policy.h), far below what a wrong cache or row gives.
double same_logits_bound(const std::string& device) { return device == "cpu" ? 1e-6 : test::kIntegerPathLogitNmse; }

// Device ("cpu" / "auto"), family, K and V cache types.
using Setup = std::tuple<std::string, std::string, KvCacheType, KvCacheType>;

class MultiSequence : public testing::TestWithParam<Setup> {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("clport_multi_seq_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    model_ = (dir_ / "model.gguf").string();
    test::RandomModelSpec spec = test::family_spec(std::get<1>(GetParam()), DType::Q8_0);
    ASSERT_TRUE(test::write_random_llama(model_, spec).ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<EngineCore> open(uint32_t n_seq) const {
    EngineOptions options;
    options.model_path = model_;
    options.device = std::get<0>(GetParam());
    options.model.n_ctx = 64;
    options.model.n_seq = n_seq;
    options.model.kv_type_k = std::get<2>(GetParam());
    options.model.kv_type_v = std::get<3>(GetParam());
    options.kv_types_set = true;
    auto engine = EngineCore::open(options);
    EXPECT_TRUE(engine.ok()) << engine.status().to_string();
    return engine.ok() ? std::move(engine.value()) : nullptr;
  }

  // Prompts of different lengths (the sliding window of gemma3's local layers is 8: some are
  // longer), each its own tokens.
  static std::vector<std::vector<int32_t>> prompts() {
    std::vector<std::vector<int32_t>> out;
    for (int len : {5, 17, 1, 30}) {
      std::vector<int32_t> p{1};
      for (int i = 1; i < len; ++i) p.push_back(3 + (i * 7 + len * 13) % 290);
      out.push_back(p);
    }
    return out;
  }

  static void expect_same(const std::vector<float>& want, const float* got, size_t n, const std::string& what) {
    const double e = nmse(want.data(), got, n);
    EXPECT_LE(e, same_logits_bound(std::get<0>(GetParam()))) << what;
  }

  std::filesystem::path dir_;
  std::string model_;
};

TEST_P(MultiSequence, AStepOverSequencesOfDifferentLengthsGivesEachTheLogitsItGetsAlone) {
  const auto p = prompts();
  auto many = open(static_cast<uint32_t>(p.size()));
  auto one = open(1);
  ASSERT_TRUE(many && one);
  const size_t V = many->model().hparams().n_vocab;
  std::vector<EngineCore::SequenceInput> inputs;
  for (uint32_t s = 0; s < p.size(); ++s) inputs.push_back({s, p[s]});
  std::vector<float> batched;
  ASSERT_TRUE(many->evaluate(inputs, batched).ok());
  ASSERT_EQ(batched.size(), p.size() * V);

  // Four decode steps of every sequence together, each fed a token of its own.
  std::vector<std::vector<float>> steps{batched};
  for (int step = 0; step < 4; ++step) {
    for (uint32_t s = 0; s < p.size(); ++s) inputs[s].tokens = {static_cast<int32_t>(10 + 31 * s + step)};
    ASSERT_TRUE(many->evaluate(inputs, batched).ok());
    steps.push_back(batched);
  }
  for (uint32_t s = 0; s < p.size(); ++s) EXPECT_EQ(many->cached_tokens(s).size(), p[s].size() + 4);

  // Each sequence alone on a one-sequence engine: the same tokens, the same logits.
  for (uint32_t s = 0; s < p.size(); ++s) {
    ASSERT_TRUE(one->rewind(one->cached_tokens().size()).ok());
    std::vector<float> alone;
    ASSERT_TRUE(one->evaluate({{0, p[s]}}, alone).ok());
    expect_same(alone, steps[0].data() + s * V, V, "prompt of sequence " + std::to_string(s));
    for (int step = 0; step < 4; ++step) {
      ASSERT_TRUE(one->evaluate({{0, {static_cast<int32_t>(10 + 31 * s + step)}}}, alone).ok());
      expect_same(alone, steps[step + 1].data() + s * V, V,
                  "step " + std::to_string(step) + " of sequence " + std::to_string(s));
    }
  }
}

TEST_P(MultiSequence, APromptChunkJoiningDecodeStepsGivesTheLogitsOfRunningItAlone) {
  auto many = open(3);
  auto one = open(1);
  ASSERT_TRUE(many && one);
  LlamaModel& m = many->model();
  const size_t V = m.hparams().n_vocab;
  std::vector<float> logits;
  // Sequences 1 and 2 hold a few tokens; then one step appends a 6-token chunk to sequence 0 and
  // one token to each of the others (listed first: the model puts the chunk first itself).
  ASSERT_TRUE(m.forward({1, 20, 21}, 0, false, logits, 1).ok());
  ASSERT_TRUE(m.forward({1, 30, 31, 32, 33, 34, 35, 36, 37, 38}, 0, false, logits, 2).ok());
  ASSERT_TRUE(m.forward_step({{1, 3, {22}}, {0, 0, {1, 40, 41, 42, 43, 44}}, {2, 10, {39}}}, logits).ok());
  ASSERT_EQ(logits.size(), 3 * V);

  LlamaModel& lone = one->model();
  std::vector<float> alone;
  ASSERT_TRUE(lone.forward({1, 20, 21, 22}, 0, false, alone).ok());
  expect_same(alone, logits.data(), V, "sequence 1");
  ASSERT_TRUE(lone.forward({1, 40, 41, 42, 43, 44}, 0, false, alone).ok());
  expect_same(alone, logits.data() + V, V, "sequence 0's chunk");
  ASSERT_TRUE(lone.forward({1, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39}, 0, false, alone).ok());
  expect_same(alone, logits.data() + 2 * V, V, "sequence 2");
}

TEST_P(MultiSequence, AForkContinuesAsItsSourceAndLeavesItAlone) {
  auto e = open(2);
  ASSERT_TRUE(e);
  const size_t V = e->model().hparams().n_vocab;
  std::vector<float> logits, source, forked;
  ASSERT_TRUE(e->evaluate({{0, prompts()[3]}}, logits).ok());
  ASSERT_TRUE(e->fork(0, 1).ok());
  EXPECT_EQ(e->cached_tokens(1), e->cached_tokens(0));
  ASSERT_TRUE(e->evaluate({{0, {77}}, {1, {77}}}, logits).ok());
  expect_same(std::vector<float>(logits.begin(), logits.begin() + V), logits.data() + V, V, "the fork's next step");
  // The fork takes another turn; the source's next step is what it would have been without it.
  ASSERT_TRUE(e->evaluate({{1, {5, 6, 7}}}, forked).ok());
  ASSERT_TRUE(e->evaluate({{0, {88}}}, source).ok());
  auto lone = open(1);
  ASSERT_TRUE(lone);
  std::vector<int32_t> whole = prompts()[3];
  whole.insert(whole.end(), {77, 88});
  std::vector<float> want;
  ASSERT_TRUE(lone->evaluate({{0, whole}}, want).ok());
  expect_same(want, source.data(), V, "the source after the fork's turn");
}

TEST_P(MultiSequence, TheKvCacheIsOneSequencesTimesTheirCountAndTheEstimateSaysSo) {
  auto one = open(1);
  auto four = open(4);
  ASSERT_TRUE(one && four);
  EXPECT_EQ(four->model().memory().kv_cache_bytes, 4 * one->model().memory().kv_cache_bytes);
  ModelOptions options;
  options.n_ctx = 64;
  options.n_seq = 4;
  options.kv_type_k = std::get<2>(GetParam());
  options.kv_type_v = std::get<3>(GetParam());
  auto estimate = estimate_load(four->file(), options, four->backend());
  ASSERT_TRUE(estimate.ok()) << estimate.status().to_string();
  EXPECT_EQ(estimate.value().kv_cache, four->model().memory().kv_cache_bytes);
}

TEST_P(MultiSequence, BadStepsAreRefusedNamingWhatIsWrong) {
  auto e = open(2);
  ASSERT_TRUE(e);
  std::vector<float> logits;
  Status s = e->evaluate({{2, {1}}}, logits);
  EXPECT_EQ(s.stage(), Stage::InvalidArgument);
  EXPECT_NE(s.message().find("sequence 2 out of range"), std::string::npos) << s.message();
  s = e->evaluate({{1, {1}}, {1, {2}}}, logits);
  EXPECT_NE(s.message().find("sequence 1 is given twice"), std::string::npos) << s.message();
  s = e->evaluate({{0, std::vector<int32_t>(65, 5)}}, logits);
  EXPECT_NE(s.message().find("context full: sequence 0 would hold 65"), std::string::npos) << s.message();
  s = e->model().forward_step({{0, 0, {1, 2}}, {1, 0, {1, 2}}}, logits);
  EXPECT_NE(s.message().find("several tokens"), std::string::npos) << s.message();
  s = e->fork(0, 5);
  EXPECT_EQ(s.stage(), Stage::InvalidArgument);
  // Nothing above touched the caches.
  EXPECT_TRUE(e->cached_tokens(0).empty());
  EXPECT_TRUE(e->cached_tokens(1).empty());
  ASSERT_TRUE(e->evaluate({{1, {1, 5, 6}}}, logits).ok());

  EngineOptions options;
  options.model_path = model_;
  options.device = "cpu";
  options.model.n_seq = 0;
  auto none = EngineCore::open(options);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("sequences 0: must be 1 to 256"), std::string::npos)
      << none.status().message();
}

std::string setup_name(const testing::TestParamInfo<Setup>& p) {
  return std::get<0>(p.param) + "_" + std::get<1>(p.param) + "_" + std::string(kv_cache_type_name(std::get<2>(p.param))) +
         "_" + std::string(kv_cache_type_name(std::get<3>(p.param)));
}

// Every family on both paths with one cache type for K and V (the joint cache the fused ops
// take); llama also with K and V apart (plain COPY stores into two tensors).
INSTANTIATE_TEST_SUITE_P(Families, MultiSequence,
                         testing::Combine(testing::Values("cpu", "auto"),
                                          testing::Values("llama", "gemma3", "qwen2", "qwen3", "phi3", "smollm3", "llama3"),
                                          testing::Values(KvCacheType::F16), testing::Values(KvCacheType::F16)),
                         setup_name);
INSTANTIATE_TEST_SUITE_P(SplitCache, MultiSequence,
                         testing::Combine(testing::Values("cpu", "auto"), testing::Values("llama"),
                                          testing::Values(KvCacheType::Q8_0), testing::Values(KvCacheType::F16)),
                         setup_name);

}  // namespace
}  // namespace clport
