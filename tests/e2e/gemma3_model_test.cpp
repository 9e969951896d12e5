// Random-weight gemma3 models the suite writes itself (head size unlike n_embd / n_head, per-head
// Q/K norms, post-norms, GEGLU, a sliding window shorter than the prompt): the device path and
// the fast CPU backend against the CPU reference, by logits NMSE and greedy tokens.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "clport/engine.h"
#include "clport/gguf.h"
#include "clport/nmse.h"
#include "activation_policy.h"
#include "random_model.h"

namespace clport {
namespace {

struct Case {
  DType dtype;
  bool fusion = true;
  std::optional<DType> v_dtype = std::nullopt;  // attn_v in another dtype (Q, K, V not joined)
  bool integer = false;  // 8-bit activations (generic int_dot: 1) against the rounding reference
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
  const auto path = std::filesystem::temp_directory_path() /
                    ("clport_gemma3_" + tag + "_" + std::to_string(::getpid()) + ".gguf");
  const Status st = test::write_random_llama(path.string(), spec);
  EXPECT_TRUE(st.ok()) << st.to_string();
  return path;
}

const std::vector<int32_t> kPrompt{1, 260, 70, 261, 100, 262, 33, 263, 264, 120, 299};

LlamaOptions small_options(bool fusion) {
  LlamaOptions lo;
  lo.n_ctx = 64;
  lo.n_batch = 8;  // the 11-token prompt spans two batches
  lo.fusion = fusion;
  return lo;
}

std::vector<int32_t> greedy(LlamaModel& model, int n) {
  std::vector<int32_t> out;
  std::vector<float> logits;
  std::vector<int32_t> step = kPrompt;
  uint32_t n_past = 0;
  for (int i = 0; i < n; ++i) {
    if (!model.forward(step, n_past, false, logits).ok()) return out;
    n_past += static_cast<uint32_t>(step.size());
    const auto best = static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    out.push_back(best);
    step = {best};
  }
  return out;
}

class Gemma3DeviceVsCpu : public testing::TestWithParam<Case> {};

TEST_P(Gemma3DeviceVsCpu, LogitsMatchCpuReference) {
  const Case c = GetParam();
  const test::RandomModelSpec spec = gemma_spec(c.dtype, c.v_dtype);
  const auto path = write_model(spec, std::string(dtype_name(c.dtype)));
  auto file = GgufFile::open(path.string());
  ASSERT_TRUE(file.ok()) << file.status().to_string();

  EngineOptions options;
  const std::string policy = path.string() + ".yaml";
  test::write_activation_policy(policy, c.integer);
  options.config_path = policy;
  auto device = create_backend(options);
  std::filesystem::remove(policy);
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  ASSERT_EQ(device.value()->name().rfind("opencl:", 0), 0u)
      << "no OpenCL device backend: " << device.value()->description();
  auto cpu = make_cpu_backend(0, c.integer);
  auto dev_model = LlamaModel::load(file.value(), *device.value(), small_options(c.fusion));
  ASSERT_TRUE(dev_model.ok()) << dev_model.status().to_string();
  auto cpu_model = LlamaModel::load(file.value(), *cpu, small_options(c.fusion));
  ASSERT_TRUE(cpu_model.ok()) << cpu_model.status().to_string();
  EXPECT_EQ(cpu_model.value()->hparams().head_dim, 128u);

  std::vector<float> got, want;
  ASSERT_TRUE(dev_model.value()->forward(kPrompt, 0, true, got).ok());
  ASSERT_TRUE(cpu_model.value()->forward(kPrompt, 0, true, want).ok());
  ASSERT_EQ(got.size(), want.size());
  const double bound = c.integer ? test::kIntegerPathLogitNmse : 1e-6;
  EXPECT_LT(nmse(want.data(), got.data(), want.size()), bound) << "prompt logits";
  uint32_t n_past = static_cast<uint32_t>(kPrompt.size());
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
  auto file = GgufFile::open(path.string());
  ASSERT_TRUE(file.ok());
  auto ref = make_cpu_backend();
  auto fast = make_fast_cpu_backend(2);
  auto ref_model = LlamaModel::load(file.value(), *ref, small_options(true));
  ASSERT_TRUE(ref_model.ok()) << ref_model.status().to_string();
  auto fast_model = LlamaModel::load(file.value(), *fast, small_options(true));
  ASSERT_TRUE(fast_model.ok()) << fast_model.status().to_string();
  std::vector<float> got, want;
  ASSERT_TRUE(fast_model.value()->forward(kPrompt, 0, true, got).ok());
  ASSERT_TRUE(ref_model.value()->forward(kPrompt, 0, true, want).ok());
  // The fast backend quantizes activations to 8-bit blocks for its mat-muls (DESIGN.md: within
  // NMSE 5e-4 of the exact reference per mat-mul).
  EXPECT_LT(nmse(want.data(), got.data(), want.size()), 5e-3);
  EXPECT_EQ(greedy(*fast_model.value(), 8), greedy(*ref_model.value(), 8));
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
  auto m_narrow = LlamaModel::load(f_narrow.value(), *cpu, small_options(false));
  auto m_wide = LlamaModel::load(f_wide.value(), *cpu, small_options(false));
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
  EXPECT_FLOAT_EQ(hp->rope_freq_base_swa, 1e4f);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace clport
