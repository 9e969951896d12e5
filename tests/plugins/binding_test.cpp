// Ranking and op-by-op binding with the fake plugins: probe scores, policy deny / force / prefer
// / deny_device, per-op fallback, CPU path, error translation, weight layouts.
#include <gtest/gtest.h>

#include "binding/binding.h"
#include "test_support.h"

namespace clport {
namespace {

using test::fake_device;
using test::MulMat;
using test::null_hosts;

PluginSearchOptions only(std::vector<std::string> paths) {
  PluginSearchOptions o;
  o.paths = std::move(paths);
  o.use_environment = false;
  o.use_default_dirs = false;
  return o;
}

DevicePolicy policy_from(const std::string& yaml, const DeviceInfo& device) {
  Policy p;
  Status st = p.add_layer(yaml, "test.yaml");
  EXPECT_TRUE(st.ok()) << st.to_string();
  return p.evaluate(device);
}

std::string served_by(const DeviceBinding& b, const clport_op& op) {
  const BoundInstance* inst = b.select(op);
  return inst ? inst->name() : "cpu";
}

clport_op unary(int32_t kind, clport_tensor* t) {
  clport_op op{};
  op.struct_size = sizeof(op);
  op.kind = kind;
  op.n_src = 1;
  op.src[0] = t;
  op.dst = t;
  return op;
}

class Binding : public ::testing::Test {
 protected:
  std::shared_ptr<PluginManager> manager =
      PluginManager::discover(only({FAKE_PLUGIN_fake_generic, FAKE_PLUGIN_fake_vendor, FAKE_PLUGIN_fake_second}));
  DeviceInfo adreno = fake_device("adreno", "QUALCOMM Adreno(TM) 740");
};

TEST_F(Binding, VendorServesItsOpsAndTheRestFallsBack) {
  auto b = DeviceBinding::create(*manager, adreno, policy_from("", adreno), null_hosts());
  ASSERT_TRUE(b->has_device());
  ASSERT_EQ(b->instances().size(), 3u);
  EXPECT_EQ(b->instances()[0]->name(), "fakevendor");  // 100
  EXPECT_EQ(b->instances()[1]->name(), "fakesecond");  // 60
  EXPECT_EQ(b->instances()[2]->name(), "fakegeneric");  // 10
  MulMat q4(CLPORT_DTYPE_Q4_0);
  EXPECT_EQ(served_by(*b, q4.op), "fakevendor");
  // fakevendor serves only MUL_MAT: RMS_NORM goes to the next-ranked plugin that supports it.
  clport_tensor x = test::tensor(CLPORT_DTYPE_F32, 64, 1);
  EXPECT_EQ(served_by(*b, unary(CLPORT_OP_RMS_NORM, &x)), "fakesecond");
  // Every fake refuses Q6_K weights: the CPU path.
  MulMat q6(CLPORT_DTYPE_Q6_K);
  EXPECT_EQ(served_by(*b, q6.op), "cpu");
  EXPECT_EQ(b->enqueue(q6.op).stage(), Stage::Unsupported);
}

TEST_F(Binding, UnknownFamilyGetsOnlyTheGenericFallback) {
  DeviceInfo other = fake_device("unknown", "Some GPU", 0);
  auto b = DeviceBinding::create(*manager, other, policy_from("", other), null_hosts());
  ASSERT_EQ(b->instances().size(), 1u);
  EXPECT_EQ(b->instances()[0]->name(), "fakegeneric");
  bool saw_reason = false;
  for (const auto& c : b->candidates()) {
    if (c.plugin == "fakevendor") {
      EXPECT_EQ(c.outcome, "cannot serve this device");
      EXPECT_EQ(c.probe_reason, "fake: wrong family");
      saw_reason = true;
    }
  }
  EXPECT_TRUE(saw_reason);
}

TEST_F(Binding, DenyRuleMovesTheChoiceToTheNextPlugin) {
  const auto policy = policy_from(R"(
rules:
  - id: no-fakevendor-on-740
    reason: test
    match: {family: adreno, name: "740"}
    deny: fakevendor
)", adreno);
  auto b = DeviceBinding::create(*manager, adreno, policy, null_hosts());
  MulMat q4(CLPORT_DTYPE_Q4_0);
  EXPECT_EQ(served_by(*b, q4.op), "fakesecond");
  bool logged = false;
  for (const auto& line : b->decision_log()) {
    if (line.find("denied by rule 'no-fakevendor-on-740'") != std::string::npos) logged = true;
  }
  EXPECT_TRUE(logged);
  ASSERT_EQ(policy.fired.size(), 1u);
  EXPECT_NE(policy.fired[0].find("test.yaml:3:"), std::string::npos) << policy.fired[0];
}

TEST_F(Binding, ForceAndPreferReorderTheRanking) {
  auto forced = DeviceBinding::create(*manager, adreno, policy_from(R"(
rules: [{id: f, force: fakegeneric}]
)", adreno), null_hosts());
  MulMat q4(CLPORT_DTYPE_Q4_0);
  EXPECT_EQ(served_by(*forced, q4.op), "fakegeneric");

  auto preferred = DeviceBinding::create(*manager, adreno, policy_from(R"(
rules: [{id: p, prefer: {fakesecond: 50}}]
)", adreno), null_hosts());
  EXPECT_EQ(served_by(*preferred, q4.op), "fakesecond");  // 60 + 50 > 100
}

TEST_F(Binding, DeniedDeviceMeansCpuPathWithAReason) {
  const auto policy = policy_from("rules: [{id: d, reason: broken driver, deny_device: true}]", adreno);
  auto b = DeviceBinding::create(*manager, adreno, policy, null_hosts());
  EXPECT_FALSE(b->has_device());
  MulMat q4(CLPORT_DTYPE_Q4_0);
  EXPECT_EQ(b->select(q4.op), nullptr);
  EXPECT_NE(b->decision_log().back().find("CPU path"), std::string::npos);
}

TEST_F(Binding, NoPluginsAtAllIsTheNoDeviceResult) {
  PluginManager empty;
  auto b = DeviceBinding::create(empty, adreno, policy_from("", adreno), null_hosts());
  EXPECT_FALSE(b->has_device());
  for (const auto& row : b->summary()) EXPECT_EQ(row.plugin, "cpu") << row.op;
}

TEST_F(Binding, PluginErrorsBecomeStatusesAndErrorObjectsAreFreed) {
  auto b = DeviceBinding::create(*manager, adreno, policy_from("", adreno), null_hosts());
  MulMat q4(CLPORT_DTYPE_Q4_0);
  EXPECT_TRUE(b->enqueue(q4.op).ok());
  q4.op.params.scale = -7.0f;  // the fake plugins fail an op with this scale
  const Status st = b->enqueue(q4.op);
  EXPECT_EQ(st.stage(), Stage::Device);
  EXPECT_NE(st.message().find("fakevendor failed on request (code 7)"), std::string::npos) << st.message();
}

TEST_F(Binding, PreparedWeightsStayWithTheirPlugin) {
  auto b = DeviceBinding::create(*manager, adreno, policy_from("", adreno), null_hosts());
  MulMat q4(CLPORT_DTYPE_Q4_0);
  auto layout = b->prepare_weight(CLPORT_OP_MUL_MAT, q4.w);
  ASSERT_TRUE(layout.ok()) << layout.status().to_string();
  ASSERT_NE(layout->layout(), nullptr);
  EXPECT_EQ(layout->owner()->name(), "fakevendor");
  q4.w.layout = layout->layout();
  EXPECT_EQ(served_by(*b, q4.op), "fakevendor");
}

// Whether the host may free an owned weight's plain copy: the plugin says its layout owns the
// weight, and the binding finds that plugin running every mat-mul the model's batch can issue.
TEST(BindingOwnedWeights, PlainCopyIsUnreadOnlyWhereTheOwnerRunsEveryBatchSize) {
  DeviceInfo adreno = fake_device("adreno", "QUALCOMM Adreno(TM) 740");
  auto bind = [&](const char* vendor) {
    auto manager = PluginManager::discover(only({vendor, FAKE_PLUGIN_fake_generic}));
    return DeviceBinding::create(*manager, adreno, policy_from("", adreno), null_hosts());
  };
  {
    auto b = bind(FAKE_PLUGIN_fake_vendor);
    MulMat q4(CLPORT_DTYPE_Q4_0);
    auto layout = b->prepare_weight(CLPORT_OP_MUL_MAT, q4.w);
    ASSERT_TRUE(layout.ok()) << layout.status().to_string();
    EXPECT_FALSE(layout->owns_weight());
  }
  {
    auto b = bind(FAKE_PLUGIN_fake_owner);
    MulMat q4(CLPORT_DTYPE_Q4_0);
    EXPECT_FALSE(b->layout_owner_runs_every_mul_mat(q4.w, 64));  // no layout yet
    auto layout = b->prepare_weight(CLPORT_OP_MUL_MAT, q4.w);
    ASSERT_TRUE(layout.ok()) << layout.status().to_string();
    EXPECT_TRUE(layout->owns_weight());
    q4.w.layout = layout->layout();
    EXPECT_TRUE(b->layout_owner_runs_every_mul_mat(q4.w, 512));
  }
  {
    // Prompt-sized mat-muls (5 rows and more) would run on the CPU path, from the plain copy.
    auto b = bind(FAKE_PLUGIN_fake_owner_gemv);
    MulMat q4(CLPORT_DTYPE_Q4_0);
    auto layout = b->prepare_weight(CLPORT_OP_MUL_MAT, q4.w);
    ASSERT_TRUE(layout.ok()) << layout.status().to_string();
    EXPECT_TRUE(layout->owns_weight());
    q4.w.layout = layout->layout();
    EXPECT_TRUE(b->layout_owner_runs_every_mul_mat(q4.w, 4));
    EXPECT_FALSE(b->layout_owner_runs_every_mul_mat(q4.w, 5));
  }
}

TEST_F(Binding, SummaryNamesThePluginPerOpAndDtype) {
  auto b = DeviceBinding::create(*manager, adreno, policy_from("", adreno), null_hosts());
  int seen = 0;
  for (const auto& row : b->summary()) {
    if (row.op == "MUL_MAT" && row.dtype == "q8_0") {
      EXPECT_EQ(row.plugin, "fakevendor");
      ++seen;
    }
    if (row.op == "MUL_MAT" && row.dtype == "q6_K") {
      EXPECT_EQ(row.plugin, "cpu");
      ++seen;
    }
    if (row.op == "SOFTMAX") {
      EXPECT_EQ(row.plugin, "fakesecond");
      ++seen;
    }
  }
  EXPECT_EQ(seen, 5);  // gemv + gemm rows for each MUL_MAT dtype, one SOFTMAX
}

TEST(BindingRefusals, ThrowingAndFailingPluginsAreReportedNotFatal) {
  auto manager = PluginManager::discover(only({FAKE_PLUGIN_bad_throw_probe, FAKE_PLUGIN_bad_throw_create,
                                               FAKE_PLUGIN_bad_fail_create, FAKE_PLUGIN_fake_generic}));
  ASSERT_EQ(manager->plugins().size(), 4u);
  DeviceInfo d = fake_device("adreno", "QUALCOMM Adreno(TM) 740");
  auto b = DeviceBinding::create(*manager, d, Policy().evaluate(d), null_hosts());
  ASSERT_EQ(b->instances().size(), 1u);
  EXPECT_EQ(b->instances()[0]->name(), "fakegeneric");
  std::map<std::string, std::string> outcome;
  for (const auto& c : b->candidates()) outcome[c.plugin] = c.outcome;
  EXPECT_EQ(outcome["throwprobe"], "refused: probe threw: fake probe exploded");
  EXPECT_EQ(outcome["throwcreate"], "refused: create threw: fake create exploded");
  EXPECT_EQ(outcome["failcreate"], "create failed: fake create declined the device");
  ASSERT_EQ(manager->refusals().size(), 2u);
  EXPECT_EQ(manager->refusals()[0].plugin, "throwprobe");
}

}  // namespace
}  // namespace clport

namespace clport {
namespace {

// The manager (and its list of libraries) may go away; live instances keep their library
// mapped, so calling into them still works (an unloaded library would crash here).
TEST(BindingLifetime, InstancesKeepTheirLibraryLoaded) {
  auto manager = PluginManager::discover(only({FAKE_PLUGIN_fake_vendor}));
  DeviceInfo d = test::fake_device("adreno", "QUALCOMM Adreno(TM) 740");
  auto b = DeviceBinding::create(*manager, d, Policy().evaluate(d), test::null_hosts());
  std::weak_ptr<PluginManager> weak = manager;
  manager.reset();
  ASSERT_TRUE(weak.expired());
  test::MulMat q4(CLPORT_DTYPE_Q4_0);
  EXPECT_EQ(served_by(*b, q4.op), "fakevendor");
  EXPECT_TRUE(b->enqueue(q4.op).ok());
}

}  // namespace
}  // namespace clport
