// The device path against the CPU reference on small random-weight models the suite writes
// itself: every weight dtype, tied and untied output, grouped-query attention; prompt (GEMM
// path) and single-token steps (GEMV path) compared by NMSE of the logits. Each case runs on
// float activations (policy `precision: fp32`) against the exact reference; the dtypes with an
// integer GEMV also run on 8-bit activations (generic `int_dot: on`) against the reference that
// rounds activations the same way (tests/common/activation_policy.h says how close).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "engine/engine_core.h"
#include "gguf/gguf.h"
#include "common/nmse.h"
#include "activation_policy.h"
#include "random_model.h"

namespace clport {
namespace {

struct Case {
  DType dtype;
  bool tied;
  bool packed = false;  // the generic plugin's opt-in packed GEMV layout (gemv_packed: 1)
  bool fusion = true;   // ModelOptions::fusion
  std::optional<DType> v_dtype = std::nullopt;  // attn_v in another dtype
  bool integer = false;  // 8-bit activations (the integer GEMV) instead of float ones
};

// The weight dtypes the generic plugin's integer GEMV serves (kernels/mul_mat_gemv_q8a.cl).
bool has_integer_gemv(DType d) {
  return d == DType::Q4_0 || d == DType::Q4_1 || d == DType::Q5_0 || d == DType::Q5_1 || d == DType::Q8_0 ||
         d == DType::Q4_K || d == DType::Q5_K || d == DType::Q6_K;
}

// Those of them a CPU device repacks eight rows at a time (q8a_x8, kernels/mul_mat_gemv_q8a_x8.cl).
bool has_rows8_layout(DType d) {
  return d == DType::Q4_0 || d == DType::Q4_1 || d == DType::Q5_0 || d == DType::Q5_1 || d == DType::Q8_0 ||
         d == DType::Q4_K || d == DType::Q6_K;
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  return std::string(dtype_name(info.param.dtype)) + (info.param.tied ? "_tied" : "_untied") +
         (info.param.packed ? "_packed" : "") + (info.param.fusion ? "" : "_unfused") +
         (info.param.v_dtype ? "_v_" + std::string(dtype_name(*info.param.v_dtype)) : "") +
         (info.param.integer ? "_int8" : "");
}

class DeviceVsCpu : public testing::TestWithParam<Case> {};

TEST_P(DeviceVsCpu, LogitsMatchCpuReference) {
  const Case c = GetParam();
  const auto path = std::filesystem::temp_directory_path() /
                    ("clport_e2e_" + std::string(dtype_name(c.dtype)) + (c.tied ? "_t" : "_u") +
                     std::to_string(::getpid()) + ".gguf");
  test::RandomModelSpec spec;
  spec.weight_dtype = c.dtype;
  spec.tied_output = c.tied;
  spec.attn_v_dtype = c.v_dtype;
  ASSERT_TRUE(test::write_random_llama(path.string(), spec).ok());
  auto file = GgufFile::open(path.string());
  ASSERT_TRUE(file.ok()) << file.status().to_string();

  EngineOptions options;  // device "auto": the best OpenCL device here (PoCL in CI)
  const auto policy = std::filesystem::path(path.string() + ".yaml");
  test::write_activation_policy(policy.string(), c.integer, c.packed);
  options.config_path = policy.string();
  options.profiling = true;  // the kernel names show which GEMV kernels ran
  auto device = create_backend(options);
  std::filesystem::remove(policy);
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  // A silent CPU fallback would make this test compare the CPU with itself.
  ASSERT_EQ(device.value()->name().rfind("opencl:", 0), 0u)
      << "no OpenCL device backend: " << device.value()->description();
  (void)device.value()->take_timings();  // the driver self-test's kernels are not the model's
  auto cpu = make_cpu_backend(0, c.integer);

  ModelOptions lo;
  lo.n_ctx = 64;
  lo.n_batch = 8;  // the 11-token prompt spans two batches
  lo.fusion = c.fusion;
  auto dev_model = LlamaModel::load(file.value(), *device.value(), lo);
  ASSERT_TRUE(dev_model.ok()) << dev_model.status().to_string();
  auto cpu_model = LlamaModel::load(file.value(), *cpu, lo);
  ASSERT_TRUE(cpu_model.ok()) << cpu_model.status().to_string();

  const std::vector<int32_t> prompt{1, 260, 70, 261, 100, 262, 33, 263, 264, 120, 299};
  std::vector<float> got, want;
  ASSERT_TRUE(dev_model.value()->forward(prompt, 0, true, got).ok());
  ASSERT_TRUE(cpu_model.value()->forward(prompt, 0, true, want).ok());
  ASSERT_EQ(got.size(), want.size());
  const double bound = c.integer ? test::kIntegerPathLogitNmse : 1e-6;
  EXPECT_LT(nmse(want.data(), got.data(), want.size()), bound) << "prompt logits";

  uint32_t n_past = static_cast<uint32_t>(prompt.size());
  for (int32_t token : {5, 280, 17, 265}) {
    ASSERT_TRUE(dev_model.value()->forward({token}, n_past, false, got).ok());
    ASSERT_TRUE(cpu_model.value()->forward({token}, n_past, false, want).ok());
    EXPECT_LT(nmse(want.data(), got.data(), want.size()), bound) << "decode step at " << n_past;
    ++n_past;
  }
  // The decode step's plan on the generic plugin: fused patterns where claimed, 5 ops per layer
  // with joined Q/K/V (norm+QKV, RoPE+KV store+attention, output+residual, norm+gate/up+SwiGLU,
  // down+residual; 7 when V has another dtype) and at most 4 outside the layers.
  const LlamaModel::PlanSummary decode = dev_model.value()->decode_plan_summary();
  const int layers = static_cast<int>(spec.n_layer);
  // The policy's generic settings (gemv_packed, int_dot) apply where generic is the only plugin;
  // a vendor plugin ahead of it (a spoofed identity, the nvidia plugin on an NVIDIA GPU) keeps
  // its own layout.
  const bool generic_only = device.value()->description().find("plugins: generic") != std::string::npos;
  if (!c.fusion || (c.packed && generic_only)) {
    // Packed weights keep their plain mat-muls; only the RoPE + KV store + attention fusion remains.
    EXPECT_EQ(decode.fused_nodes, c.fusion ? layers : 0) << "nodes " << decode.nodes;
  } else {
    EXPECT_GT(decode.fused_nodes, 0);
    EXPECT_LE(decode.nodes, (c.v_dtype ? 7 : 5) * layers + 4) << "fused " << decode.fused_nodes;
  }
  bool packed_gemv_ran = false, integer_gemv_ran = false, rows8_gemv_ran = false;
  for (const auto& t : device.value()->take_timings()) {
    packed_gemv_ran = packed_gemv_ran || t.name.rfind("mul_mat_gemv_packed_", 0) == 0;
    const bool rows8 = t.name.rfind("mul_mat_gemv_x8", 0) == 0;
    rows8_gemv_ran = rows8_gemv_ran || rows8;
    integer_gemv_ran = integer_gemv_ran || rows8 || t.name.rfind("mul_mat_gemv_q8", 0) == 0;
  }
  if (c.packed && generic_only) {
    EXPECT_TRUE(packed_gemv_ran) << "gemv_packed: 1 was set, yet no packed GEMV kernel ran";
  }
  if (generic_only) {
    EXPECT_EQ(integer_gemv_ran, c.integer) << "int_dot: " << c.integer;
    // On a CPU device (PoCL in CI) the integer path repacks these dtypes eight rows at a time.
    const bool cpu_device = device.value()->description().find("pthread") != std::string::npos;
    if (cpu_device && c.integer && has_rows8_layout(c.dtype)) {
      EXPECT_TRUE(rows8_gemv_ran) << "q8a_x8 is on for CPU devices, yet no x8 GEMV kernel ran";
    }
  }
  std::filesystem::remove(path);
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (DType d : kWeightDTypes) cases.push_back({d, true});
  cases.push_back({DType::Q4_0, false});
  cases.push_back({DType::F16, false});
  for (DType d : {DType::Q4_0, DType::Q4_1, DType::Q8_0}) cases.push_back({d, true, true});
  cases.push_back({DType::Q4_1, false, true});
  for (DType d : {DType::Q4_0, DType::Q6_K, DType::F16}) cases.push_back({d, true, false, false});
  cases.push_back({DType::Q4_K, true, false, true, DType::Q6_K});
  cases.push_back({DType::Q4_K, true, false, false, DType::Q6_K});
  cases.push_back({DType::Q3_K, true, false, true, DType::Q5_K});  // as Q3_K_M files mix them
  const size_t float_cases = cases.size();
  for (size_t i = 0; i < float_cases; ++i) {
    Case c = cases[i];
    if (!has_integer_gemv(c.dtype) || c.packed || (c.v_dtype && !has_integer_gemv(*c.v_dtype))) continue;
    c.integer = true;
    cases.push_back(c);
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EveryDtype, DeviceVsCpu, testing::ValuesIn(all_cases()), case_name);

TEST(ModelRefusal, UnsupportedArchitectureIsAClearError) {
  GgufWriter w;
  w.set_string("general.architecture", "mamba");
  auto bytes = w.to_bytes();
  ASSERT_TRUE(bytes.ok());
  auto file = GgufFile::open_memory(bytes.value().data(), bytes.value().size());
  ASSERT_TRUE(file.ok());
  auto hp = read_llama_hparams(*file.value());
  ASSERT_FALSE(hp.ok());
  EXPECT_NE(hp.status().message().find("architecture 'mamba' is not supported"), std::string::npos)
      << hp.status().message();
}

TEST(ModelRefusal, MissingTensorIsNamedBeforeAnyUpload) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("clport_e2e_missing" + std::to_string(::getpid()) + ".gguf");
  test::RandomModelSpec spec;
  spec.n_layer = 1;
  ASSERT_TRUE(test::write_random_llama(path.string(), spec).ok());
  auto full = GgufFile::open(path.string());
  ASSERT_TRUE(full.ok());
  // Rewrite without one layer tensor.
  GgufWriter w;
  for (const auto& kv : full.value()->metadata()) w.set_value(std::string(kv.key), kv.value);
  for (const auto& t : full.value()->tensors()) {
    if (t.name == "blk.0.ffn_up.weight") continue;
    std::vector<int64_t> ne(t.ne.begin(), t.ne.begin() + t.n_dims);
    ASSERT_TRUE(w.add_tensor_view(t.name, t.dtype, ne, t.data, t.bytes).ok());
  }
  ASSERT_TRUE(w.write(path.string()).ok());
  auto file = GgufFile::open(path.string());
  ASSERT_TRUE(file.ok());
  auto cpu = make_cpu_backend();
  auto model = LlamaModel::load(file.value(), *cpu, ModelOptions{});
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("blk.0.ffn_up.weight"), std::string::npos)
      << model.status().message();
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace clport
