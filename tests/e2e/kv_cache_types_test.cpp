// Quantized KV caches on a whole model (a small random llama the suite writes, head size 64,
// grouped-query attention): the logits along one fixed token sequence (an 11-token prompt over
// two batches, then eight single-token steps) with Q8_0 / Q4_0 / mixed K and V types.
//  - On the CPU reference, Q8_0 K+V against F16 K+V: within the bound measured below, and not
//    equal (the cache really is rounded to 8 bits).
//  - On the OpenCL generic plugin (float activations), each type against the CPU reference with
//    the same cache types: within the float bound of the F16 comparisons (1e-6): both quantize
//    the same values with the same rounding and read the same blocks back (measured ~9e-14 for
//    every pair of types on PoCL). Greedy tokens equal.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/engine_core.h"
#include "gguf/gguf.h"
#include "common/nmse.h"
#include "model_compare.h"

namespace clport {
namespace {

// The fixed sequence's logits: the prompt's (every position), then one step per token.
std::vector<std::vector<float>> sequence_logits(LlamaModel& model) {
  std::vector<std::vector<float>> out(1);
  EXPECT_TRUE(model.forward(test::compare_prompt(), 0, true, out[0]).ok());
  auto n_past = static_cast<uint32_t>(test::compare_prompt().size());
  for (int32_t token : {5, 280, 17, 265, 40, 299, 3, 120}) {
    out.emplace_back();
    EXPECT_TRUE(model.forward({token}, n_past++, false, out.back()).ok());
  }
  return out;
}

// The largest NMSE of any step of b against a.
double worst_nmse(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0.0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    EXPECT_EQ(a[i].size(), b[i].size());
    worst = std::max(worst, nmse(a[i].data(), b[i].data(), std::min(a[i].size(), b[i].size())));
  }
  return worst;
}

ModelOptions kv_options(KvCacheType k, KvCacheType v) {
  ModelOptions o = test::small_options(true);
  o.kv_type_k = k;
  o.kv_type_v = v;
  return o;
}

class KvCacheTypes : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    test::RandomModelSpec spec;  // llama, Q8_0 weights, 4 heads of 64, 2 KV heads
    path_ = new std::filesystem::path(test::write_temp_model(spec, "kvtypes"));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove(*path_);
    delete path_;
  }
  static std::shared_ptr<GgufFile> file() {
    auto f = GgufFile::open(path_->string());
    EXPECT_TRUE(f.ok()) << f.status().to_string();
    return f.ok() ? f.value() : nullptr;
  }
  static std::vector<std::vector<float>> run(Backend& backend, KvCacheType k, KvCacheType v) {
    auto model = LlamaModel::load(file(), backend, kv_options(k, v));
    EXPECT_TRUE(model.ok()) << model.status().to_string();
    if (!model.ok()) return {};
    return sequence_logits(*model.value());
  }
  static std::filesystem::path* path_;
};
std::filesystem::path* KvCacheTypes::path_ = nullptr;

TEST_F(KvCacheTypes, Q8CacheOnTheCpuReferenceStaysCloseToF16) {
  // Measured on this model: Q8_0 K+V against F16 K+V, worst step NMSE 1.9e-5 (Q8_0's
  // per-element error, ~5e-5 of the values' power, reaches the logits damped by the softmax and
  // the residual stream). 1e-4 leaves 5x room for other seeds or compilers; a misread cache (a
  // nibble order, a scale) gives NMSE near 1.
  auto cpu = make_cpu_backend();
  const auto f16 = run(*cpu, KvCacheType::F16, KvCacheType::F16);
  const auto q8 = run(*cpu, KvCacheType::Q8_0, KvCacheType::Q8_0);
  const double e = worst_nmse(f16, q8);
  EXPECT_LT(e, 1e-4);
  EXPECT_GT(e, 0.0) << "a Q8_0 cache that rounds nothing was not quantized";
  // Q4_0: coarser (~1e-2 per element); measured worst 5.0e-3, bound 4x.
  EXPECT_LT(worst_nmse(f16, run(*cpu, KvCacheType::Q4_0, KvCacheType::Q4_0)), 2e-2);
}

TEST_F(KvCacheTypes, DeviceMatchesTheCpuReferenceForEachCacheType) {
  EngineOptions options;
  const std::string policy = path_->string() + ".yaml";
  test::write_activation_policy(policy, false);  // float activations: the exact reference applies
  options.config_path = policy;
  auto device = create_backend(options);
  std::filesystem::remove(policy);
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  ASSERT_EQ(device.value()->name().rfind("opencl:", 0), 0u) << "no OpenCL device backend";
  auto cpu = make_cpu_backend();
  const std::pair<KvCacheType, KvCacheType> types[] = {
      {KvCacheType::Q8_0, KvCacheType::Q8_0}, {KvCacheType::Q4_0, KvCacheType::Q4_0}, {KvCacheType::Q8_0, KvCacheType::F16}, {KvCacheType::F32, KvCacheType::Q4_0}};
  for (const auto& [k, v] : types) {
    const std::string name = std::string(kv_cache_type_name(k)) + "/" + std::string(kv_cache_type_name(v));
    const auto want = run(*cpu, k, v);
    const auto got = run(*device.value(), k, v);
    EXPECT_LT(worst_nmse(want, got), 1e-6) << name;
    auto dev_model = LlamaModel::load(file(), *device.value(), kv_options(k, v));
    auto cpu_model = LlamaModel::load(file(), *cpu, kv_options(k, v));
    ASSERT_TRUE(dev_model.ok() && cpu_model.ok()) << name;
    EXPECT_EQ(test::greedy(*dev_model.value(), 8), test::greedy(*cpu_model.value(), 8)) << name;
  }
  // Unfused (RoPE, COPY into the cache, ATTENTION as separate ops) against fused, Q8_0.
  ModelOptions unfused = kv_options(KvCacheType::Q8_0, KvCacheType::Q8_0);
  unfused.fusion = false;
  auto plain = LlamaModel::load(file(), *device.value(), unfused);
  ASSERT_TRUE(plain.ok()) << plain.status().to_string();
  EXPECT_LT(worst_nmse(run(*cpu, KvCacheType::Q8_0, KvCacheType::Q8_0), sequence_logits(*plain.value())), 1e-6) << "unfused";
}

}  // namespace
}  // namespace clport
