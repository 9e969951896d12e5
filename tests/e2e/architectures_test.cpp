// Random-weight models of the architectures built like llama (qwen2 with Q/K/V biases, qwen3 with
// per-head Q/K norms and a head size of its own, phi3 with joined Q/K/V and gate/up weights and a
// partial rotation, smollm3 with a layer without RoPE, Llama 3.x with rope_freqs, Phi-3
// LongRoPE): the device path and the fast CPU backend against the CPU reference, by logits NMSE
// and greedy tokens, fused and unfused, on float and on 8-bit activations.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "engine/engine_core.h"
#include "gguf/gguf.h"
#include "common/nmse.h"
#include "model_compare.h"

namespace clport {
namespace {

struct Case {
  std::string name;
  test::RandomModelSpec spec;
  bool fusion = true;
  bool integer = false;  // 8-bit activations (generic int_dot: on) against the rounding reference
  uint32_t n_ctx = 64;   // the context the model is loaded with (LongRoPE picks its factors by it)
};

test::RandomModelSpec spec_of(const std::string& arch, DType dtype) {
  test::RandomModelSpec s = test::family_spec(arch, dtype);
  if (arch != "smollm3") s.n_layer = 2;  // smollm3 keeps its fourth layer, the one without RoPE
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
  return test::write_temp_model(spec, tag);
}

using test::small_options;
const std::vector<int32_t>& kPrompt = test::compare_prompt();

class ArchitectureDeviceVsCpu : public testing::TestWithParam<Case> {};

TEST_P(ArchitectureDeviceVsCpu, LogitsMatchCpuReference) {
  const Case& c = GetParam();
  const auto path = write_model(c.spec, c.name);
  test::DeviceComparison comparison;
  comparison.fusion = c.fusion;
  comparison.integer = c.integer;
  comparison.n_ctx = c.n_ctx;
  const std::string arch = c.spec.arch;
  comparison.check_hparams = [arch](const LlamaHParams& hp) { EXPECT_EQ(hp.arch, arch); };
  test::expect_device_matches_cpu(path, comparison);
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
                    make_case("smollm3_q8_0", "smollm3", DType::Q8_0),
                    make_case("smollm3_q4_0_unfused", "smollm3", DType::Q4_0, false),
                    make_case("smollm3_q8_0_int8", "smollm3", DType::Q8_0, true, true),
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
  // The same weights as llama (every layer rotated) and as smollm3 (layer 3 not).
  test::RandomModelSpec nope = spec_of("smollm3", DType::Q8_0), rotated = nope;
  rotated.arch = "llama";
  const auto n = logits_of(nope, "nope", 64), r = logits_of(rotated, "rotated", 64);
  ASSERT_EQ(n.size(), r.size());
  EXPECT_GT(nmse(n.data(), r.data(), n.size()), 1e-4) << "smollm3's layer without RoPE made no difference";
}

// SmolLM3 runs every fourth layer without RoPE (llama.cpp's rule: no key carries the step), and
// rotates the whole head of the others.
TEST(Architectures, SmolLM3LeavesEveryFourthLayerUnrotated) {
  test::RandomModelSpec spec = spec_of("smollm3", DType::Q8_0);
  spec.n_layer = 9;
  const auto path = write_model(spec, "nope_layers");
  auto file = GgufFile::open(path.string());
  ASSERT_TRUE(file.ok());
  auto hp = read_llama_hparams(*file.value());
  ASSERT_TRUE(hp.ok()) << hp.status().to_string();
  for (uint32_t i = 0; i < 9; ++i) EXPECT_EQ(hp->layer_attn[i].rope, i != 3 && i != 7) << "layer " << i;
  EXPECT_EQ(hp->rope_mode, 0);
  EXPECT_EQ(hp->n_rot, hp->head_dim);
  std::filesystem::remove(path);

  spec.partial_rotary = true;  // rope.dimension_count = half the head: llama.cpp refuses it too
  const auto partial = write_model(spec, "partial");
  auto partial_file = GgufFile::open(partial.string());
  ASSERT_TRUE(partial_file.ok());
  auto refused = read_llama_hparams(*partial_file.value());
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("smollm3.rope.dimension_count"), std::string::npos)
      << refused.status().to_string();
  std::filesystem::remove(partial);
}

TEST(Architectures, FastCpuMatchesReference) {
  for (const std::string arch : {"qwen2", "qwen3", "phi3", "smollm3"}) {
    SCOPED_TRACE(arch);
    const auto path = write_model(spec_of(arch, DType::Q8_0), "fast");
    test::expect_fast_cpu_matches_reference(path);
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
