// The one cache-directory resolver (programs/cache_location.h): explicit settings in their order,
// "off", unusable explicit directories, the XDG / HOME defaults, and no HOME at all; directories
// others can write (or that belong to someone else) refused; a full disk leaves nothing behind.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "programs/cache_location.h"
#include "scoped_env.h"
#include "test_dir.h"

namespace clport {
namespace {

namespace fs = std::filesystem;
using testing_env::ScopedEnv;

class CacheLocationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test::fresh_test_dir("clport-cache-location");
    fs::create_directories(root_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  std::string dir(const std::string& name) const { return (root_ / name).string(); }
  // A path below a regular file: no one can create it, root included.
  std::string uncreatable() const {
    std::ofstream(root_ / "a-file") << "not a directory";
    return (root_ / "a-file" / "cache").string();
  }
  fs::path root_;
};

TEST_F(CacheLocationTest, ExplicitSettingsWinInOrderApplicationPolicyEnvironment) {
  ScopedEnv env{{"CLPORT_CACHE_DIR", nullptr}, {"XDG_CACHE_HOME", nullptr}};
  env.set("HOME", dir("home").c_str());
  env.set("CLPORT_CACHE_DIR", dir("env").c_str());
  CacheLocation a = resolve_cache_location({dir("app"), dir("policy")});
  EXPECT_EQ(a.directory, dir("app"));
  EXPECT_EQ(a.source, "the application");
  CacheLocation p = resolve_cache_location({"", dir("policy")});
  EXPECT_EQ(p.directory, dir("policy"));
  EXPECT_EQ(p.source, "the policy's cache_dir:");
  CacheLocation e = resolve_cache_location({"", ""});
  EXPECT_EQ(e.directory, dir("env"));
  EXPECT_EQ(e.source, "CLPORT_CACHE_DIR");
  EXPECT_EQ(e.describe(), "cache: " + dir("env") + " (from CLPORT_CACHE_DIR)");
  CacheLocation no_env = resolve_cache_location({"", "", /*use_environment=*/false});
  EXPECT_EQ(no_env.directory, dir("home") + "/.cache/clport/programs");
  EXPECT_TRUE(fs::is_directory(a.directory) && fs::is_directory(p.directory) && fs::is_directory(e.directory));
}

TEST_F(CacheLocationTest, OffInAnExplicitSettingSwitchesTheCacheOff) {
  ScopedEnv env{{"CLPORT_CACHE_DIR", "off"}, {"HOME", dir("home").c_str()}};
  CacheLocation from_env = resolve_cache_location({"", ""});
  EXPECT_FALSE(from_env.enabled());
  EXPECT_EQ(from_env.describe(), "cache: off (switched off by CLPORT_CACHE_DIR (off))");
  // An earlier setting beats a later "off", and "off" beats a later directory.
  EXPECT_EQ(resolve_cache_location({dir("app"), ""}).directory, dir("app"));
  env.set("CLPORT_CACHE_DIR", dir("env").c_str());
  EXPECT_FALSE(resolve_cache_location({"off", ""}).enabled());
  EXPECT_FALSE(resolve_cache_location({"", "off"}).enabled());
}

TEST_F(CacheLocationTest, AnUnusableExplicitDirectoryIsOffNotReplacedByADefault) {
  ScopedEnv env{{"CLPORT_CACHE_DIR", nullptr}, {"XDG_CACHE_HOME", nullptr}, {"HOME", dir("home").c_str()}};
  const std::string bad = uncreatable();
  CacheLocation location = resolve_cache_location({"", bad});
  EXPECT_FALSE(location.enabled());
  EXPECT_NE(location.why_off.find("the policy's cache_dir: names " + bad + ": cannot create"), std::string::npos)
      << location.why_off;
  EXPECT_FALSE(fs::exists(dir("home") + "/.cache")) << "fell back to HOME";
}

TEST_F(CacheLocationTest, DefaultsAreXdgThenHomeAndAnUnusableOneGivesWay) {
  ScopedEnv env{{"CLPORT_CACHE_DIR", nullptr}, {"HOME", dir("home").c_str()}};
  env.set("XDG_CACHE_HOME", dir("xdg").c_str());
  CacheLocation xdg = resolve_cache_location({"", ""});
  EXPECT_EQ(xdg.directory, dir("xdg") + "/clport/programs");
  EXPECT_EQ(xdg.source, "XDG_CACHE_HOME");
  EXPECT_EQ(default_cache_directory(), xdg.directory);
  env.set("XDG_CACHE_HOME", "relative/dir");  // the XDG spec: ignored unless absolute
  CacheLocation relative = resolve_cache_location({"", ""});
  EXPECT_EQ(relative.directory, dir("home") + "/.cache/clport/programs");
  EXPECT_EQ(relative.describe(), "cache: " + relative.directory +
                                     " (from HOME; XDG_CACHE_HOME is not an absolute path (relative/dir))");
  env.set("XDG_CACHE_HOME", uncreatable().c_str());
  CacheLocation unusable = resolve_cache_location({"", ""});
  EXPECT_EQ(unusable.source, "HOME");
  ASSERT_EQ(unusable.skipped.size(), 1u);
  EXPECT_NE(unusable.skipped[0].find("XDG_CACHE_HOME: cannot create"), std::string::npos) << unusable.skipped[0];
}

TEST_F(CacheLocationTest, WithoutHomeTheCacheIsOffAndSaysWhy) {
  ScopedEnv env{{"CLPORT_CACHE_DIR", nullptr}, {"XDG_CACHE_HOME", nullptr}, {"HOME", nullptr}};
  CacheLocation location = resolve_cache_location({"", ""});
  EXPECT_FALSE(location.enabled());
  EXPECT_EQ(default_cache_directory(), "");
  EXPECT_EQ(location.describe(),
            "cache: off (XDG_CACHE_HOME is not set; HOME is not set; set CLPORT_CACHE_DIR or the "
            "policy's cache_dir: to a writable directory)");
  EXPECT_EQ(resolve_cache_location({dir("app"), ""}).directory, dir("app"));
  if (::geteuid() != 0) {  // permission bits do not stop root
    fs::create_directories(dir("readonly-home"));
    fs::permissions(dir("readonly-home"), fs::perms::owner_read | fs::perms::owner_exec, fs::perm_options::replace);
    env.set("HOME", dir("readonly-home").c_str());
    CacheLocation readonly = resolve_cache_location({"", ""});
    EXPECT_FALSE(readonly.enabled());
    EXPECT_NE(readonly.why_off.find("HOME: cannot create " + dir("readonly-home") + "/.cache"), std::string::npos)
        << readonly.why_off;
    fs::permissions(dir("readonly-home"), fs::perms::owner_all, fs::perm_options::replace);
  }
}

TEST_F(CacheLocationTest, AGroupOrWorldWritableDirectoryIsRefused) {
  ScopedEnv env{{"CLPORT_CACHE_DIR", nullptr}, {"XDG_CACHE_HOME", nullptr}, {"HOME", dir("home").c_str()}};
  for (const fs::perms extra : {fs::perms::group_write, fs::perms::others_write}) {
    fs::create_directories(dir("shared"));
    fs::permissions(dir("shared"), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                       fs::perms::others_read | fs::perms::others_exec | extra,
                    fs::perm_options::replace);
    CacheLocation location = resolve_cache_location({"", dir("shared")});
    EXPECT_FALSE(location.enabled());
    EXPECT_NE(location.why_off.find(dir("shared") + " is group- or world-writable (mode 07"), std::string::npos)
        << location.why_off;
    // As a default (XDG_CACHE_HOME) it gives way to the next one.
    fs::create_directories(dir("xdg"));
    fs::create_directories(dir("xdg") + "/clport/programs");
    fs::permissions(dir("xdg") + "/clport/programs", extra, fs::perm_options::add);
    env.set("XDG_CACHE_HOME", dir("xdg").c_str());
    CacheLocation fallback = resolve_cache_location({"", ""});
    EXPECT_EQ(fallback.source, "HOME");
    ASSERT_EQ(fallback.skipped.size(), 1u);
    EXPECT_NE(fallback.skipped[0].find("group- or world-writable"), std::string::npos) << fallback.skipped[0];
    env.set("XDG_CACHE_HOME", nullptr);
    fs::remove_all(dir("shared"));
    fs::remove_all(dir("xdg"));
  }
  // Mode 0755, as a default umask creates it: accepted.
  fs::create_directories(dir("private"));
  fs::permissions(dir("private"), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                      fs::perms::others_read | fs::perms::others_exec,
                  fs::perm_options::replace);
  EXPECT_EQ(resolve_cache_location({"", dir("private")}).directory, dir("private"));
}

TEST_F(CacheLocationTest, ADirectoryOfAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a directory to another user needs root";
  ScopedEnv env{{"CLPORT_CACHE_DIR", nullptr}, {"XDG_CACHE_HOME", nullptr}, {"HOME", dir("home").c_str()}};
  fs::create_directories(dir("theirs"));
  fs::permissions(dir("theirs"), fs::perms::owner_all, fs::perm_options::replace);
  ASSERT_EQ(::chown(dir("theirs").c_str(), 65534, 65534), 0);
  CacheLocation location = resolve_cache_location({dir("theirs"), ""});
  EXPECT_FALSE(location.enabled());
  EXPECT_NE(location.why_off.find(dir("theirs") + " belongs to user 65534, not to this user (0)"), std::string::npos)
      << location.why_off;
}

TEST_F(CacheLocationTest, ARelativeDirectoryIsRefused) {
  ScopedEnv env{{"CLPORT_CACHE_DIR", "42"}, {"XDG_CACHE_HOME", nullptr}, {"HOME", dir("home").c_str()}};
  const fs::path before = fs::current_path();
  fs::current_path(root_);
  CacheLocation location = resolve_cache_location({"", ""});
  fs::current_path(before);
  EXPECT_FALSE(location.enabled());
  EXPECT_NE(location.why_off.find("CLPORT_CACHE_DIR names 42: '42' is not an absolute path"), std::string::npos)
      << location.why_off;
  EXPECT_FALSE(fs::exists(root_ / "42"));
}

// A full file system creates the write-test file and then refuses its bytes: the file must not
// stay. A file-size limit of 0 fails the write the same way (EFBIG, SIGXFSZ ignored).
TEST_F(CacheLocationTest, AFailedWriteTestLeavesNoFileBehind) {
  ScopedEnv env{{"CLPORT_CACHE_DIR", nullptr}, {"XDG_CACHE_HOME", nullptr}, {"HOME", dir("home").c_str()}};
  fs::create_directories(dir("full"));
  fs::permissions(dir("full"), fs::perms::owner_all, fs::perm_options::replace);
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto* old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit none = saved;
  none.rlim_cur = 0;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &none), 0);
  CacheLocation location = resolve_cache_location({dir("full"), ""});
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_FALSE(location.enabled());
  EXPECT_NE(location.why_off.find("cannot write into " + dir("full")), std::string::npos) << location.why_off;
  EXPECT_TRUE(fs::is_empty(dir("full"))) << "the write test left a file behind";
}

}  // namespace
}  // namespace clport
