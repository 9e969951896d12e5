// A plugin's settings from the policy file to its host table: kept as written (YAML node and
// place) through the policy, typed once against the plugin's declarations at binding, errors
// naming file:line:column; stored tuner winners merge under the policy's at the typed level. The
// fake plugin declares an INT tile in 1..64 (tunable), a BOOL fast, a TEXT note and an ENUM mode
// (off / on / auto, tunable).
#include <gtest/gtest.h>

#include <set>

#include "plugins/plugin_manager.h"
#include "policy/plugin_settings.h"
#include "policy/policy.h"
#include "tuner/tuner.h"
#include "tuner/tuner_candidates.h"

namespace clport {
namespace {

class PluginSettings : public ::testing::Test {
 protected:
  void SetUp() override {
    PluginSearchOptions o;
    o.paths = {FAKE_PLUGIN_fake_vendor};
    o.use_environment = false;
    o.use_default_dirs = false;
    manager_ = PluginManager::discover(o);
    ASSERT_EQ(manager_->plugins().size(), 1u);
  }
  const clport_plugin& table() const { return manager_->plugins()[0]->table(); }

  // The settings a policy file gives the plugin on any device, typed.
  Result<std::vector<TypedSetting>> from_policy(const std::string& text) const {
    Policy p;
    const Status st = p.add_layer(text, "/etc/clport/policy.yaml");
    if (!st.ok()) return st;
    return check_plugin_settings(table(), p.evaluate(DeviceInfo{}).settings_for("fakevendor"));
  }
  Result<std::vector<TypedSetting>> from_text(const std::string& text) const {
    auto written = parse_settings_text(text, "s.yaml");
    if (!written.ok()) return written.status();
    return check_plugin_settings(table(), written.value());
  }
  std::string error_of(const std::string& text) const {
    auto r = from_text(text);
    EXPECT_FALSE(r.ok()) << text;
    if (r.ok()) return "";
    EXPECT_EQ(r.status().stage(), Stage::Config);
    return r.status().message();
  }

  std::shared_ptr<PluginManager> manager_;
};

const TypedSetting* find(const std::vector<TypedSetting>& s, const std::string& name) {
  for (const auto& t : s)
    if (t.name == name) return &t;
  return nullptr;
}

TEST_F(PluginSettings, ValuesAreTypedByTheDeclarations) {
  auto ok = from_text("tile: 8\nfast: false\nnote: -DX=1\n");
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  ASSERT_EQ(ok.value().size(), 3u);
  ASSERT_NE(find(ok.value(), "tile"), nullptr);
  EXPECT_EQ(find(ok.value(), "tile")->type, CLPORT_SETTING_INT);
  EXPECT_EQ(find(ok.value(), "tile")->int_value, 8);
  EXPECT_EQ(find(ok.value(), "fast")->type, CLPORT_SETTING_BOOL);
  EXPECT_EQ(find(ok.value(), "fast")->int_value, 0);
  EXPECT_EQ(find(ok.value(), "note")->text, "-DX=1");
  // yaml-cpp's own conversions: YAML's spellings of true and false, a quoted number.
  auto spelled = from_text("{fast: yes, tile: \"16\", note: true}");
  ASSERT_TRUE(spelled.ok()) << spelled.status().to_string();
  EXPECT_EQ(find(spelled.value(), "fast")->int_value, 1);
  EXPECT_EQ(find(spelled.value(), "tile")->int_value, 16);
  EXPECT_EQ(find(spelled.value(), "note")->text, "true");  // TEXT keeps what was written
  EXPECT_TRUE(from_text("").ok());
  EXPECT_TRUE(from_text("").value().empty());
}

TEST_F(PluginSettings, ErrorsNameTheFileLineAndColumn) {
  EXPECT_EQ(error_of("note: x\ntile: 0\n"), "s.yaml:2:1: settings of plugin 'fakevendor': 'tile' must be in 1..64, got 0");
  EXPECT_EQ(error_of("{tiles: 8}"),
            "s.yaml:1:2: settings of plugin 'fakevendor': 'tiles' is not a setting it declares (it declares: tile, "
            "fast, note, mode)");
  EXPECT_EQ(error_of("tile: four\n"), "s.yaml:1:1: settings of plugin 'fakevendor': 'tile' must be an integer, got 'four'");
  EXPECT_EQ(error_of("fast: maybe\n"), "s.yaml:1:1: settings of plugin 'fakevendor': 'fast' must be true or false, got 'maybe'");
  EXPECT_EQ(error_of("fast: 1\n"), "s.yaml:1:1: settings of plugin 'fakevendor': 'fast' must be true or false, got '1'");
  EXPECT_EQ(error_of("tile: [1, 2]\n"), "s.yaml:1:1: settings of plugin 'fakevendor': 'tile' must be a single value, got '[1, 2]'");
  EXPECT_EQ(error_of("note:\n"), "s.yaml:1:1: settings of plugin 'fakevendor': 'note' must be a single value, got '~'");
  // Not a map at all, or a key set twice: the reader refuses it, with its place.
  EXPECT_NE(error_of("- tile\n").find("s.yaml:1:1: a settings file must be a map"), std::string::npos);
  EXPECT_NE(error_of("tile: 1\ntile: 2\n").find("s.yaml:2:1: a settings file: 'tile' is set twice"), std::string::npos);

  // Through a policy file: the place the user wrote it, in the layer that set it.
  auto r = from_policy("plugins:\n  fakevendor:\n    note: a\n    tile: 0\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "/etc/clport/policy.yaml:4:5: settings of plugin 'fakevendor': 'tile' must be in 1..64, got 0");
  r = from_policy("rules:\n  - id: r\n    match: {device_type: gpu}\n    settings: {fakevendor: {fast: 2}}\n"
                  "plugins: {fakevendor: {fast: nope}}\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "/etc/clport/policy.yaml:5:24: settings of plugin 'fakevendor': 'fast' must be true or false, got 'nope'");
}

// An enum is written by name and handed over as the name's index (and the name); a number or an
// unknown name is an error listing the names.
TEST_F(PluginSettings, EnumsAreWrittenByName) {
  auto ok = from_text("mode: auto\n");
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  ASSERT_EQ(ok.value().size(), 1u);
  EXPECT_EQ(ok.value()[0].type, CLPORT_SETTING_ENUM);
  EXPECT_EQ(ok.value()[0].int_value, 2);
  EXPECT_EQ(ok.value()[0].text, "auto");
  EXPECT_EQ(value_text(ok.value()[0]), "auto");
  // YAML 1.1 would read off / on as booleans: an enum takes the words as written.
  EXPECT_EQ(from_text("mode: off").value()[0].int_value, 0);
  EXPECT_EQ(from_text("mode: \"on\"").value()[0].int_value, 1);

  EXPECT_EQ(error_of("mode: sometimes\n"),
            "s.yaml:1:1: settings of plugin 'fakevendor': 'mode' must be one of off, on, auto, got 'sometimes'");
  EXPECT_EQ(error_of("tile: 4\nmode: 1\n"),
            "s.yaml:2:1: settings of plugin 'fakevendor': 'mode' must be one of off, on, auto, got '1'");
  EXPECT_EQ(error_of("mode: false\n"),
            "s.yaml:1:1: settings of plugin 'fakevendor': 'mode' must be one of off, on, auto, got 'false'");
  EXPECT_EQ(error_of("mode: Auto\n"),
            "s.yaml:1:1: settings of plugin 'fakevendor': 'mode' must be one of off, on, auto, got 'Auto'");
  auto r = from_policy("rules:\n  - id: r\n    match: {}\n    settings:\n      fakevendor:\n        mode: 2\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "/etc/clport/policy.yaml:6:9: settings of plugin 'fakevendor': 'mode' must be one "
                                  "of off, on, auto, got '2'");
}

// The tuner's stored winners: checked one by one against the declarations (a value that no
// longer validates is dropped), then the policy's settings win per name.
TEST_F(PluginSettings, StoredTuningMergesUnderThePolicyTyped) {
  const std::vector<TypedSetting> stored = tuner::typed_stored(
      table(), "fakevendor",
      {{"tile", "8"}, {"fast", "true"}, {"gone", "3"}, {"note", "x"}, {"mode", "on"}}, "tuning.json");
  ASSERT_EQ(stored.size(), 4u);  // 'gone' is not declared any more
  EXPECT_EQ(find(stored, "tile")->int_value, 8);
  EXPECT_EQ(find(stored, "fast")->int_value, 1);
  EXPECT_EQ(find(stored, "mode")->int_value, 1);
  EXPECT_EQ(tuner::typed_stored(table(), "fakevendor", {{"tile", "65"}}, "tuning.json").size(), 0u);  // out of range
  EXPECT_EQ(tuner::typed_stored(table(), "fakevendor", {{"mode", "2"}}, "tuning.json").size(), 0u);  // not a name

  auto policy = from_text("tile: 16\n");
  ASSERT_TRUE(policy.ok());
  const std::vector<TypedSetting> merged = merge_settings(stored, policy.value());
  ASSERT_EQ(merged.size(), 4u);
  EXPECT_EQ(find(merged, "tile")->int_value, 16);  // the policy wins
  EXPECT_EQ(find(merged, "fast")->int_value, 1);   // stored, the policy does not set it
  EXPECT_EQ(find(merged, "note")->text, "x");
  EXPECT_EQ(describe(merged), "tile: 16, fast: true, mode: on, note: x");
}

TEST_F(PluginSettings, CandidatesAreValuesOfTheirSetting) {
  const clport_setting_decl* tile = find_setting(table(), "tile");
  ASSERT_NE(tile, nullptr);
  auto four = candidate_setting(*tile, 4);
  ASSERT_TRUE(four.ok());
  EXPECT_EQ(value_text(four.value()), "4");
  EXPECT_FALSE(candidate_setting(*tile, 0).ok());
  const clport_setting_decl* fast = find_setting(table(), "fast");
  ASSERT_NE(fast, nullptr);
  EXPECT_EQ(value_text(candidate_setting(*fast, 1).value()), "true");
  EXPECT_FALSE(candidate_setting(*fast, 2).ok());
  const clport_setting_decl* mode = find_setting(table(), "mode");
  ASSERT_NE(mode, nullptr);
  auto two = candidate_setting(*mode, 2);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two.value().int_value, 2);
  EXPECT_EQ(value_text(two.value()), "auto");
  EXPECT_FALSE(candidate_setting(*mode, 3).ok());
  EXPECT_FALSE(candidate_setting(*mode, -1).ok());
}

// `clport tune` times enum and bool settings as it times integers: typed candidates, stored by
// name.
TEST_F(PluginSettings, TheTunerTimesEnumCandidatesByName) {
  const auto groups = tuner::detail::groups(table(), TuningLevel::Exhaustive, true);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].name, "gemv");
  ASSERT_EQ(groups[0].candidates.size(), 6u);  // 3 tiles x 2 modes
  std::set<std::string> seen;
  for (const auto& c : groups[0].candidates) seen.insert(describe(c));
  EXPECT_EQ(seen.count("tile: 2, mode: off"), 1u) << *seen.begin();
  EXPECT_EQ(seen.count("tile: 8, mode: auto"), 1u);
}

}  // namespace
}  // namespace clport
