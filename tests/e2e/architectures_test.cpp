// Random-weight models of the architectures built like llama (qwen2 with Q/K/V biases, qwen3 with
// per-head Q/K norms and a head size of its own, phi3 with joined Q/K/V and gate/up weights and a
// partial rotation, Llama 3.x with rope_freqs, Phi-3 LongRoPE): the device path and the fast CPU
// backend against the CPU reference, by logits NMSE and greedy tokens, fused and unfused, on
// float and on 8-bit activations.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "clport/engine.h"
#include "clport/gguf.h"
#include "clport/nmse.h"
#include "activation_policy.h"
#include "random_model.h"

namespace clport {
namespace {

struct Case {
  std::string name;
  test::RandomModelSpec spec;
  bool fusion = true;
  bool integer = false;  // 8-bit activations (generic int_dot: 1) against the rounding reference
  uint32_t n_ctx = 64;   // the context the model is loaded with (LongRoPE picks its factors by it)
};

test::RandomModelSpec spec_of(const std::string& arch, DType dtype) {
  test::RandomModelSpec s;
  s.arch = arch;
  s.weight_dtype = dtype;
  s.n_layer = 2;
  if (arch == "qwen3") s.head_dim = 128;  // 4 heads of 128 against n_embd 256
  if (arch == "phi3") s.partial_rotary = true;
  if (arch == "qwen2") s.tied_output = false;
  return s;
}

Case make_case(const std::string& name, const std::string& arch, DType dtype, bool fusion = true,
               bool integer = false, const std::string& factors = "", uint32_t n_ctx = 64) {
  Case c{name, spec_of(arch, dtype), fusion, integer, n_ctx};
  c.spec.rope_factors = factors;
  return c;
}

std::filesystem::path write_model(const test::RandomModelSpec& spec, const std::string& tag) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("clport_arch_" + tag + "_" + std::to_string(::getpid()) + ".gguf");
  const Status st = test::write_random_llama(path.string(), spec);
  EXPECT_TRUE(st.ok()) << st.to_string();
  return path;
}

const std::vector<int32_t> kPrompt{1, 260, 70, 261, 100, 262, 33, 263, 264, 120, 299};

LlamaOptions small_options(bool fusion, uint32_t n_ctx) {
  LlamaOptions lo;
  lo.n_ctx = n_ctx;
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

class ArchitectureDeviceVsCpu : public testing::TestWithParam<Case> {};

TEST_P(ArchitectureDeviceVsCpu, LogitsMatchCpuReference) {
  const Case& c = GetParam();
  const auto path = write_model(c.spec, c.name);
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
  auto dev_model = LlamaModel::load(file.value(), *device.value(), small_options(c.fusion, c.n_ctx));
  ASSERT_TRUE(dev_model.ok()) << dev_model.status().to_string();
  auto cpu_model = LlamaModel::load(file.value(), *cpu, small_options(c.fusion, c.n_ctx));
  ASSERT_TRUE(cpu_model.ok()) << cpu_model.status().to_string();
  EXPECT_EQ(cpu_model.value()->hparams().arch, c.spec.arch);

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

INSTANTIATE_TEST_SUITE_P(
    Architectures, ArchitectureDeviceVsCpu,
    testing::Values(make_case("qwen2_q8_0", "qwen2", DType::Q8_0), make_case("qwen2_q4_k_unfused", "qwen2", DType::Q4_K, false),
                    make_case("qwen2_q8_0_int8", "qwen2", DType::Q8_0, true, true),
                    make_case("qwen3_q8_0", "qwen3", DType::Q8_0), make_case("qwen3_q4_0_unfused", "qwen3", DType::Q4_0, false),
                    make_case("qwen3_q4_k_int8", "qwen3", DType::Q4_K, true, true),
                    make_case("phi3_q8_0", "phi3", DType::Q8_0), make_case("phi3_q4_1_unfused", "phi3", DType::Q4_1, false),
                    make_case("phi3_q5_0_int8", "phi3", DType::Q5_0, true, true),
                    make_case("llama3_rope_freqs_q8_0", "llama", DType::Q8_0, true, false, "rope_freqs"),
                    make_case("llama3_rope_freqs_f16_unfused", "llama", DType::F16, false, false, "rope_freqs"),
                    make_case("llama3_rope_freqs_q4_0_int8", "llama", DType::Q4_0, true, true, "rope_freqs"),
                    make_case("phi3_long_rope_short_factors", "phi3", DType::Q8_0, true, false, "long_rope", 64),
                    make_case("phi3_long_rope_long_factors", "phi3", DType::Q8_0, true, false, "long_rope", 128)),
    [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

// What the architecture changes must change the numbers: the biases, the frequency factors and
// LongRoPE's choice of factors are all read (a graph that ignored one
// would still match a reference that ignored it too).
TEST(Architectures, EachFeatureChangesTheLogits) {
  auto logits_of = [](const test::RandomModelSpec& spec, const std::string& tag, uint32_t n_ctx) {
    const auto path = write_model(spec, tag);
    auto file = GgufFile::open(path.string());
    std::vector<float> out;
    if (!file.ok()) return out;
    auto cpu = make_cpu_backend();
    auto model = LlamaModel::load(file.value(), *cpu, small_options(true, n_ctx));
    EXPECT_TRUE(model.ok()) << model.status().to_string();
    if (model.ok()) {
      EXPECT_TRUE(model.value()->forward(kPrompt, 0, false, out).ok());
    }
    std::filesystem::remove(path);
    return out;
  };
  // The specs of each pair differ only in the feature's own tensors (drawn apart from the
  // weights, see random_model.h), or in the context LongRoPE chooses its factors by.
  test::RandomModelSpec plain = spec_of("llama", DType::Q8_0), freqs = plain;
  freqs.rope_factors = "rope_freqs";
  const auto a = logits_of(plain, "plain", 64), b = logits_of(freqs, "freqs", 64);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_GT(nmse(a.data(), b.data(), a.size()), 1e-4) << "rope_freqs.weight made no difference";
  test::RandomModelSpec long_rope = spec_of("phi3", DType::Q8_0);
  long_rope.rope_factors = "long_rope";
  const auto s = logits_of(long_rope, "short", 64), l = logits_of(long_rope, "long", 128);
  ASSERT_EQ(s.size(), l.size());
  EXPECT_GT(nmse(s.data(), l.data(), s.size()), 1e-4) << "the long factors were not chosen past the original context";
  test::RandomModelSpec biased = spec_of("qwen2", DType::Q8_0), unbiased = biased;
  unbiased.bias_range = 0.0f;
  const auto with = logits_of(biased, "bias", 64), without = logits_of(unbiased, "nobias", 64);
  ASSERT_EQ(with.size(), without.size());
  EXPECT_GT(nmse(with.data(), without.data(), with.size()), 1e-4) << "the Q/K/V biases made no difference";
}

TEST(Architectures, FastCpuMatchesReference) {
  for (const std::string arch : {"qwen2", "qwen3", "phi3"}) {
    SCOPED_TRACE(arch);
    const auto path = write_model(spec_of(arch, DType::Q8_0), "fast_" + arch);
    auto file = GgufFile::open(path.string());
    ASSERT_TRUE(file.ok());
    auto ref = make_cpu_backend();
    auto fast = make_fast_cpu_backend(2);
    auto ref_model = LlamaModel::load(file.value(), *ref, small_options(true, 64));
    ASSERT_TRUE(ref_model.ok()) << ref_model.status().to_string();
    auto fast_model = LlamaModel::load(file.value(), *fast, small_options(true, 64));
    ASSERT_TRUE(fast_model.ok()) << fast_model.status().to_string();
    std::vector<float> got, want;
    ASSERT_TRUE(fast_model.value()->forward(kPrompt, 0, true, got).ok());
    ASSERT_TRUE(ref_model.value()->forward(kPrompt, 0, true, want).ok());
    // 8-bit activations in the fast backend's mat-muls (as in the Gemma 3 fast-CPU test).
    EXPECT_LT(nmse(want.data(), got.data(), want.size()), 5e-3);
    EXPECT_EQ(greedy(*fast_model.value(), 8), greedy(*ref_model.value(), 8));
    std::filesystem::remove(path);
  }
}

}  // namespace
}  // namespace clport

namespace clport {
namespace {

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_all(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

Status load_on_cpu(const std::filesystem::path& p) {
  auto file = GgufFile::open(p.string());
  if (!file.ok()) return file.status();
  auto cpu = make_cpu_backend();
  auto model = LlamaModel::load(file.value(), *cpu, small_options(true, 64));
  return model.ok() ? Status() : model.status();
}

// A file whose architecture needs tensors it lacks, or whose factors are not usable, is refused
// with the tensor named; nothing is computed from it.
TEST(Architectures, MalformedFilesAreRefusedNamingTheTensor) {
  // A llama file relabelled qwen2 (same length, every key follows): no Q/K/V biases.
  const auto llama = write_model(spec_of("llama", DType::Q8_0), "relabel");
  std::string bytes = read_all(llama);
  for (size_t at = bytes.find("llama"); at != std::string::npos; at = bytes.find("llama", at + 5))
    bytes.replace(at, 5, "qwen2");
  write_all(llama, bytes);
  Status st = load_on_cpu(llama);
  EXPECT_EQ(st.stage(), Stage::Model) << st.to_string();
  EXPECT_NE(st.message().find("blk.0.attn_q.bias"), std::string::npos) << st.to_string();
  std::filesystem::remove(llama);

  // rope_freqs.weight with a zero factor (an infinite angle).
  test::RandomModelSpec spec = spec_of("llama", DType::Q8_0);
  spec.rope_factors = "rope_freqs";
  const auto freqs = write_model(spec, "zero_factor");
  std::string factor_bytes;
  {
    auto file = GgufFile::open(freqs.string());
    ASSERT_TRUE(file.ok());
    const GgufTensorInfo* t = file.value()->find_tensor("rope_freqs.weight");
    ASSERT_NE(t, nullptr);
    factor_bytes.assign(reinterpret_cast<const char*>(t->data), t->bytes);
  }
  bytes = read_all(freqs);
  const size_t at = bytes.find(factor_bytes);
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 4, std::string(4, '\0'));
  write_all(freqs, bytes);
  st = load_on_cpu(freqs);
  EXPECT_EQ(st.stage(), Stage::Model) << st.to_string();
  EXPECT_NE(st.message().find("rope_freqs.weight"), std::string::npos) << st.to_string();
  std::filesystem::remove(freqs);
}

}  // namespace
}  // namespace clport
