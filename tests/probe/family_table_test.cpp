// The table parser: a valid table drives the classifier; every malformed table is a Config
// status that names the problem (never an exception or a crash).
#include <gtest/gtest.h>

#include "probe/device_classifier.h"

namespace clport::probe {
namespace {

const char* kValid = R"(
default_family: mystery
rules:
  - id: acme-numbered
    source: "made up for this test"
    family: acme
    generation: 'g$1'
    all: {vendor: 'acme'}
    any: {name: 'rocket', device_version: 'rocket'}
    number: {regex: 'rocket\s*(\d)(\d\d)', group: 2, fields: [name, device_version]}
  - id: acme-cpu
    source: "made up"
    family: cpu
    type: cpu
)";

TEST(FamilyTable, ValidTableClassifiesAndSubstitutesCaptures) {
  auto table = parse_family_table(kValid, "test");
  ASSERT_TRUE(table.ok()) << table.status().to_string();
  DeviceIdentity id;
  id.name = "ACME ";
  id.vendor = "Acme Corp";
  id.device_version = "OpenCL 3.0 Rocket 742";
  id.type = CL_DEVICE_TYPE_GPU;
  DeviceClass k = classify(id, table.value());
  EXPECT_EQ(k.family, "acme");
  EXPECT_EQ(k.generation, "g7");
  EXPECT_EQ(k.generation_number, 42);
  EXPECT_EQ(k.rule, "acme-numbered");

  id.vendor = "Other";
  id.type = CL_DEVICE_TYPE_CPU;
  EXPECT_EQ(classify(id, table.value()).family, "cpu");
  id.type = CL_DEVICE_TYPE_GPU;
  k = classify(id, table.value());
  EXPECT_EQ(k.family, "mystery");
  EXPECT_EQ(k.rule, "default");
}

struct Bad {
  const char* what;
  const char* yaml;
  const char* message_part;
};

const Bad kBad[] = {
    {"not yaml", "rules: [ {id: x", ""},
    {"empty", "", "top level"},
    {"rules not a list", "rules: {a: 1}", "non-empty list"},
    {"unknown key", "rules:\n  - {id: a, source: s, family: f, all: {vendor: v, name: n}, colour: red}",
     "unknown key 'colour'"},
    {"unknown field", "rules:\n  - {id: a, source: s, family: f, all: {vendor: v, gpu_name: n}}",
     "unknown field 'gpu_name'"},
    {"bad regex", "rules:\n  - {id: a, source: s, family: f, all: {vendor: '(', name: n}}",
     "invalid regex"},
    {"one substring", "rules:\n  - {id: a, source: s, family: f, all: {name: adreno}}",
     "two conditions"},
    {"no source", "rules:\n  - {id: a, family: f, all: {vendor: v, name: n}}", "source"},
    {"no family", "rules:\n  - {id: a, source: s, all: {vendor: v, name: n}}", "family"},
    {"bad type", "rules:\n  - {id: a, source: s, family: f, type: fpga}", "type must be"},
    {"generations without number",
     "rules:\n  - {id: a, source: s, family: f, all: {vendor: v, name: n}, generations: [{name: g, min: 1, max: 2}]}",
     "needs a 'number'"},
    {"generation without range",
     "rules:\n  - {id: a, source: s, family: f, all: {vendor: v, name: n}, number: {regex: '(\\d+)'}, generations: [{name: g}]}",
     "needs 'numbers'"},
    {"duplicate id",
     "rules:\n  - {id: a, source: s, family: f, type: cpu}\n  - {id: a, source: s, family: g, type: gpu}",
     "duplicate"},
    {"wrong scalar type", "rules:\n  - {id: a, source: s, family: f, all: {vendor: [1, 2], name: n}}", ""},
    {"unknown top-level key", "rules:\n  - {id: a, source: s, family: f, type: cpu}\ndriver_version: []",
     "unknown top-level key 'driver_version'"},
    {"driver versions not a list", "rules:\n  - {id: a, source: s, family: f, type: cpu}\ndriver_versions: {a: 1}",
     "'driver_versions' must be a list"},
    {"scheme without groups",
     "rules:\n  - {id: a, source: s, family: f, type: cpu}\ndriver_versions:\n  - {scheme: x, source: s, regex: 'r\\d+'}",
     "scheme 'x': the regex needs capture groups"},
    {"scheme without source",
     "rules:\n  - {id: a, source: s, family: f, type: cpu}\ndriver_versions:\n  - {scheme: x, regex: 'r(\\d+)'}",
     "scheme 'x': missing 'source'"},
    {"scheme with a bad regex",
     "rules:\n  - {id: a, source: s, family: f, type: cpu}\ndriver_versions:\n  - {scheme: x, source: s, regex: '('}",
     "scheme 'x': invalid regex"},
    {"scheme with an unknown key",
     "rules:\n  - {id: a, source: s, family: f, type: cpu}\ndriver_versions:\n  - {scheme: x, source: s, regex: '(1)', min: 2}",
     "unknown key 'min'"},
};

void PrintTo(const Bad& b, std::ostream* os) { *os << b.what; }

class MalformedTable : public ::testing::TestWithParam<Bad> {};

TEST_P(MalformedTable, IsAConfigErrorNamingTheProblem) {
  const Bad& bad = GetParam();
  auto table = parse_family_table(bad.yaml, "bad.yaml");
  ASSERT_FALSE(table.ok()) << bad.what;
  EXPECT_EQ(table.status().stage(), Stage::Config) << bad.what;
  EXPECT_NE(table.status().message().find("bad.yaml"), std::string::npos);
  EXPECT_NE(table.status().message().find(bad.message_part), std::string::npos)
      << bad.what << ": " << table.status().message();
}

INSTANTIATE_TEST_SUITE_P(Cases, MalformedTable, ::testing::ValuesIn(kBad));

TEST(FamilyTable, ShippedTableParsesAndEveryRuleHasASource) {
  const auto& table = default_family_table();
  ASSERT_TRUE(table.ok()) << table.status().to_string();
  EXPECT_GE(table->rules.size(), 10u);
  for (const auto& rule : table->rules) EXPECT_FALSE(rule.source.empty()) << rule.id;
  // The driver version dialects the policy's ranges compare, most specific first.
  std::vector<std::string> schemes;
  for (const auto& s : table->driver_versions) {
    schemes.push_back(s.scheme);
    EXPECT_FALSE(s.source.empty()) << s.scheme;
  }
  EXPECT_EQ(schemes, (std::vector<std::string>{"adreno-compiler", "mali", "numeric"}));
}

}  // namespace
}  // namespace clport::probe
