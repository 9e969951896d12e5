// The real plugins under spoofed device identities (tests/fakecl forwards to PoCL and reports
// an Adreno 740 / Mali-G78 / UHD 770 / unknown GPU): the right plugin wins, a deny rule moves
// the choice to the next one, and ops a vendor plugin does not serve bind to generic.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "binding/binding.h"
#include "runtime/device_context.h"
#include "loader/opencl_loader.h"
#include "test_support.h"

namespace clport {
namespace {

struct Spoofed {
  std::shared_ptr<DeviceContext> context;
  std::unique_ptr<DeviceBinding> binding;
  std::shared_ptr<PluginManager> manager;
};

// Everything the runtime does, from the OpenCL library to the binding, under one preset.
Spoofed bind_under(const char* preset, const std::string& user_policy = "") {
  Spoofed s;
  ::setenv("FAKECL_PRESET", preset, 1);
  LoadAttempt attempt;
  auto library = open_opencl_library(FAKECL_FORWARD_LIBRARY, &attempt);
  EXPECT_TRUE(library.ok()) << library.status().to_string();
  if (!library.ok()) return s;
  auto devices = probe_all_devices(library.value()->api());
  EXPECT_TRUE(devices.ok() && !devices->empty()) << devices.status().to_string();
  if (!devices.ok() || devices->empty()) return s;
  auto context = DeviceContext::create(library.value(), devices->front());
  EXPECT_TRUE(context.ok()) << context.status().to_string();
  if (!context.ok()) return s;
  s.context = context.value();
  PluginSearchOptions search;
  search.paths = {CLPORT_PLUGIN_BUILD_DIR};
  search.use_environment = false;
  search.use_default_dirs = false;
  s.manager = PluginManager::discover(search);
  auto policy = Policy::defaults();
  EXPECT_TRUE(policy.ok());
  if (!user_policy.empty()) {
    EXPECT_TRUE(policy->add_layer(user_policy, "test.yaml").ok());
  }
  s.binding = DeviceBinding::create(*s.manager, policy.value(), s.context);
  return s;
}

bool installed(const Spoofed& s, const std::string& name) {
  for (const auto& p : s.manager->plugins()) {
    if (p->name() == name) return true;
  }
  return false;
}

std::string first_choice(const Spoofed& s) {
  return s.binding && !s.binding->instances().empty() ? s.binding->instances()[0]->name() : "cpu";
}

std::string serves(const Spoofed& s, const clport_op& op) {
  const BoundInstance* inst = s.binding->select(op);
  return inst ? inst->name() : "cpu";
}

class Selection : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(Selection, RightPluginForTheIdentity) {
  const auto [preset, expected] = GetParam();
  Spoofed s = bind_under(preset);
  ASSERT_TRUE(s.binding);
  if (!installed(s, expected) || !installed(s, "generic")) {
    GTEST_SKIP() << "plugin '" << expected << "' or 'generic' not built (CLPORT_PLUGINS)";
  }
  EXPECT_EQ(first_choice(s), expected);
  test::MulMat q4(CLPORT_DTYPE_Q4_0);
  EXPECT_EQ(serves(s, q4.op), expected);
  // SOFTMAX is outside every vendor plugin's served subset: generic takes it.
  clport_tensor x = test::tensor(CLPORT_DTYPE_F32, 64, 4);
  clport_op softmax{};
  softmax.struct_size = sizeof(softmax);
  softmax.kind = CLPORT_OP_SOFTMAX;
  softmax.n_src = 1;
  softmax.src[0] = &x;
  softmax.dst = &x;
  softmax.params.scale = 1.0f;
  EXPECT_EQ(serves(s, softmax), "generic");
}

INSTANTIATE_TEST_SUITE_P(Presets, Selection,
                         ::testing::Values(std::make_pair("adreno740", "adreno"),
                                           std::make_pair("mali-g78", "mali"),
                                           std::make_pair("intel-uhd770", "intel"),
                                           std::make_pair("unknown-gpu", "generic")));

TEST(SelectionPolicy, DenyRuleMovesTheChoiceToGeneric) {
  Spoofed s = bind_under("adreno740", "rules: [{id: no-adreno, reason: test, match: {family: adreno}, deny: adreno}]\n");
  ASSERT_TRUE(s.binding);
  if (!installed(s, "adreno") || !installed(s, "generic")) GTEST_SKIP() << "adreno or generic not built";
  EXPECT_EQ(first_choice(s), "generic");
  test::MulMat q4(CLPORT_DTYPE_Q4_0);
  EXPECT_EQ(serves(s, q4.op), "generic");
  bool fired = false;
  for (const auto& line : s.binding->policy().fired) fired |= line.find("no-adreno") != std::string::npos;
  EXPECT_TRUE(fired);
}

}  // namespace
}  // namespace clport
