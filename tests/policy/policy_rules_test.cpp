// Rule matching and the shipped policy: defaults + quirks load, quirks fire on the devices they
// describe and only there, user layers override.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "policy/policy.h"

namespace clport {
namespace {

DeviceInfo device(const std::string& family, const std::string& generation, int number, const std::string& driver) {
  DeviceInfo d;
  d.name = family + " test device";
  d.vendor = "vendor";
  d.driver_version = driver;
  d.type = CL_DEVICE_TYPE_GPU;
  d.klass.family = family;
  d.klass.generation = generation;
  d.klass.generation_number = number;
  return d;
}

bool fired(const DevicePolicy& p, const std::string& id) {
  for (const auto& line : p.fired) {
    if (line.find("rule '" + id + "'") != std::string::npos) return true;
  }
  return false;
}

TEST(PolicyRules, ShippedPolicyLoadsFromDiskAndBuiltIn) {
  auto builtin = Policy::defaults();
  ASSERT_TRUE(builtin.ok()) << builtin.status().to_string();
  auto disk = Policy::load("", false);
  ASSERT_TRUE(disk.ok()) << disk.status().to_string();
  EXPECT_EQ(builtin->rules().size(), disk->rules().size());
  EXPECT_GE(disk->rules().size(), 4u);
  for (const auto& rule : disk->rules()) EXPECT_FALSE(rule.source.empty()) << rule.id << " has no source";
}

TEST(PolicyRules, DriverVersionRangesMatchOnlyInside) {
  Policy p;
  ASSERT_TRUE(p.add_layer(R"(
rules:
  - id: mali-range
    match: {family: mali, driver_version: {min: r30p0, max: r38p0}}
    precision: fp32
)", "t.yaml").ok());
  EXPECT_TRUE(fired(p.evaluate(device("mali", "valhall", 78, "v1.r32p1-01eac0")), "mali-range"));
  EXPECT_TRUE(fired(p.evaluate(device("mali", "valhall", 78, "v1.r30p0-01eac0")), "mali-range"));
  EXPECT_FALSE(fired(p.evaluate(device("mali", "valhall", 78, "v1.r38p0-01eac0")), "mali-range"));  // max exclusive
  EXPECT_FALSE(fired(p.evaluate(device("mali", "valhall", 78, "v1.r29p0")), "mali-range"));
  // A version in another scheme is not comparable: the range does not match.
  EXPECT_FALSE(fired(p.evaluate(device("mali", "valhall", 78, "31.0.101.4502")), "mali-range"));
}

TEST(PolicyRules, QuirksFireOnTheDevicesTheyDescribe) {
  auto p = Policy::load("", false);
  ASSERT_TRUE(p.ok());
  const auto old_a6 = p->evaluate(device("adreno", "a6xx", 630, "OpenCL 2.0 QUALCOMM build: Compiler E031.25.03.00"));
  EXPECT_TRUE(fired(old_a6, "adreno-a6xx-old-compiler"));
  EXPECT_EQ(old_a6.denied.count("adreno"), 1u);
  EXPECT_EQ(describe(old_a6.settings_for("generic")), "private_vector_arrays: false");

  const auto a740 = p->evaluate(device("adreno", "a7xx", 740, "OpenCL 3.0 QUALCOMM build: Compiler E031.42.23.01"));
  EXPECT_FALSE(fired(a740, "adreno-a6xx-old-compiler"));
  EXPECT_TRUE(a740.denied.empty());

  const auto old_mali = p->evaluate(device("mali", "midgard", 880, "v1.r9p0-05rel0"));
  EXPECT_TRUE(old_mali.device_denied);
  EXPECT_EQ(old_mali.precision, Precision::Fp32);
  EXPECT_FALSE(p->evaluate(device("mali", "valhall", 78, "v1.r32p1-01eac0")).device_denied);
  EXPECT_FALSE(p->evaluate(device("intel", "xe", 770, "31.0.101.4502")).device_denied);
}

TEST(PolicyRules, Fp16OnlyWhereTheDeviceHasIt) {
  Policy p;
  ASSERT_TRUE(p.add_layer("precision: fp16\n", "t.yaml").ok());
  DeviceInfo d = device("intel", "xe", 770, "31.0.101.4502");
  EXPECT_EQ(p.evaluate(d).precision, Precision::Fp32);
  EXPECT_FALSE(p.evaluate(d).notes.empty());
  d.has_fp16 = true;
  EXPECT_EQ(p.evaluate(d).precision, Precision::Fp16);
}

TEST(PolicyRules, UserLayerOverridesAndDisables) {
  const std::string path = ::testing::TempDir() + "clport_user_policy.yaml";
  std::ofstream(path) << "precision: fp32\nplugin_dir: /opt/plugins\ndisable_rules: [mali-enqueue-leak-old-driver]\n"
                         "plugins: {generic: {gemv_wg: 64}}\n"
                         "rules: [{id: mine, match: {family: adreno}, settings: {generic: {private_vector_arrays: true}}}]\n";
  ::setenv("CLPORT_CONFIG", path.c_str(), 1);
  auto p = Policy::load();
  ::unsetenv("CLPORT_CONFIG");
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(p->globals().plugin_dir, "/opt/plugins");
  EXPECT_EQ(p->globals().precision, Precision::Fp32);
  EXPECT_FALSE(p->evaluate(device("mali", "midgard", 880, "v1.r9p0-05rel0")).device_denied);
  const auto a6 = p->evaluate(device("adreno", "a6xx", 640, "OpenCL 2.0 Compiler E031.41.00.00"));
  const WrittenSettings& settings = a6.settings_for("generic");
  // Quirk said false, the user's later rule says true; the global gemv_wg survives the merge.
  EXPECT_EQ(describe(settings), "gemv_wg: 64, private_vector_arrays: true");
  // Each value keeps where it was written: the user's file, not the quirk's.
  ASSERT_EQ(settings.count("private_vector_arrays"), 1u);
  const SourceMark& mark = settings.at("private_vector_arrays").mark;
  EXPECT_EQ(mark.file, path);
  EXPECT_EQ(mark.line, 5);
  EXPECT_EQ(mark.column, 66);
  EXPECT_EQ(settings.at("gemv_wg").mark.to_string(), path + ":4:21");
}

// Later rules win per key, and keep the values as written (untyped until the plugin's
// declarations type them at binding).
TEST(PolicyRules, SettingsMergePerKeyAsWritten) {
  Policy p;
  ASSERT_TRUE(p.add_layer(R"(
plugins:
  generic:
    gemv_wg: 64
    att_serial: auto
rules:
  - id: first
    match: {family: adreno}
    settings:
      generic: {gemv_wg: 128, note: "-DX=1"}
  - id: second
    match: {family: adreno}
    settings:
      generic:
        gemv_wg: 256
)", "p.yaml").ok());
  const DevicePolicy d = p.evaluate(device("adreno", "a7xx", 740, "OpenCL 3.0 Compiler E031.42.23.01"));
  const WrittenSettings& s = d.settings_for("generic");
  EXPECT_EQ(describe(s), "att_serial: auto, gemv_wg: 256, note: -DX=1");
  EXPECT_EQ(s.at("gemv_wg").mark.to_string(), "p.yaml:15:9");
  EXPECT_EQ(s.at("att_serial").mark.to_string(), "p.yaml:5:5");
  EXPECT_EQ(s.at("note").mark.to_string(), "p.yaml:10:31");
  EXPECT_TRUE(d.settings_for("adreno").empty());
  // On another device only the global section applies.
  EXPECT_EQ(describe(p.evaluate(device("mali", "valhall", 78, "v1.r32p1")).settings_for("generic")),
            "att_serial: auto, gemv_wg: 64");
}

}  // namespace
}  // namespace clport
