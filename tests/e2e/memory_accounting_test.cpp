// The memory a loaded model holds, as the accounting reports it (LlamaModel::memory), checked
// against what the backend allocated: on the OpenCL device (PoCL here, generic plugin), the
// weights' eight-row layouts are their only copy (no "device copy" left, the plain copies
// counted as freed), and the bytes the backend allocated are exactly the layouts, the KV cache,
// the activations and the plugins' scratch, each counted at its own source. The plugins declare
// their scratch before anything is placed, and the memory limit counts it: the limit refuses a
// load that would not fit before anything is allocated, naming what would.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <unistd.h>

#include "engine/engine_core.h"
#include "gguf/gguf.h"
#include "report/report.h"
#include "activation_policy.h"
#include "model/activation_arena.h"
#include "random_model.h"
#include "scoped_env.h"

namespace clport {
namespace {

class MemoryAccounting : public testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() / ("clport_memory_" + std::to_string(::getpid()) + ".gguf")).string();
    test::RandomModelSpec spec;
    spec.weight_dtype = DType::Q4_0;  // a dtype the eight-row layout covers
    spec.tied_output = true;          // the embedding is also the output projection
    ASSERT_TRUE(test::write_random_llama(path_, spec).ok());
    auto file = GgufFile::open(path_);
    ASSERT_TRUE(file.ok()) << file.status().to_string();
    file_ = file.value();
    spec_ = spec;
  }
  void TearDown() override { std::filesystem::remove(path_); }

  // The OpenCL device backend with 8-bit activations (the integer path, whose CPU-device layout
  // owns its weights).
  std::unique_ptr<Backend> device_backend() {
    EngineOptions options;
    const std::string policy = path_ + ".yaml";
    test::write_activation_policy(policy, /*integer=*/true, /*packed=*/false);
    options.config_path = policy;
    auto device = create_backend(options);
    std::filesystem::remove(policy);
    EXPECT_TRUE(device.ok()) << device.status().to_string();
    if (!device.ok()) return nullptr;
    EXPECT_EQ(device.value()->name().rfind("opencl:", 0), 0u) << device.value()->description();
    return std::move(device.value());
  }

  // A context of 64 and prompt batches of 8 on the device.
  static ModelOptions device_options() {
    ModelOptions lo;
    lo.n_ctx = 64;
    lo.n_batch = 8;
    return lo;
  }

  static uint64_t sum(const std::vector<NamedBytes>& list) {
    uint64_t total = 0;
    for (const NamedBytes& n : list) total += n.bytes;
    return total;
  }
  static uint64_t named(const std::vector<NamedBytes>& list, const std::string& name) {
    for (const NamedBytes& n : list)
      if (n.name == name) return n.bytes;
    return 0;
  }

  uint64_t expected_kv(uint32_t n_ctx) const {
    const uint64_t head_dim = spec_.n_embd / spec_.n_head;
    return uint64_t{spec_.n_layer} * n_ctx * spec_.n_head_kv * head_dim * 2 /* K, V */ * 2 /* f16 */;
  }

  // The model on the CPU reference backend (cpu_), with a context of n_ctx and batches of 4.
  Result<std::unique_ptr<LlamaModel>> load_on_cpu(uint32_t n_ctx, uint64_t memory_limit = 0) {
    lo_.n_ctx = n_ctx;
    lo_.n_batch = 4;
    lo_.memory_limit_bytes = memory_limit;
    return LlamaModel::load(file_, *cpu_, lo_);
  }

  std::string path_;
  std::shared_ptr<GgufFile> file_;
  std::unique_ptr<Backend> cpu_ = make_cpu_backend(1, false);
  ModelOptions lo_;
  test::RandomModelSpec spec_;
};

TEST_F(MemoryAccounting, OnTheDeviceEveryWeightHasOneCopyAndTheAllocationsAddUp) {
  auto device = device_backend();
  ASSERT_NE(device, nullptr);
  ModelOptions lo = device_options();
  auto model = LlamaModel::load(file_, *device, lo);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  // The load prepared the full-batch prompt plan and the decode plan, so the plugins' scratch
  // (the generic plugin's quantized activation rows on a CPU device) was allocated then: running
  // out of memory for it is an error at load. A prompt of another length and a decode step take
  // no more.
  const ModelMemory at_load = model.value()->memory();
  EXPECT_GT(sum(at_load.plugin_scratch), 0u) << model_memory_text(at_load);
  std::vector<float> logits;
  ASSERT_TRUE(model.value()->forward({1, 260, 70, 261, 100}, 0, false, logits).ok());
  ASSERT_TRUE(model.value()->forward({5}, 5, false, logits).ok());

  const ModelMemory m = model.value()->memory();
  EXPECT_EQ(sum(m.plugin_scratch), sum(at_load.plugin_scratch)) << model_memory_text(m);
  // The repacked layouts (the generic plugin's eight-row one on a CPU device, the nvidia
  // plugin's packed one on an NVIDIA GPU) hold every mat-mul weight, the tied embedding
  // included; only the norms stay in the file's layout (device copies: too small to use in place
  // from the mapped file, memory/file_pages.h).
  uint64_t layouts = 0;
  for (const NamedBytes& w : m.weights)
    if (w.name.size() > 7 && w.name.compare(w.name.size() - 7, 7, " layout") == 0) layouts += w.bytes;
  EXPECT_GT(layouts, 0u) << model_memory_text(m);
  EXPECT_GT(m.plain_freed_bytes, 0u);
  EXPECT_LT(named(m.weights, "device copy") + named(m.weights, "file mapping"), layouts / 10) << model_memory_text(m);
  EXPECT_EQ(m.kv_cache_bytes, expected_kv(lo.n_ctx));
  EXPECT_GT(m.activation_bytes, 0u);
  // Each part counted where it is made; together they are what the device allocated.
  const uint64_t device_weights = m.weight_bytes() - named(m.weights, "file mapping");
  EXPECT_EQ(m.allocated_bytes, device_weights + m.kv_cache_bytes + m.activation_bytes + sum(m.plugin_scratch));
}

TEST_F(MemoryAccounting, OnTheDevicePluginScratchIsDeclaredBeforeTheLoadAndNeverOutgrown) {
  // The driver self-test (forced, as on a first start or a new driver) runs its small cases
  // before the model loads: the scratch they grow must not stay in the instances the model runs on.
  std::unique_ptr<Backend> device;
  {
    testing_env::ScopedEnv first_start{{"CLPORT_SELF_TEST", "force"}};
    device = device_backend();
  }
  ASSERT_NE(device, nullptr);
  ModelOptions lo = device_options();
  auto model = LlamaModel::load(file_, *device, lo);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const std::vector<NamedBytes> declared = model.value()->memory().plugin_scratch_declared;
  ASSERT_FALSE(declared.empty()) << "the generic plugin's integer path quantizes activations into scratch";
  for (const NamedBytes& n : declared) EXPECT_GT(n.bytes, 0u) << n.name;
  // Prompts of every length up to the batch and decode steps deep into the context: each plugin
  // holds at most what it declared (a buffer is allocated once, at its declared size).
  std::vector<float> logits;
  for (uint32_t n = 1; n <= lo.n_batch; ++n) {
    ASSERT_TRUE(model.value()->forward(std::vector<int32_t>(n, 7), 0, false, logits).ok()) << n << " tokens";
  }
  for (uint32_t past = 8; past < lo.n_ctx; past += 9) ASSERT_TRUE(model.value()->forward({9}, past, false, logits).ok());
  const ModelMemory m = model.value()->memory();
  ASSERT_FALSE(m.plugin_scratch.empty()) << model_memory_text(m);
  for (const NamedBytes& held : m.plugin_scratch) {
    uint64_t planned = 0;
    for (const NamedBytes& n : declared)
      if (n.name.rfind(held.name + ": ", 0) == 0) planned += n.bytes;
    EXPECT_LE(held.bytes, planned) << held.name << "\n" << model_memory_text(m);
    EXPECT_GT(held.bytes, 0u) << held.name;
  }

  // The memory limit counts the declared scratch: the rest of the estimate alone is refused.
  auto estimate = estimate_load(*file_, lo, *device);
  ASSERT_TRUE(estimate.ok()) << estimate.status().to_string();
  const uint64_t without_scratch = estimate.value().total();
  model.value().reset();
  lo.memory_limit_bytes = without_scratch + sum(declared) - 1;
  auto refused = LlamaModel::load(file_, *device, lo);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().stage(), Stage::OutOfMemory);
  EXPECT_NE(refused.status().message().find("plugin scratch"), std::string::npos) << refused.status().message();
  lo.memory_limit_bytes = without_scratch + sum(declared);
  auto fits = LlamaModel::load(file_, *device, lo);
  EXPECT_TRUE(fits.ok()) << fits.status().to_string();
}

TEST_F(MemoryAccounting, OnTheCpuPathWeightsAreTheFileMappingAndAllocationsAreKvAndActivations) {
  auto model = load_on_cpu(32);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const ModelMemory m = model.value()->memory();
  ASSERT_EQ(m.weights.size(), 1u);
  EXPECT_EQ(m.weights[0].name, "file mapping");
  EXPECT_EQ(m.kv_cache_bytes, expected_kv(32));
  EXPECT_EQ(m.allocated_bytes, m.kv_cache_bytes + m.activation_bytes);
  // The estimate made before loading (`clport info`, the memory limit) is what the load took,
  // but for the activations: it bounds them as if each had bytes of its own, and the arena
  // placed by lifetimes needs less.
  auto estimate = estimate_load(*file_, lo_, *cpu_);
  ASSERT_TRUE(estimate.ok()) << estimate.status().to_string();
  EXPECT_EQ(estimate.value().weights, m.weight_bytes());
  EXPECT_EQ(estimate.value().kv_cache, m.kv_cache_bytes);
  EXPECT_LT(m.activation_bytes, estimate.value().activations);
}

TEST_F(MemoryAccounting, ActivationsWhoseLifetimesDoNotOverlapShareTheArena) {
  auto model = load_on_cpu(32);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  // Loading sized the arena for a prompt batch with one row of logits; the decode step fits in it.
  const uint64_t at_load = model.value()->memory().activation_bytes;
  std::vector<float> logits;
  ASSERT_TRUE(model.value()->forward({1, 2, 3, 4, 5}, 0, false, logits).ok());
  EXPECT_EQ(model.value()->memory().activation_bytes, at_load);
  // The estimate gives every activation bytes of its own; the arena saves at least one [n_ff, 4]
  // buffer's worth (attention's activations and the FFN's never live at once).
  auto estimate = estimate_load(*file_, lo_, *cpu_);
  ASSERT_TRUE(estimate.ok()) << estimate.status().to_string();
  const uint64_t ffn_buffer = uint64_t{spec_.n_ff} * 4 * sizeof(float);
  EXPECT_LE(at_load + ffn_buffer, estimate.value().activations) << "too little shares bytes";
  // Every row's logits (perplexity) fit in what the FFN left: the vocabulary is small here.
  std::vector<float> all;
  ASSERT_TRUE(model.value()->forward({1, 2, 3, 4}, 0, true, all).ok());
  EXPECT_LE(model.value()->memory().activation_bytes, at_load + uint64_t{3} * spec_.n_vocab * sizeof(float));
  std::vector<float> last;
  ASSERT_TRUE(model.value()->forward({1, 2, 3, 4}, 0, false, last).ok());
  ASSERT_EQ(all.size(), 4 * last.size());
  for (size_t i = 0; i < last.size(); ++i) ASSERT_EQ(all[3 * last.size() + i], last[i]) << "logit " << i;
}

TEST_F(MemoryAccounting, APlanThatNeedsMoreGrowsTheArenaAndTheOtherPlansFollow) {
  // A vocabulary much larger than the FFN: every row's logits need more than the load sized.
  test::RandomModelSpec spec;
  spec.n_vocab = 8192;
  const std::string path = path_ + ".large-vocab.gguf";
  ASSERT_TRUE(test::write_random_llama(path, spec).ok());
  auto file = GgufFile::open(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  lo_.n_ctx = 32;
  lo_.n_batch = 4;
  auto model = LlamaModel::load(file.value(), *cpu_, lo_);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const uint64_t at_load = model.value()->memory().activation_bytes;
  std::vector<float> before, all, after;
  ASSERT_TRUE(model.value()->forward({5, 6, 7, 8}, 0, false, before).ok());
  ASSERT_TRUE(model.value()->forward({5, 6, 7, 8}, 0, true, all).ok());
  const uint64_t grown = model.value()->memory().activation_bytes;
  EXPECT_GE(grown, at_load + uint64_t{3} * spec.n_vocab * sizeof(float)) << "four rows of logits where there was one";
  EXPECT_EQ(cpu_->memory_stats().allocated_bytes, model.value()->memory().allocated_bytes)
      << "the old arena was freed";
  // The plan built before the growth was rebuilt on the new arena: same logits.
  ASSERT_TRUE(model.value()->forward({5, 6, 7, 8}, 0, false, after).ok());
  EXPECT_EQ(before, after);
  ASSERT_EQ(all.size(), 4 * after.size());
  for (size_t i = 0; i < after.size(); ++i) ASSERT_EQ(all[3 * after.size() + i], after[i]) << "logit " << i;
}

TEST_F(MemoryAccounting, ALoadOverTheLimitIsRefusedBeforeAnythingIsAllocated) {
  auto fits = load_on_cpu(128);
  ASSERT_TRUE(fits.ok()) << fits.status().to_string();
  const ModelMemory m = fits.value()->memory();
  fits.value().reset();
  // The limit is checked against the estimate, before anything is allocated.
  auto estimate = estimate_load(*file_, lo_, *cpu_);
  ASSERT_TRUE(estimate.ok()) << estimate.status().to_string();
  const uint64_t need = estimate.value().total();
  EXPECT_GE(need, m.weight_bytes() + m.kv_cache_bytes + m.activation_bytes);

  ASSERT_TRUE(load_on_cpu(128, need).ok()) << "exactly enough";
  const uint64_t before = cpu_->memory_stats().allocated_bytes;
  auto refused = load_on_cpu(128, need - m.kv_cache_bytes / 4);  // a quarter of the KV cache short
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().stage(), Stage::OutOfMemory);
  const std::string message = refused.status().message();
  EXPECT_NE(message.find("memory limit"), std::string::npos) << message;
  EXPECT_NE(message.find("(-c 96)"), std::string::npos) << "three quarters of the cache are 96 of 128 tokens: "
                                                         << message;
  // A q8_0 cache takes 34 / 64 of an f16 one: it fits in three quarters.
  EXPECT_NE(message.find("q8_0 KV cache"), std::string::npos) << message;
  EXPECT_EQ(cpu_->memory_stats().allocated_bytes, before) << "the refused load allocated memory";
}

}  // namespace
}  // namespace clport
