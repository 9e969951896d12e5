// Runs the GGUF reader over every file of the fuzz seed corpus (plus anything the fuzzer found
// and we committed): valid_* must open, bad_* must be refused with a Model error, and nothing
// may crash. Also checks the committed corpus covers every malformed class the tests know.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "gguf/gguf.h"
#include "gguf_test_cases.h"

namespace clport {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

TEST(GgufFuzzCorpus, EveryFileBehaves) {
  const fs::path dir = CLPORT_FUZZ_CORPUS_DIR;
  ASSERT_TRUE(fs::is_directory(dir)) << "corpus directory missing: " << dir;
  int valid = 0, bad = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const auto bytes = read_all(entry.path());
    auto f = GgufFile::open_memory(bytes.data(), bytes.size());
    if (name.rfind("valid_", 0) == 0) {
      EXPECT_TRUE(f.ok()) << name << ": " << f.status().to_string();
      ++valid;
    } else if (name.rfind("bad_", 0) == 0) {
      ASSERT_FALSE(f.ok()) << name << " was accepted";
      EXPECT_EQ(f.status().stage(), Stage::Model) << name;
      ++bad;
    }
    // Other names (fuzzer finds kept as regressions) only have to not crash.
  }
  EXPECT_GE(valid, 3);
  EXPECT_GE(bad, 40);
}

TEST(GgufFuzzCorpus, CoversEveryMalformedClass) {
  const fs::path dir = CLPORT_FUZZ_CORPUS_DIR;
  for (const auto& c : gguf_test::make_malformed_cases()) {
    const fs::path p = dir / ("bad_" + c.name + ".gguf");
    EXPECT_TRUE(fs::exists(p)) << p << " missing: regenerate with gguf_make_corpus " << dir;
  }
}

}  // namespace
}  // namespace clport
