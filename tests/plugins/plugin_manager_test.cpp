// Discovery and refusal: every refusal case is checked for its reason, and nothing crashes.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "plugins/plugin_manager.h"

namespace fs = std::filesystem;

namespace clport {
namespace {

// A private (0700) temporary directory, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "clport-plugins-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, ec);
    fs::remove_all(path_, ec);
  }
  fs::path path() const { return path_; }

 private:
  fs::path path_;
};

PluginSearchOptions only(std::vector<std::string> paths) {
  PluginSearchOptions o;
  o.paths = std::move(paths);
  o.use_environment = false;
  o.use_default_dirs = false;
  return o;
}

std::string refusal_for(const PluginManager& m, const std::string& path) {
  for (const auto& r : m.refusals()) {
    if (r.path == path) return r.reason;
  }
  return "<not refused>";
}

TEST(PluginManager, LoadsAGoodPlugin) {
  auto m = PluginManager::discover(only({FAKE_PLUGIN_fake_vendor}));
  ASSERT_EQ(m->plugins().size(), 1u);
  EXPECT_EQ(m->plugins()[0]->name(), "fakevendor");
  EXPECT_EQ(m->plugins()[0]->version(), "test");
  EXPECT_EQ(m->plugins()[0]->abi_minor(), 7u);
  EXPECT_TRUE(m->refusals().empty());
}

TEST(PluginManager, RefusesADifferentAbiMajorNamingBothVersions) {
  auto m = PluginManager::discover(only({FAKE_PLUGIN_bad_abi}));
  EXPECT_TRUE(m->plugins().empty());
  const std::string reason = refusal_for(*m, FAKE_PLUGIN_bad_abi);
  EXPECT_NE(reason.find("plugin ABI 99.7"), std::string::npos) << reason;
  EXPECT_NE(reason.find("ABI " + std::to_string(CLPORT_PLUGIN_ABI_MAJOR) + "."), std::string::npos) << reason;
}

// The settings declarations of ABI 2 are shorter (no enum names): read with ABI 3's stride, the
// table would be garbage, so the major version refuses it first.
TEST(PluginManager, RefusesAnAbiTwoPluginNamingBothVersions) {
  auto m = PluginManager::discover(only({FAKE_PLUGIN_abi2}));
  EXPECT_TRUE(m->plugins().empty());
  const std::string reason = refusal_for(*m, FAKE_PLUGIN_abi2);
  EXPECT_NE(reason.find("plugin ABI 2.3, this clport speaks ABI " + std::to_string(CLPORT_PLUGIN_ABI_MAJOR) + "." +
                        std::to_string(CLPORT_PLUGIN_ABI_MINOR) + " (major versions must match)"),
            std::string::npos)
      << reason;
  EXPECT_EQ(CLPORT_PLUGIN_ABI_MAJOR, 3);
}

TEST(PluginManager, RefusesAnEnumCandidateBeyondItsNames) {
  auto m = PluginManager::discover(only({FAKE_PLUGIN_bad_enum}));
  EXPECT_TRUE(m->plugins().empty());
  EXPECT_NE(refusal_for(*m, FAKE_PLUGIN_bad_enum).find("setting 3 'mode': candidate 3 is not one of its values"),
            std::string::npos)
      << refusal_for(*m, FAKE_PLUGIN_bad_enum);
}

TEST(PluginManager, RefusesAnAbiOnePluginNamingBothVersions) {
  auto m = PluginManager::discover(only({FAKE_PLUGIN_abi1}));
  EXPECT_TRUE(m->plugins().empty());
  const std::string reason = refusal_for(*m, FAKE_PLUGIN_abi1);
  EXPECT_NE(reason.find("plugin ABI 1.3"), std::string::npos) << reason;
  EXPECT_NE(reason.find("this clport speaks ABI " + std::to_string(CLPORT_PLUGIN_ABI_MAJOR) + "." +
                        std::to_string(CLPORT_PLUGIN_ABI_MINOR)),
            std::string::npos)
      << reason;
}

TEST(PluginManager, RefusesALibraryWithoutTheEntrySymbol) {
  auto m = PluginManager::discover(only({FAKE_PLUGIN_bad_no_entry}));
  EXPECT_TRUE(m->plugins().empty());
  EXPECT_NE(refusal_for(*m, FAKE_PLUGIN_bad_no_entry).find("not a clport plugin: no 'clport_plugin_entry'"),
            std::string::npos);
}

TEST(PluginManager, RefusesATableTooSmallForTheAbi) {
  auto m = PluginManager::discover(only({FAKE_PLUGIN_bad_small_table}));
  EXPECT_TRUE(m->plugins().empty());
  EXPECT_NE(refusal_for(*m, FAKE_PLUGIN_bad_small_table).find("struct_size"), std::string::npos);
}

// Cut at several points: inside the loaded code, and in the trailing sections only (which
// dlopen alone would accept).
TEST(PluginManager, RefusesTruncatedCopies) {
  std::ifstream in(FAKE_PLUGIN_fake_vendor, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 4096u);
  for (size_t keep : {size_t{40}, size_t{2000}, bytes.size() / 3, bytes.size() - 1}) {
    TempDir dir;
    const fs::path copy = dir.path() / "libtruncated.so";
    std::ofstream(copy, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(keep));
    auto m = PluginManager::discover(only({dir.path().string()}));
    EXPECT_TRUE(m->plugins().empty()) << "kept " << keep;
    const std::string reason = refusal_for(*m, copy.string());
    EXPECT_NE(reason.find("truncated"), std::string::npos) << "kept " << keep << ": " << reason;
  }
}

TEST(PluginManager, RefusesAFileThatIsNotALibrary) {
  TempDir dir;
  const fs::path text = dir.path() / "libnotes.so";
  std::ofstream(text) << "this is not an ELF file\n";
  auto m = PluginManager::discover(only({dir.path().string()}));
  EXPECT_TRUE(m->plugins().empty());
  EXPECT_NE(refusal_for(*m, text.string()).find("cannot load the library"), std::string::npos);
}

TEST(PluginManager, RefusesAPluginInAWorldWritableDirectoryUnlessAllowed) {
  TempDir dir;
  const fs::path copy = dir.path() / "libfake.so";
  fs::copy_file(FAKE_PLUGIN_fake_vendor, copy);
  fs::permissions(dir.path(), fs::perms::all);  // 0777
  auto m = PluginManager::discover(only({dir.path().string()}));
  EXPECT_TRUE(m->plugins().empty());
  const std::string reason = refusal_for(*m, copy.string());
  EXPECT_NE(reason.find("group- or world-writable"), std::string::npos) << reason;
  EXPECT_NE(reason.find("0777"), std::string::npos) << reason;

  auto options = only({dir.path().string()});
  options.allow_insecure_dirs = true;
  auto allowed = PluginManager::discover(options);
  ASSERT_EQ(allowed->plugins().size(), 1u);
}

TEST(PluginManager, TwoPluginsWithOneNameFirstInSearchOrderWins) {
  auto m = PluginManager::discover(only({FAKE_PLUGIN_fake_vendor_dup, FAKE_PLUGIN_fake_vendor}));
  ASSERT_EQ(m->plugins().size(), 1u);
  EXPECT_EQ(m->plugins()[0]->path(), FAKE_PLUGIN_fake_vendor_dup);
  const std::string reason = refusal_for(*m, FAKE_PLUGIN_fake_vendor);
  EXPECT_NE(reason.find("duplicate name"), std::string::npos) << reason;
  EXPECT_NE(reason.find(FAKE_PLUGIN_fake_vendor_dup), std::string::npos) << reason;
}

TEST(PluginManager, SearchesClportPluginPathInOrder) {
  const std::string list = std::string(FAKE_PLUGIN_fake_generic) + ":/nonexistent/dir:" + FAKE_PLUGIN_fake_second;
  ::setenv("CLPORT_PLUGIN_PATH", list.c_str(), 1);
  PluginSearchOptions o;
  o.use_default_dirs = false;
  auto m = PluginManager::discover(o);
  ::unsetenv("CLPORT_PLUGIN_PATH");
  ASSERT_EQ(m->plugins().size(), 2u);
  EXPECT_EQ(m->plugins()[0]->name(), "fakegeneric");
  EXPECT_EQ(m->plugins()[1]->name(), "fakesecond");
  ASSERT_EQ(m->searched().size(), 3u);
  EXPECT_NE(m->searched()[1].find("missing"), std::string::npos);
}

TEST(PluginManager, ADirectoryIsLoadedInSortedOrderAndDuplicatesAreSkipped) {
  TempDir dir;
  fs::copy_file(FAKE_PLUGIN_fake_second, dir.path() / "libb.so");
  fs::copy_file(FAKE_PLUGIN_fake_generic, dir.path() / "liba.so");
  // The same directory twice: the second visit must not produce duplicate-name refusals.
  auto m = PluginManager::discover(only({dir.path().string(), dir.path().string()}));
  ASSERT_EQ(m->plugins().size(), 2u);
  EXPECT_EQ(m->plugins()[0]->name(), "fakegeneric");
  EXPECT_TRUE(m->refusals().empty());
}

}  // namespace
}  // namespace clport
