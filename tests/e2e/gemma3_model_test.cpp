// Random-weight gemma3 models the suite writes itself (head size unlike n_embd / n_head, per-head
// Q/K norms, post-norms, GEGLU, a sliding window shorter than the prompt): the device path and
// the fast CPU backend against the CPU reference, by logits NMSE and greedy tokens.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "engine/engine_core.h"
#include "gguf/gguf.h"
#include "common/nmse.h"
#include "model_compare.h"

namespace clport {
namespace {

struct Case {
  DType dtype;
  bool fusion = true;
  std::optional<DType> v_dtype = std::nullopt;  // attn_v in another dtype (Q, K, V not joined)
  bool integer = false;  // 8-bit activations (generic int_dot: on) against the rounding reference
};

std::string case_name(const testing::TestParamInfo<Case>& info) {
  return std::string(dtype_name(info.param.dtype)) + (info.param.fusion ? "" : "_unfused") +
         (info.param.v_dtype ? "_v_" + std::string(dtype_name(*info.param.v_dtype)) : "") +
         (info.param.integer ? "_int8" : "");
}

// 4 heads of 128 against n_embd 256; 3 layers, window 4, period 3: layers 0 and 1 local, 2 global.
test::RandomModelSpec gemma_spec(DType dtype, std::optional<DType> v_dtype) {
  test::RandomModelSpec spec;
  spec.arch = "gemma3";
  spec.weight_dtype = dtype;
  spec.attn_v_dtype = v_dtype;
  spec.n_layer = 3;
  spec.head_dim = 128;
  spec.sliding_window = 4;
  spec.swa_period = 3;
  return spec;
}

std::filesystem::path write_model(const test::RandomModelSpec& spec, const std::string& tag) {
  return test::write_temp_model(spec, tag);
}

using test::greedy;
using test::small_options;
const std::vector<int32_t>& kPrompt = test::compare_prompt();

class Gemma3DeviceVsCpu : public testing::TestWithParam<Case> {};

TEST_P(Gemma3DeviceVsCpu, LogitsMatchCpuReference) {
  const Case c = GetParam();
  const auto path = write_model(gemma_spec(c.dtype, c.v_dtype), std::string(dtype_name(c.dtype)));
  test::DeviceComparison comparison;
  comparison.fusion = c.fusion;
  comparison.integer = c.integer;
  comparison.check_hparams = [](const LlamaHParams& hp) { EXPECT_EQ(hp.head_dim, 128u); };
  test::expect_device_matches_cpu(path, comparison);
  std::filesystem::remove(path);
}

INSTANTIATE_TEST_SUITE_P(Gemma3, Gemma3DeviceVsCpu,
                         testing::Values(Case{DType::Q8_0}, Case{DType::Q8_0, false}, Case{DType::F16},
                                         Case{DType::Q4_K, true, DType::Q6_K}, Case{DType::Q5_0},
                                         Case{DType::Q8_0, true, std::nullopt, true},
                                         Case{DType::Q4_K, true, DType::Q6_K, true},
                                         Case{DType::Q5_0, false, std::nullopt, true}),
                         case_name);

TEST(Gemma3FastCpu, MatchesReference) {
  const auto path = write_model(gemma_spec(DType::Q8_0, std::nullopt), "fast");
  test::expect_fast_cpu_matches_reference(path);
  std::filesystem::remove(path);
}

// The window hides old keys: with a window covering the whole prompt the last logits differ.
TEST(Gemma3Window, SlidingWindowChangesLocalLayers) {
  test::RandomModelSpec narrow = gemma_spec(DType::F32, std::nullopt);
  test::RandomModelSpec wide = narrow;
  wide.sliding_window = 64;
  const auto p_narrow = write_model(narrow, "narrow"), p_wide = write_model(wide, "wide");
  auto cpu = make_cpu_backend();
  auto f_narrow = GgufFile::open(p_narrow.string());
  auto f_wide = GgufFile::open(p_wide.string());
  ASSERT_TRUE(f_narrow.ok() && f_wide.ok());
  auto m_narrow = LlamaModel::load(f_narrow.value(), *cpu, small_options(false, 64));
  auto m_wide = LlamaModel::load(f_wide.value(), *cpu, small_options(false, 64));
  ASSERT_TRUE(m_narrow.ok() && m_wide.ok());
  EXPECT_TRUE(m_narrow.value()->hparams().is_swa_layer(0));
  EXPECT_FALSE(m_narrow.value()->hparams().is_swa_layer(2));
  std::vector<float> a, b;
  ASSERT_TRUE(m_narrow.value()->forward(kPrompt, 0, false, a).ok());
  ASSERT_TRUE(m_wide.value()->forward(kPrompt, 0, false, b).ok());
  EXPECT_GT(nmse(a.data(), b.data(), a.size()), 1e-6);
  // The first tokens are within both windows: their logits agree.
  ASSERT_TRUE(m_narrow.value()->forward({1, 260, 70}, 0, true, a).ok());
  ASSERT_TRUE(m_wide.value()->forward({1, 260, 70}, 0, true, b).ok());
  EXPECT_LT(nmse(a.data(), b.data(), a.size()), 1e-12);
  std::filesystem::remove(p_narrow);
  std::filesystem::remove(p_wide);
}

TEST(Gemma3HParams, DefaultPatternIsFiveLocalThenOneGlobal) {
  test::RandomModelSpec spec = gemma_spec(DType::Q8_0, std::nullopt);
  spec.n_layer = 12;
  spec.swa_period = 0;  // no key: the Gemma 3 default
  const auto path = write_model(spec, "pattern");
  auto file = GgufFile::open(path.string());
  ASSERT_TRUE(file.ok());
  auto hp = read_llama_hparams(*file.value());
  ASSERT_TRUE(hp.ok()) << hp.status().to_string();
  for (uint32_t i = 0; i < 12; ++i) EXPECT_EQ(hp->is_swa_layer(i), i != 5 && i != 11) << "layer " << i;
  EXPECT_EQ(hp->rope_mode, 2);
  EXPECT_FLOAT_EQ(hp->attn_scale, 1.0f / std::sqrt(128.0f));
  EXPECT_FLOAT_EQ(hp->embd_scale, 16.0f);
  EXPECT_FLOAT_EQ(hp->rope_freq_base, 1e6f);
  EXPECT_FLOAT_EQ(hp->layer_attn[0].rope_freq_base, 1e4f);  // a local layer
  EXPECT_FLOAT_EQ(hp->layer_attn[5].rope_freq_base, 1e6f);  // a global one
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace clport
