// --check-layers (compare_layers) when the two models step through the prompt in different
// batches, as a GPU (512 tokens a step) and the CPU reference (64) do: every token's rows are
// compared, in order, whatever the steps.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "backend/backend.h"
#include "gguf/gguf.h"
#include "engine/model_checks.h"
#include "random_model.h"

namespace clport {
namespace {

TEST(LayerCheck, ModelsWithDifferentBatchesAgreeOnEveryLayer) {
  const auto path = std::filesystem::temp_directory_path() / ("clport_layer_check_" + std::to_string(::getpid()) + ".gguf");
  test::RandomModelSpec spec;
  ASSERT_TRUE(test::write_random_llama(path.string(), spec).ok());
  auto opened = GgufFile::open(path.string());
  ASSERT_TRUE(opened.ok()) << opened.status().to_string();
  std::shared_ptr<GgufFile> file = std::move(opened.value());
  std::filesystem::remove(path);

  auto cpu = make_cpu_backend(1);
  ModelOptions wide, narrow;
  wide.n_ctx = narrow.n_ctx = 64;
  wide.n_batch = 16;  // the 13-token prompt in one step
  narrow.n_batch = 4;  // four steps, the last of one token
  auto model = LlamaModel::load(file, *cpu, wide);
  auto reference = LlamaModel::load(file, *cpu, narrow);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  ASSERT_TRUE(reference.ok()) << reference.status().to_string();

  const std::vector<int32_t> prompt = {5, 17, 42, 8, 99, 150, 3, 77, 201, 12, 64, 250, 31};
  auto report = compare_layers(*model.value(), *reference.value(), prompt, 0, 1e-9);
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  EXPECT_EQ(report->first_bad_layer, -1);
  ASSERT_EQ(report->layers.size(), spec.n_layer + 1u);  // every layer and the final norm
  // The same backend and file: the rows agree to rounding, token for token.
  for (const auto& d : report->layers) EXPECT_LE(d.nmse, 1e-9) << "layer " << d.layer;
}

}  // namespace
}  // namespace clport
