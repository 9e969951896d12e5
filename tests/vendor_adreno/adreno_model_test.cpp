// Whole models under the spoofed Adreno 740 identity (tests/fakecl forwarding to PoCL): the
// Adreno plugin must really serve MUL_MAT (its own kernels show up in the profiling timings and
// the binding names it) and greedy tokens must equal the CPU path. Random models cover the F16,
// Q4_0, Q8_0 and Q6_K weight kernels; the real SmolLM2 file covers Q4_1 and, re-quantized in the
// test, Q4_0 at real shapes. The environment (CLPORT_OPENCL_LIBRARY, FAKECL_PRESET,
// CLPORT_PLUGIN_PATH, CLPORT_TEST_MODEL) comes from tests/vendor_adreno/CMakeLists.txt.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <unistd.h>
#include <set>
#include <string>
#include <vector>

#include "engine/engine_core.h"
#include "gguf/gguf.h"
#include "memory/file_pages.h"
#include "binding/op_desc.h"
#include "model_compare.h"

namespace clport {
namespace {

using test::greedy;

// The op the decode path issues for a weight of this dtype and shape (buffers are not needed).
std::string plugin_for_mul_mat(const Backend& backend, int32_t dtype, int64_t K, int64_t N) {
  const clport_tensor w = contiguous_tensor(dtype, {K, N, 1, 1}, 2),
                      x = contiguous_tensor(CLPORT_DTYPE_F32, {K, 1, 1, 1}, 2),
                      d = contiguous_tensor(CLPORT_DTYPE_F32, {N, 1, 1, 1}, 2);
  const clport_op op = two_source_op(CLPORT_OP_MUL_MAT, w, x, d);
  return backend.plugin_for(op);
}

std::set<std::string> kernel_names(Backend& backend) {
  std::set<std::string> names;
  for (const auto& t : backend.take_timings()) names.insert(t.name);
  return names;
}

std::string joined(const std::set<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += n + " ";
  return s;
}

struct Loaded {
  std::unique_ptr<Backend> device, cpu;
  std::unique_ptr<LlamaModel> dev_model, cpu_model;
};

// Loads `path` on the spoofed device (profiling on) and on the CPU.
void load_both(const std::string& path, Loaded& out) {
  auto file = GgufFile::open(path);
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  EngineOptions eo;
  eo.profiling = true;
  auto device = create_backend(eo);
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  ASSERT_EQ(device.value()->name().rfind("opencl:", 0), 0u) << device.value()->description();
  out.device = std::move(device.value());
  out.cpu = make_cpu_backend();
  ModelOptions lo;
  lo.n_ctx = 128;
  auto dev_model = LlamaModel::load(file.value(), *out.device, lo);
  ASSERT_TRUE(dev_model.ok()) << dev_model.status().to_string();
  auto cpu_model = LlamaModel::load(file.value(), *out.cpu, lo);
  ASSERT_TRUE(cpu_model.ok()) << cpu_model.status().to_string();
  out.dev_model = std::move(dev_model.value());
  out.cpu_model = std::move(cpu_model.value());
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("clport_adreno_" + std::to_string(::getpid()) + "_" + name)).string();
}

struct DTypeCase {
  DType dtype;
  int32_t abi;
  const char* suffix;
};

void PrintTo(const DTypeCase& c, std::ostream* os) { *os << c.suffix; }

class AdrenoRandomModel : public ::testing::TestWithParam<DTypeCase> {};

TEST_P(AdrenoRandomModel, AdrenoKernelsServeMulMatAndGreedyMatchesCpu) {
  const DTypeCase c = GetParam();
  test::RandomModelSpec spec;
  spec.weight_dtype = c.dtype;
  spec.seed = 7;
  const std::string path = temp_path(std::string(c.suffix) + ".gguf");
  ASSERT_TRUE(test::write_random_llama(path, spec).ok());
  Loaded m;
  load_both(path, m);
  std::filesystem::remove(path);
  if (HasFatalFailure()) return;

  EXPECT_EQ(plugin_for_mul_mat(*m.device, c.abi, spec.n_embd, spec.n_ff), "adreno");
  kernel_names(*m.device);  // drop load-time timings (the repack kernels)
  // Six prompt tokens take the GEMM path (more than 4 activation rows), the rest the GEMV.
  const std::vector<int32_t> prompt = {1, 40, 41, 42, 43, 44};
  const auto want = greedy(*m.cpu_model, prompt, 8);
  const auto got = greedy(*m.dev_model, prompt, 8);
  ASSERT_EQ(want.size(), 8u);
  EXPECT_EQ(got, want);
  const auto names = kernel_names(*m.device);
  EXPECT_TRUE(names.count(std::string("adreno_gemm_") + c.suffix)) << joined(names);
  EXPECT_TRUE(names.count(std::string("adreno_gemv_") + c.suffix)) << joined(names);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, AdrenoRandomModel,
                         ::testing::Values(DTypeCase{DType::F16, CLPORT_DTYPE_F16, "f16"},
                                           DTypeCase{DType::Q4_0, CLPORT_DTYPE_Q4_0, "q4_0"},
                                           DTypeCase{DType::Q8_0, CLPORT_DTYPE_Q8_0, "q8_0"},
                                           DTypeCase{DType::Q6_K, CLPORT_DTYPE_Q6_K, "q6_k"}),
                         [](const ::testing::TestParamInfo<DTypeCase>& i) { return std::string(i.param.suffix); });

// qwen2, qwen3, phi3, smollm3 and Llama 3.x (rope_freqs) models: Adreno's mat-muls, the new ops
// on whichever plugin claims them, greedy tokens as the CPU reference's.
TEST(AdrenoArchitectures, RandomModelsOfEachArchitectureMatchCpu) {
  for (const std::string family : {"qwen2", "qwen3", "phi3", "smollm3", "llama3"}) {
    SCOPED_TRACE(family);
    test::RandomModelSpec spec = test::family_spec(family, DType::Q4_0);
    spec.seed = 7;
    const std::string path = temp_path(family + ".gguf");
    ASSERT_TRUE(test::write_random_llama(path, spec).ok());
    Loaded m;
    load_both(path, m);
    std::filesystem::remove(path);
    if (HasFatalFailure()) return;
    kernel_names(*m.device);
    const std::vector<int32_t> prompt = {1, 40, 41, 42, 43, 44};
    const auto want = greedy(*m.cpu_model, prompt, 8);
    ASSERT_EQ(want.size(), 8u);
    EXPECT_EQ(greedy(*m.dev_model, prompt, 8), want);
    const auto names = kernel_names(*m.device);
    EXPECT_TRUE(names.count("adreno_gemv_q4_0")) << joined(names);
  }
}

// The split layout owns its weight, so the host frees each mat-mul weight's plain copy at load:
// all but the tied token embedding, whose rows GET_ROWS reads in the file layout (the Adreno
// plugin does not look rows up in its layout). Against a load that keeps every copy, the device
// holds exactly those bytes less, and the logits (a six-token prompt on the GEMM, a step on the
// GEMV) are the same bits.
TEST(AdrenoOwnedWeights, PlainCopiesGoButTheEmbeddingsAndLogitsStayTheSame) {
  test::RandomModelSpec spec;  // tied output: token_embd is also the output projection
  spec.weight_dtype = DType::Q4_0;
  spec.seed = 7;
  // FFN weights of 2.25 MiB: kept, they are used in place from the mapped file; the smaller
  // ones are copied (kInPlaceMinBytes).
  spec.n_ff = 16384;
  const std::string path = temp_path("owned.gguf");
  ASSERT_TRUE(test::write_random_llama(path, spec).ok());
  auto file = GgufFile::open(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  // The 2-D weights but token_embd; of them, what a kept copy allocates on the device: Q, K and V
  // (joined by the loader into one weight a layer) and the weights too small to use in place.
  uint64_t owned_bytes = 0, allocated_when_kept = 0, in_place_bytes = 0;
  for (const GgufTensorInfo& t : file.value()->tensors()) {
    if (t.n_dims != 2 || t.name == "token_embd.weight") continue;
    owned_bytes += t.bytes;
    bool joined = false;
    for (const char* part : {".attn_q.weight", ".attn_k.weight", ".attn_v.weight"})
      joined = joined || t.name.find(part) != std::string::npos;
    if (joined || t.bytes < kInPlaceMinBytes) {
      allocated_when_kept += t.bytes;
    } else {
      in_place_bytes += t.bytes;
    }
  }
  ASSERT_GT(in_place_bytes, 0u);
  ASSERT_GT(allocated_when_kept, 0u);

  struct Run {
    BackendMemoryStats loaded;
    std::vector<float> prompt_logits, step_logits;
  };
  auto run = [&](bool keep_plain, Run& out) {
    auto device = create_backend(EngineOptions{});
    ASSERT_TRUE(device.ok()) << device.status().to_string();
    ASSERT_EQ(device.value()->name().rfind("opencl:", 0), 0u) << device.value()->description();
    ModelOptions lo;
    lo.n_ctx = 128;
    lo.keep_plain_weights = keep_plain;
    auto model = LlamaModel::load(file.value(), *device.value(), lo);
    ASSERT_TRUE(model.ok()) << model.status().to_string();
    out.loaded = device.value()->memory_stats();
    ASSERT_TRUE(model.value()->forward({1, 40, 41, 42, 43, 44}, 0, false, out.prompt_logits).ok());
    ASSERT_TRUE(model.value()->forward({45}, 6, false, out.step_logits).ok());
  };
  Run kept, freed;
  run(true, kept);
  if (HasFatalFailure()) return;
  run(false, freed);
  if (HasFatalFailure()) return;

  EXPECT_EQ(kept.loaded.plain_freed_bytes, 0u);
  EXPECT_EQ(freed.loaded.plain_freed_bytes, owned_bytes);
  EXPECT_EQ(kept.loaded.live_bytes, freed.loaded.live_bytes + owned_bytes);
  // The spoofed device is PoCL's, which shares host memory: the kept plain copies of the large
  // weights are the file's mapped pages used in place (not device allocations).
  EXPECT_EQ(kept.loaded.allocated_bytes, freed.loaded.allocated_bytes + allocated_when_kept);
  EXPECT_EQ(freed.prompt_logits, kept.prompt_logits);
  EXPECT_EQ(freed.step_logits, kept.step_logits);
}

// The real SmolLM2 file, as shipped (Q4_1) and re-quantized to Q4_0 by the test.
void real_model_greedy(const std::string& path, const char* suffix) {
  auto file = GgufFile::open(path);
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  auto tokenizer = Tokenizer::from_gguf(*file.value());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().to_string();
  Loaded m;
  load_both(path, m);
  if (::testing::Test::HasFatalFailure()) return;
  kernel_names(*m.device);
  auto ids = tokenizer.value()->encode("The capital of France is", tokenizer.value()->add_bos_default(), true);
  ASSERT_TRUE(ids.ok());
  const auto want = greedy(*m.cpu_model, ids.value(), 12);
  const auto got = greedy(*m.dev_model, ids.value(), 12);
  ASSERT_EQ(want.size(), 12u);
  EXPECT_EQ(got, want) << "cpu:    " << tokenizer.value()->decode(want) << "\ndevice: " << tokenizer.value()->decode(got);
  const auto names = kernel_names(*m.device);
  EXPECT_TRUE(names.count(std::string("adreno_gemv_") + suffix)) << joined(names);
  EXPECT_TRUE(names.count(std::string("adreno_gemm_") + suffix)) << joined(names);
}

std::string real_model_path() {
  const char* env = std::getenv("CLPORT_TEST_MODEL");
  return env != nullptr ? env : "";
}

TEST(AdrenoRealModel, SmolLM2Q4_1GreedyMatchesCpu) {
  const std::string path = real_model_path();
  ASSERT_FALSE(path.empty()) << "CLPORT_TEST_MODEL is not set";
  real_model_greedy(path, "q4_1");
}

TEST(AdrenoRealModel, SmolLM2RequantizedToQ4_0GreedyMatchesCpu) {
  const std::string path = real_model_path();
  ASSERT_FALSE(path.empty()) << "CLPORT_TEST_MODEL is not set";
  const std::string q4_0 = temp_path("smollm2_q4_0.gguf");
  auto report = requantize_gguf(path, q4_0, DType::Q4_0);
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  real_model_greedy(q4_0, "q4_0");
  std::filesystem::remove(q4_0);
}

}  // namespace
}  // namespace clport
