#include <gtest/gtest.h>

#include "policy/policy.h"

namespace clport {
namespace {

std::vector<int64_t> parts(const std::string& s) {
  auto v = parse_driver_version(s);
  return v ? v->parts : std::vector<int64_t>{};
}

TEST(DriverVersion, ReadsEachVendorDialect) {
  auto adreno = parse_driver_version(
      "OpenCL 2.0 QUALCOMM build: commit #3dad7f8ed7 changeid #I593c16c433 Date: 10/01/21 Fri "
      "Local Branch:  Remote Branch: refs/tags/AU_LINUX_ANDROID_LA.UM.9.1.R1.11.00.00.604.073 "
      "Compiler E031.37.12.01");
  ASSERT_TRUE(adreno);
  EXPECT_EQ(adreno->scheme, "adreno-compiler");
  EXPECT_EQ(adreno->parts, (std::vector<int64_t>{31, 37, 12, 1}));
  auto mali = parse_driver_version("v1.r32p1-01eac0.5f4c1b6ac1fa1ca4ac67d2d9f7f0a5a2");
  ASSERT_TRUE(mali);
  EXPECT_EQ(mali->scheme, "mali");
  EXPECT_EQ(mali->parts, (std::vector<int64_t>{32, 1}));
  EXPECT_EQ(parts("31.0.101.4502"), (std::vector<int64_t>{31, 0, 101, 4502}));
  EXPECT_EQ(parts("550.54.14"), (std::vector<int64_t>{550, 54, 14}));
  EXPECT_EQ(parse_driver_version("550.54.14")->scheme, "numeric");
  EXPECT_EQ(parts("5.0+debian"), (std::vector<int64_t>{5, 0}));
  EXPECT_FALSE(parse_driver_version("no digits here"));
}

TEST(DriverVersion, ComparesWithinASchemeOnly) {
  auto v = [](const char* s) { return *parse_driver_version(s); };
  EXPECT_EQ(*compare_driver_versions(v("r32p1"), v("r32p0")), 1);
  EXPECT_EQ(*compare_driver_versions(v("r9p0"), v("r32p0")), -1);  // numeric, not text, order
  EXPECT_EQ(*compare_driver_versions(v("v1.r32p0-01eac0"), v("r32p0")), 0);
  EXPECT_EQ(*compare_driver_versions(v("Compiler E031.42.23.01"), v("E031.38.00.00")), 1);
  EXPECT_EQ(*compare_driver_versions(v("31.0.101.4502"), v("31.0.101.5186")), -1);
  EXPECT_FALSE(compare_driver_versions(v("r32p1"), v("550.54.14")));
}

// The dialects are data (configs/device_families.yaml `driver_versions`): a table with another
// scheme reads another dialect, and a table without schemes reads none.
TEST(DriverVersion, SchemesComeFromTheFamilyTable) {
  auto table = probe::parse_family_table(R"(
rules:
  - {id: a, source: made up, family: f, type: cpu}
driver_versions:
  - scheme: acme
    source: made up for this test
    regex: 'acme-(\d+)_(\d+)(?:_(\d+))?'
)", "test.yaml");
  ASSERT_TRUE(table.ok()) << table.status().to_string();
  auto acme = parse_driver_version("Acme driver ACME-7_3 (beta)", table->driver_versions);
  ASSERT_TRUE(acme);
  EXPECT_EQ(acme->scheme, "acme");
  EXPECT_EQ(acme->parts, (std::vector<int64_t>{7, 3}));  // the group that did not take part is left out
  EXPECT_EQ(acme->text, "ACME-7_3");
  EXPECT_FALSE(parse_driver_version("r32p1", table->driver_versions));  // no mali scheme in this table
  EXPECT_FALSE(parse_driver_version("31.0.101.4502", {}));
}

}  // namespace
}  // namespace clport
