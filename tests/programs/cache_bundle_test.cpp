// Program bundles (programs/cache_bundle.h) without a device: a round trip between two cache
// directories, a bundle for another driver skipped, and truncated, altered or ill-named bundles
// refused whole with the target directory left as it was.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "programs/cache_bundle.h"
#include "programs/cache_entry.h"
#include "programs/cache_key.h"
#include "test_dir.h"

namespace clport::programs {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void write_text(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary);
  out << s;
}
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) out[e.path().filename().string()] = read_text(e.path());
  return out;
}

class CacheBundle : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test::fresh_test_dir("clport-bundle");
    from_ = root_ / "from";
    to_ = root_ / "to";
    fs::create_directories(from_);
    fs::create_directories(to_);
    for (int i = 0; i < 2; ++i) {
      const Digest key = sha256_fields({"program", std::to_string(i)});
      const std::vector<unsigned char> binary(1000 + i, static_cast<unsigned char>(i + 7));
      const auto entry = encode_entry(key, binary);
      write_text(from_ / (to_hex(key) + ".clbin"), std::string(entry.begin(), entry.end()));
    }
    write_text(from_ / ("selftest-" + to_hex(sha256_fields({"verdict"})) + ".json"), "{\"cases\": []}");
    write_text(from_ / "tuning-0123abcd.json", "{\"gemv_wg\": 64}");
    write_text(from_ / "avoid-1234.json", "a failure record: not carried");
    write_text(from_ / "notes.txt", "not a cache entry");
    bundle_ = (root_ / "cache.bundle").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path root_, from_, to_;
  std::string bundle_;
  BundleIdentity here_{{"Device X", "driver 1.0", "OpenCL 3.0 P"}, "0.1.0"};
};

TEST_F(CacheBundle, EntriesTravelWholeIntoAnotherCache) {
  auto written = write_bundle(from_.string(), here_, bundle_);
  ASSERT_TRUE(written.ok()) << written.status().to_string();
  EXPECT_EQ(written->entries, 4u);
  auto read = read_bundle(bundle_, here_, to_.string());
  ASSERT_TRUE(read.ok()) << read.status().to_string();
  EXPECT_EQ(read->imported, 4u);
  EXPECT_EQ(read->skipped, 0u);
  auto want = files_of(from_);
  want.erase("avoid-1234.json");
  want.erase("notes.txt");
  EXPECT_EQ(files_of(to_), want);
  // Again: everything is there already, nothing is rewritten.
  auto again = read_bundle(bundle_, here_, to_.string());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->imported, 0u);
  EXPECT_EQ(again->already_present, 4u);
}

TEST_F(CacheBundle, ABundleForAnotherDriverIsSkippedWithTheReason) {
  ASSERT_TRUE(write_bundle(from_.string(), here_, bundle_).ok());
  BundleIdentity other = here_;
  other.device.driver_version = "driver 2.0";
  auto read = read_bundle(bundle_, other, to_.string());
  ASSERT_TRUE(read.ok()) << read.status().to_string();
  EXPECT_EQ(read->imported, 0u);
  EXPECT_EQ(read->skipped, 4u);
  EXPECT_NE(read->note.find("driver 1.0"), std::string::npos) << read->note;
  EXPECT_NE(read->note.find("driver 2.0"), std::string::npos) << read->note;
  EXPECT_TRUE(files_of(to_).empty());
}

TEST_F(CacheBundle, TruncatedOrAlteredBundlesAreRefusedWholeAndTheCacheStaysAsItWas) {
  ASSERT_TRUE(write_bundle(from_.string(), here_, bundle_).ok());
  const std::string good = read_text(bundle_);
  write_text(to_ / "already.clbin.note", "kept");
  const auto before = files_of(to_);
  std::vector<std::string> bad;
  for (size_t cut : {size_t(0), size_t(7), good.size() / 2, good.size() - 1}) bad.push_back(good.substr(0, cut));
  for (size_t at : {size_t(9), size_t(20), good.size() / 3, good.size() - 40, good.size() - 1}) {
    std::string flipped = good;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x01);
    bad.push_back(flipped);
  }
  for (size_t i = 0; i < bad.size(); ++i) {
    write_text(bundle_, bad[i]);
    auto read = read_bundle(bundle_, here_, to_.string());
    ASSERT_FALSE(read.ok()) << "bad bundle " << i << " was accepted";
    EXPECT_EQ(read.status().stage(), Stage::Io);
    EXPECT_NE(read.status().message().find("nothing was imported"), std::string::npos) << read.status().message();
    EXPECT_EQ(files_of(to_), before) << "bad bundle " << i;
  }
}

TEST_F(CacheBundle, ABundleThatIsWholeButCarriesABadEntryIsRefused) {
  // A program entry whose bytes are not an entry for its key, with the bundle's checksum intact:
  // the cache would reject it, so the import refuses the whole bundle.
  const Digest key = sha256_fields({"program", "0"});
  write_text(from_ / (to_hex(key) + ".clbin"), "CLPORTPC but not really an entry");
  ASSERT_TRUE(write_bundle(from_.string(), here_, bundle_).ok());
  auto read = read_bundle(bundle_, here_, to_.string());
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find(to_hex(key)), std::string::npos) << read.status().message();
  EXPECT_TRUE(files_of(to_).empty());
}

TEST_F(CacheBundle, OnlyCacheEntryNamesAreCarried) {
  EXPECT_TRUE(is_bundle_entry_name(std::string(64, 'a') + ".clbin"));
  EXPECT_TRUE(is_bundle_entry_name("selftest-" + std::string(64, '0') + ".json"));
  EXPECT_TRUE(is_bundle_entry_name("tuning-abc_1.json"));
  for (const char* bad : {"../x.clbin", "x.clbin", "tuning-../../etc.json", "tuning-a/b.json", "selftest-x.json",
                          "avoid-1.json", ""}) {
    EXPECT_FALSE(is_bundle_entry_name(bad)) << bad;
  }
}

}  // namespace
}  // namespace clport::programs
