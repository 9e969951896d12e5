// Plan groups (Backend::prepare_group, the ABI's prepare_group): each layer's nodes are offered
// to the backend as one sequence; where the backend takes it, one launch runs the layer. A
// backend that wraps the CPU reference and runs a taken sequence op by op must give bit-identical
// logits, the layer hook must still see every layer, and --no-fusion offers nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "backend/backend.h"
#include "gguf/gguf.h"
#include "model/llama_model.h"
#include "random_model.h"

namespace clport {
namespace {

// The CPU reference with prepare_group: records each offered sequence and, when `take` is set,
// runs it as one launch (its ops in order through the reference).
class GroupingBackend final : public Backend {
 public:
  explicit GroupingBackend(bool take) : inner_(make_cpu_backend(1)), take_(take) {}

  std::vector<std::vector<clport_op_kind>> offered;
  int runs = 0;  // group launches run

  std::string name() const override { return "grouping:" + inner_->name(); }
  std::string description() const override { return "CPU reference taking plan groups"; }
  Result<TensorRef> alloc(DType dtype, std::array<int64_t, 4> ne) override { return inner_->alloc(dtype, ne); }
  Result<TensorRef> load_weight(const GgufTensorInfo& info, std::shared_ptr<void> keep_alive,
                                const WeightUse& use) override {
    return inner_->load_weight(info, std::move(keep_alive), use);
  }
  Status upload(const TensorRef& dst, const void* data, uint64_t bytes) override {
    return inner_->upload(dst, data, bytes);
  }
  Status download(const TensorRef& src, void* data, uint64_t bytes) override {
    return inner_->download(src, data, bytes);
  }
  Status run(clport_op_kind kind, const std::vector<const TensorRef*>& src, const TensorRef& dst,
             const cpu::OpParams& params) override {
    return inner_->run(kind, src, dst, params);
  }
  Status sync() override { return inner_->sync(); }
  BackendMemoryStats memory_stats() const override { return inner_->memory_stats(); }

  Result<std::unique_ptr<PreparedOp>> prepare_group(const std::vector<GroupOp>& ops) override {
    std::vector<clport_op_kind> kinds;
    for (const GroupOp& g : ops) kinds.push_back(g.kind);
    offered.push_back(kinds);
    if (!take_) return std::unique_ptr<PreparedOp>();
    auto sequence = std::make_unique<Sequence>(*this);
    for (const GroupOp& g : ops) {
      auto op = inner_->prepare(g.kind, g.src, *g.dst, g.params, g.dst_position_stride);
      if (!op.ok()) return op.status();
      sequence->ops.push_back(std::move(op.value()));
    }
    return std::unique_ptr<PreparedOp>(std::move(sequence));
  }

 private:
  struct Sequence final : public PreparedOp {
    explicit Sequence(GroupingBackend& o) : owner(o) {}
    Status run(uint32_t n_past) override {
      ++owner.runs;
      for (auto& op : ops) CLPORT_RETURN_IF_ERROR(op->run(n_past));
      return Status();
    }
    GroupingBackend& owner;
    std::vector<std::unique_ptr<PreparedOp>> ops;
  };

  std::unique_ptr<Backend> inner_;
  bool take_;
};

class PlanGroups : public testing::Test {
 protected:
  void SetUp() override {
    const auto path = std::filesystem::temp_directory_path() / ("clport_groups_" + std::to_string(::getpid()) + ".gguf");
    ASSERT_TRUE(test::write_random_llama(path.string(), spec_).ok());
    auto opened = GgufFile::open(path.string());
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    file_ = std::move(opened.value());
    std::filesystem::remove(path);
  }

  // Logits of a 5-token prompt and three single-token steps after it, concatenated.
  std::vector<float> generate(Backend& backend, bool fusion, LlamaModel::LayerHook hook = {}) {
    ModelOptions options;
    options.n_ctx = 64;
    options.fusion = fusion;
    auto model = LlamaModel::load(file_, backend, options);
    EXPECT_TRUE(model.ok()) << model.status().to_string();
    if (!model.ok()) return {};
    if (hook) model.value()->set_layer_hook(hook);
    std::vector<float> all, logits;
    EXPECT_TRUE(model.value()->forward({5, 17, 42, 8, 99}, 0, false, logits).ok());
    all.insert(all.end(), logits.begin(), logits.end());
    for (uint32_t step = 0; step < 3; ++step) {
      EXPECT_TRUE(model.value()->forward({static_cast<int32_t>(30 + step)}, 5 + step, false, logits).ok());
      all.insert(all.end(), logits.begin(), logits.end());
    }
    summary_ = model.value()->decode_plan_summary();
    return all;
  }

  test::RandomModelSpec spec_;
  std::shared_ptr<GgufFile> file_;
  LlamaModel::PlanSummary summary_;
};

TEST_F(PlanGroups, EachLayerIsOfferedAndATakenGroupGivesTheSameLogits) {
  auto reference = make_cpu_backend(1);
  const std::vector<float> want = generate(*reference, true);

  GroupingBackend grouping(true);
  const std::vector<float> got = generate(grouping, true);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(got, want);  // the same reference ops in the same order
  // Three plans, each offering every layer once: the full-batch prompt's and the one-token
  // decode step's, which the load prepares, and the 5-token prompt's.
  ASSERT_EQ(grouping.offered.size(), 3 * spec_.n_layer);
  for (const auto& kinds : grouping.offered) {
    EXPECT_GT(kinds.size(), 1u);
    EXPECT_EQ(kinds.front(), CLPORT_OP_RMS_NORM);  // a layer starts with its attention norm
  }
  EXPECT_EQ(grouping.runs, 4 * static_cast<int>(spec_.n_layer));  // one launch a layer a step
  EXPECT_EQ(summary_.grouped_runs, static_cast<int>(spec_.n_layer));
  const int per_layer = static_cast<int>(grouping.offered.back().size());
  EXPECT_EQ(summary_.launches, summary_.nodes - static_cast<int>(spec_.n_layer) * (per_layer - 1));
}

TEST_F(PlanGroups, AGroupTheBackendDeclinesRunsOpByOp) {
  auto reference = make_cpu_backend(1);
  const std::vector<float> want = generate(*reference, true);
  GroupingBackend declining(false);
  EXPECT_EQ(generate(declining, true), want);
  EXPECT_EQ(declining.offered.size(), 3 * spec_.n_layer);  // the plans of the test above
  EXPECT_EQ(declining.runs, 0);
  EXPECT_EQ(summary_.grouped_runs, 0);
  EXPECT_EQ(summary_.launches, summary_.nodes);
}

TEST_F(PlanGroups, NoFusionOffersNoGroup) {
  GroupingBackend grouping(true);
  generate(grouping, false);
  EXPECT_TRUE(grouping.offered.empty());
  EXPECT_EQ(grouping.runs, 0);
}

TEST_F(PlanGroups, TheLayerHookSeesEveryLayerAfterItsGroup) {
  auto reference = make_cpu_backend(1);
  std::vector<std::vector<float>> want_states, got_states;
  const auto recorder = [](Backend& b, std::vector<std::vector<float>>& states) {
    return [&b, &states](int, const TensorRef& hidden, int n_tokens) {
      std::vector<float> v(static_cast<size_t>(hidden.ne[0]) * n_tokens);
      CLPORT_RETURN_IF_ERROR(b.sync());
      CLPORT_RETURN_IF_ERROR(b.download(hidden, v.data(), v.size() * sizeof(float)));
      states.push_back(std::move(v));
      return Status();
    };
  };
  generate(*reference, true, recorder(*reference, want_states));
  GroupingBackend grouping(true);
  generate(grouping, true, recorder(grouping, got_states));
  EXPECT_GT(grouping.runs, 0);
  // Every layer and the final norm, for each of the four forward calls.
  ASSERT_EQ(got_states.size(), 4 * (spec_.n_layer + 1u));
  EXPECT_EQ(got_states, want_states);
}

}  // namespace
}  // namespace clport
