// Every class of bad configuration is an error with file:line:column, and a failed layer leaves
// the policy exactly as it was.
#include <gtest/gtest.h>

#include "policy/policy.h"

namespace clport {
namespace {

std::string error_of(const std::string& yaml) {
  Policy p;
  Status st = p.add_layer(yaml, "user.yaml");
  EXPECT_FALSE(st.ok()) << yaml;
  EXPECT_EQ(st.stage(), Stage::Config);
  return st.message();
}

TEST(PolicyErrors, SyntaxErrorHasLineAndColumn) {
  const std::string m = error_of("rules:\n  - id: x\n    force: [unclosed\n");
  EXPECT_EQ(m.rfind("user.yaml:", 0), 0u) << m;
  EXPECT_NE(m.find("YAML syntax error"), std::string::npos) << m;
}

TEST(PolicyErrors, UnknownKeysAreNamedWithTheirPosition) {
  EXPECT_EQ(error_of("plugin_dri: /x\n").rfind("user.yaml:1:1: unknown key 'plugin_dri'", 0), 0u);
  const std::string m = error_of("rules:\n  - id: x\n    force: generic\n    matchh: {}\n");
  EXPECT_EQ(m.rfind("user.yaml:4:5: unknown key 'matchh' in rule", 0), 0u) << m;
  EXPECT_NE(error_of("rules: [{id: x, force: generic, match: {colour: red}}]").find("unknown key 'colour' in match"),
            std::string::npos);
}

TEST(PolicyErrors, WrongTypes) {
  EXPECT_EQ(error_of("allow_insecure_plugin_dirs: maybe\n").rfind("user.yaml:1:29: 'allow_insecure_plugin_dirs' must be true or false", 0), 0u);
  EXPECT_NE(error_of("rules: {id: x}\n").find("'rules' must be a list"), std::string::npos);
  EXPECT_NE(error_of("rules: [{id: x, prefer: {generic: lots}}]").find("must be an integer"), std::string::npos);
  EXPECT_NE(error_of("plugin_dir: [a, b]\n").find("'plugin_dir' must be a string"), std::string::npos);
  EXPECT_NE(error_of("plugins: {generic: 5}\n").find("settings for plugin 'generic' must be a map"), std::string::npos);
}

TEST(PolicyErrors, ImpossibleValues) {
  EXPECT_NE(error_of("precision: fp8\n").find("'precision' must be auto, fp32 or fp16"), std::string::npos);
  EXPECT_NE(error_of("version: 2\n").find("allowed range is 1 .. 1"), std::string::npos);
  EXPECT_NE(error_of("log_level: loud\n").find("'log_level' must be"), std::string::npos);
  EXPECT_NE(error_of("device_start: later\n").find("'device_start' must be cpu_first or wait, not 'later'"),
            std::string::npos);
  EXPECT_NE(error_of("rules: [{id: x, prefer: {generic: 99999999}}]").find("allowed range"), std::string::npos);
  EXPECT_NE(error_of("rules: [{id: x, deny: Generic}]").find("not a plugin name"), std::string::npos);
  EXPECT_NE(error_of("rules: [{id: x, deny: a, match: {name: '(['}}]").find("not a valid regular expression"),
            std::string::npos);
  EXPECT_NE(error_of("rules: [{id: x, deny: a, match: {driver_version: {min: r40p0, max: r32p0}}}]").find("range is empty"),
            std::string::npos);
  EXPECT_NE(error_of("rules: [{id: x, deny: a, match: {driver_version: {min: r40p0, max: 31.0.1}}}]").find("different version schemes"),
            std::string::npos);
  EXPECT_NE(error_of("rules: [{id: x, match: {family: mali}}]").find("does nothing"), std::string::npos);
  EXPECT_NE(error_of("rules: [{id: x, force: a, deny: a}]").find("both forces and denies"), std::string::npos);
  EXPECT_NE(error_of("rules: [{id: x, deny: a}, {id: x, deny: b}]").find("duplicate rule id 'x'"), std::string::npos);
}

TEST(PolicyModelKeys, CacheTypesAndTheMemoryLimitParseLayerByLayer) {
  Policy p;
  ASSERT_TRUE(p.add_layer("cache_type_k: q8_0\ncache_type_v: q4_0\nmemory_limit: 512M\n", "a.yaml").ok());
  EXPECT_EQ(p.globals().cache_type_k, "q8_0");
  EXPECT_EQ(p.globals().cache_type_v, "q4_0");
  EXPECT_EQ(p.globals().memory_limit_bytes, uint64_t{512} << 20);
  ASSERT_TRUE(p.add_layer("memory_limit: 3GiB\n", "b.yaml").ok());
  EXPECT_EQ(p.globals().memory_limit_bytes, uint64_t{3} << 30);
  EXPECT_EQ(p.globals().cache_type_k, "q8_0") << "a later layer without the key keeps it";
  ASSERT_TRUE(p.add_layer("memory_limit: 1000\n", "c.yaml").ok());
  EXPECT_EQ(p.globals().memory_limit_bytes, 1000u);
}

TEST(PolicyModelKeys, BadValuesNameWhatIsAllowed) {
  EXPECT_NE(error_of("cache_type_k: q5_0\n").find("'cache_type_k' must be f16, f32, q8_0 or q4_0, not 'q5_0'"),
            std::string::npos);
  EXPECT_NE(error_of("memory_limit: 12X\n").find("'memory_limit' must be a number of bytes"), std::string::npos);
  EXPECT_NE(error_of("memory_limit: -5\n").find("'memory_limit' must be a number of bytes"), std::string::npos);
  EXPECT_NE(error_of("memory_limit: 99999999999T\n").find("too large"), std::string::npos);
}

TEST(PolicyErrors, DeepNestingIsRefusedWithAPosition) {
  std::string deep = "plugins:\n  generic: ";
  for (int i = 0; i < 5000; ++i) deep += "[";
  const std::string m = error_of(deep);
  EXPECT_NE(m.find("nesting deeper than 32 levels"), std::string::npos) << m;
  EXPECT_EQ(m.rfind("user.yaml:2:", 0), 0u) << m;
}

TEST(PolicyErrors, AliasBombIsRefused) {
  const std::string bomb =
      "a: &a [x, x, x, x, x, x, x, x, x]\n"
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
      "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n";
  const std::string m = error_of(bomb);
  EXPECT_EQ(m.rfind("user.yaml:2:", 0), 0u) << m;
  EXPECT_NE(m.find("aliases"), std::string::npos) << m;
}

TEST(PolicyErrors, OversizedAndMultiDocumentFilesAreRefused) {
  EXPECT_NE(error_of(std::string(2 << 20, '#')).find("bytes, the limit"), std::string::npos);
  EXPECT_NE(error_of("precision: fp32\n---\nprecision: fp16\n").find("only one YAML document"), std::string::npos);
}

TEST(PolicyErrors, AFailedLayerChangesNothing) {
  Policy p;
  ASSERT_TRUE(p.add_layer("plugin_dir: /good\nrules: [{id: keep, deny: a}]\n", "base.yaml").ok());
  // Valid global keys first, the error last: none of it may be applied.
  EXPECT_FALSE(p.add_layer("plugin_dir: /evil\nprecision: fp16\nrules: [{id: keep, deny: b}, {id: bad}]\n", "u.yaml").ok());
  EXPECT_EQ(p.globals().plugin_dir, "/good");
  EXPECT_EQ(p.globals().precision, Precision::Auto);
  ASSERT_EQ(p.rules().size(), 1u);
  EXPECT_EQ(p.rules()[0].deny_plugins, std::vector<std::string>{"a"});
  EXPECT_EQ(p.layers(), std::vector<std::string>{"base.yaml"});
}

TEST(PolicyErrors, CacheDirMustBeAbsoluteOrOff) {
  EXPECT_EQ(error_of("cache_dir: 42\n").rfind("user.yaml:1:12: 'cache_dir' must be an absolute path or off, not '42'", 0), 0u);
  EXPECT_NE(error_of("cache_dir: cache/programs\n").find("not 'cache/programs'"), std::string::npos);
  Policy p;
  EXPECT_TRUE(p.add_layer("cache_dir: /var/cache/clport\n", "a.yaml").ok());
  EXPECT_TRUE(p.add_layer("cache_dir: off\n", "b.yaml").ok());
  EXPECT_EQ(p.globals().cache_dir, "off");
}

TEST(PolicyErrors, ADirectoryIsNotAPolicyFile) {
  auto p = Policy::load("/tmp", false);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().stage(), Stage::Config);
  EXPECT_NE(p.status().message().find("policy file '/tmp' is a directory"), std::string::npos) << p.status().message();
}

TEST(PolicyErrors, LoadReportsAMissingUserFile) {
  auto p = Policy::load("/nonexistent/clport.yaml", false);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("/nonexistent/clport.yaml"), std::string::npos);
}

}  // namespace
}  // namespace clport
