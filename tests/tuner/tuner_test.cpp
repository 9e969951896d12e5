// The tuner on PoCL: level fast, tiny shapes. The tuning file is written and keyed to the device,
// the next DeviceBinding hands the stored values to the plugin (the policy's explicit settings
// win, `tuning: none` ignores them), and a corrupt file is ignored with a warning.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <spdlog/sinks/ringbuffer_sink.h>

#include "binding/binding.h"
#include "runtime/device_context.h"
#include "common/logger.h"
#include "loader/opencl_loader.h"
#include "plugins/plugin_manager.h"
#include "clport_devtools/tuner.h"
#include "policy/plugin_settings.h"

namespace clport {
namespace {

namespace fs = std::filesystem;

// Captures the "tuner" logger's lines for one test.
class LogCapture {
 public:
  LogCapture() : sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(256)) {
    auto log = logger("tuner");
    level_ = log->level();
    log->set_level(spdlog::level::info);  // the hand-over is an info line
    log->sinks().push_back(sink_);
  }
  ~LogCapture() {
    auto log = logger("tuner");
    auto& sinks = log->sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
    log->set_level(level_);
  }
  std::string text() const {
    std::string all;
    for (const auto& line : sink_->last_formatted()) all += line;
    return all;
  }

 private:
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
  spdlog::level::level_enum level_ = spdlog::level::info;
};

class Tuner : public ::testing::Test {
 protected:
  // One cache directory in the build tree: the compiled candidates (program cache entries) are
  // shared by the tests and by later runs (ctest runs each test in its own process; the
  // tests hold the RESOURCE_LOCK tuner_cache), so PoCL's slow builds are paid once. Each test
  // starts without a tuning file.
  static fs::path shared_dir() { return fs::path(CLPORT_BINARY_DIR) / "tests" / "tuner" / "cache"; }

  void SetUp() override {
    dir_ = shared_dir();
    fs::create_directories(dir_);
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().filename().string().rfind("tuning-", 0) == 0) fs::remove(e.path());
    ::setenv("CLPORT_CACHE_DIR", dir_.c_str(), 1);
    LoadReport load = load_opencl();
    ASSERT_NE(load.library, nullptr) << load.status.to_string();
    auto devices = probe_all_devices(load.library->api());
    ASSERT_TRUE(devices.ok() && !devices->empty());
    DeviceContextOptions options;
    options.profiling = true;
    auto ctx = DeviceContext::create(load.library, devices->front(), options);
    ASSERT_TRUE(ctx.ok()) << ctx.status().to_string();
    context_ = ctx.value();
    PluginSearchOptions search;
    search.paths = {CLPORT_PLUGIN_BUILD_DIR};
    search.use_environment = false;
    search.use_default_dirs = false;
    manager_ = PluginManager::discover(search);
    for (const auto& p : manager_->plugins())
      if (p->name() == "generic") generic_ = p;
    ASSERT_NE(generic_, nullptr) << "generic plugin not built";
  }
  void TearDown() override {
    ::unsetenv("CLPORT_CACHE_DIR");
    context_.reset();
  }

  tuner::Report tune_fast() {
    tuner::Options o;
    o.level = TuningLevel::Fast;
    o.tiny = true;
    o.repeats = 1;
    o.accept_within = 100.0;  // store the best explicit candidate even when the defaults win
    auto report = tuner::tune(*context_, generic_, o);
    EXPECT_TRUE(report.ok()) << report.status().to_string();
    return report.ok() ? report.value() : tuner::Report{};
  }

  std::unique_ptr<DeviceBinding> bind(const std::string& policy_text = "") {
    auto policy = Policy::defaults();
    EXPECT_TRUE(policy.ok());
    if (!policy_text.empty()) {
      EXPECT_TRUE(policy->add_layer(policy_text, "test.yaml").ok());
    }
    return DeviceBinding::create(*manager_, policy.value(), context_);
  }

  fs::path dir_;
  std::shared_ptr<DeviceContext> context_;
  std::shared_ptr<PluginManager> manager_;
  std::shared_ptr<LoadedPlugin> generic_;
};

TEST_F(Tuner, FastTinyRunWritesTheFileAndTheBindingReadsItBack) {
  const tuner::Report r = tune_fast();
  ASSERT_EQ(r.groups.size(), 3u);
  for (const auto& g : r.groups) {
    ASSERT_FALSE(g.trials.empty());
    EXPECT_TRUE(g.trials[0].ok) << g.group << " defaults: " << g.trials[0].error;
    EXPECT_GE(g.best, 0) << g.group;
    EXPECT_GT(g.trials.size(), 2u) << g.group;  // defaults + several candidates
  }
  EXPECT_TRUE(r.profiled);  // PoCL gives profiling timestamps
  ASSERT_FALSE(r.file.empty());
  EXPECT_EQ(r.file.rfind(dir_.string(), 0), 0u) << r.file;
  ASSERT_TRUE(fs::exists(r.file));
  ASSERT_FALSE(r.stored.empty());
  EXPECT_EQ(r.stored.count("gemv_wg"), 1u);
  EXPECT_EQ(r.stored.count("norm_wg"), 1u);

  // The file holds the same winners, under the device's key.
  std::ifstream in(r.file);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["device"], context_->info().name);
  EXPECT_EQ(doc["kernel_hash"], tuner::kernel_source_hash());
  for (const auto& [k, v] : r.stored) EXPECT_EQ(doc["plugins"]["generic"]["settings"][k], v) << k;

  auto stored = tuner::load_stored(*context_, "generic");
  ASSERT_TRUE(stored.ok()) << stored.status().to_string();
  EXPECT_EQ(stored.value(), r.stored);

  // Next binding: the plugin's host table carries the stored values (logged as handed over),
  // and the plugin accepts them (it refuses invalid tunings at create).
  LogCapture log;
  auto b = bind();
  ASSERT_TRUE(b->has_device());
  EXPECT_EQ(b->instances().front()->name(), "generic");
  const std::string text = log.text();
  EXPECT_NE(text.find("plugin 'generic' gets stored tuning"), std::string::npos) << text;
  EXPECT_NE(text.find("gemv_wg: " + r.stored.at("gemv_wg")), std::string::npos) << text;
}

TEST_F(Tuner, PolicySettingsWinAndNoneIgnoresTheFile) {
  const tuner::Report r = tune_fast();
  ASSERT_FALSE(r.stored.empty());
  const clport_plugin& table = generic_->table();
  auto written = parse_settings_text("norm_wg: 16", "test.yaml");
  ASSERT_TRUE(written.ok());
  auto policy = check_plugin_settings(table, written.value());
  ASSERT_TRUE(policy.ok()) << policy.status().to_string();
  const auto value_of = [](const std::vector<TypedSetting>& settings, const std::string& name) {
    for (const auto& s : settings)
      if (s.name == name) return value_text(s);
    return std::string("<unset>");
  };
  const auto merged = tuner::settings_with_stored(*context_, table, "generic", policy.value(), TuningLevel::Normal);
  EXPECT_EQ(value_of(merged, "norm_wg"), "16") << describe(merged);  // the policy wins
  EXPECT_EQ(value_of(merged, "gemv_wg"), r.stored.at("gemv_wg")) << describe(merged);
  EXPECT_EQ(std::count_if(merged.begin(), merged.end(), [](const TypedSetting& s) { return s.name == "norm_wg"; }), 1);
  EXPECT_EQ(describe(tuner::settings_with_stored(*context_, table, "generic", policy.value(), TuningLevel::None)),
            "norm_wg: 16");
  EXPECT_EQ(describe(tuner::settings_with_stored(*context_, table, "nosuchplugin", policy.value(), TuningLevel::Normal)),
            "norm_wg: 16");

  LogCapture log;
  auto b = bind("tuning: none\n");
  ASSERT_TRUE(b->has_device());
  EXPECT_EQ(log.text().find("gets stored tuning"), std::string::npos) << log.text();
}

TEST_F(Tuner, CorruptFileIsIgnoredWithAWarning) {
  const tuner::Report r = tune_fast();
  ASSERT_TRUE(fs::exists(r.file));
  nlohmann::json good;
  {
    std::ifstream in(r.file);
    good = nlohmann::json::parse(in);
  }
  nlohmann::json not_a_number = good;
  not_a_number["plugins"]["generic"]["settings"]["gemv_wg"] = "64; rm -rf";
  nlohmann::json foreign = good;
  foreign["key"] = std::string(64, '0');
  for (const std::string& garbage : {std::string("{ not json"), std::string("[1, 2]"), foreign.dump(), not_a_number.dump()}) {
    std::ofstream(r.file, std::ios::trunc) << garbage;
    EXPECT_FALSE(tuner::load_stored(*context_, "generic").ok()) << garbage;
    LogCapture log;
    auto b = bind();
    ASSERT_TRUE(b->has_device()) << garbage;  // built-in defaults: the plugin still binds
    EXPECT_NE(log.text().find("ignoring the tuning file"), std::string::npos) << garbage << "\n" << log.text();
    EXPECT_EQ(log.text().find("gets stored tuning"), std::string::npos);
  }
  // Control: the untouched file is accepted.
  std::ofstream(r.file, std::ios::trunc) << good.dump();
  EXPECT_TRUE(tuner::load_stored(*context_, "generic").ok());
}

// Stored winners are typed one by one against the plugin's declarations: one that no longer
// validates (tuned for another version of the plugin) is dropped with a warning, the others stay.
TEST_F(Tuner, AStoredValueThatNoLongerValidatesIsDropped) {
  const tuner::Report r = tune_fast();
  ASSERT_TRUE(fs::exists(r.file));
  ASSERT_EQ(r.stored.count("norm_wg"), 1u);
  nlohmann::json doc;
  {
    std::ifstream in(r.file);
    doc = nlohmann::json::parse(in);
  }
  doc["plugins"]["generic"]["settings"]["gemv_wg"] = "0";       // below its declared range
  doc["plugins"]["generic"]["settings"]["retired_knob"] = "3";  // no longer declared
  std::ofstream(r.file, std::ios::trunc) << doc.dump();
  ASSERT_TRUE(tuner::load_stored(*context_, "generic").ok());

  LogCapture log;
  auto b = bind();
  ASSERT_TRUE(b->has_device());
  const std::string text = log.text();
  EXPECT_NE(text.find("ignoring a stored tuning value of plugin 'generic': " + r.file +
                      ": settings of plugin 'generic': 'gemv_wg' must be in 1..65536, got 0"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("'retired_knob' is not a setting it declares"), std::string::npos) << text;
  EXPECT_NE(text.find("gets stored tuning"), std::string::npos) << text;
  EXPECT_NE(text.find("norm_wg: " + r.stored.at("norm_wg")), std::string::npos) << text;
  EXPECT_EQ(text.find("gemv_wg: 0"), std::string::npos) << text;
}

TEST_F(Tuner, NoCacheDirectoryIsAClearError) {
  ::setenv("CLPORT_CACHE_DIR", "off", 1);
  LoadReport load = load_opencl();
  auto devices = probe_all_devices(load.library->api());
  ASSERT_TRUE(devices.ok());
  auto ctx = DeviceContext::create(load.library, devices->front());
  ASSERT_TRUE(ctx.ok());
  EXPECT_EQ(tuner::tuning_file(*ctx.value()), "");
  tuner::Options o;
  o.tiny = true;
  auto report = tuner::tune(*ctx.value(), generic_, o);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("nowhere to store"), std::string::npos);
}

}  // namespace
}  // namespace clport
