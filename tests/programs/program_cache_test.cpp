// Program cache basics: miss/save/hit, the key, the directory rules, the debug trace.
#include <sys/stat.h>

#include <cstdlib>
#include <sstream>

#include <spdlog/sinks/ostream_sink.h>

#include "common/logger.h"
#include "program_cache_fixture.h"
#include "programs/cache_entry.h"

namespace clport {
namespace {

namespace fs = std::filesystem;
using testing::ProgramCacheTest;

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_, old_.c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST_F(ProgramCacheTest, MissSavesAndTheNextProcessHits) {
  auto first = fresh_cache();
  ASSERT_TRUE(first->enabled());
  build_and_check(*first);
  ProgramCacheCounters c = first->counters();
  EXPECT_EQ(c.misses, 1u);
  EXPECT_EQ(c.hits, 0u);
  EXPECT_EQ(c.saves, 1u);
  const std::string key = first->key(testing::kAddOneSource, "");
  ASSERT_TRUE(fs::exists(first->entry_path(key)));

  auto second = fresh_cache();
  build_and_check(*second);
  c = second->counters();
  EXPECT_EQ(c.hits, 1u);
  EXPECT_EQ(c.misses, 0u);
  EXPECT_EQ(c.saves, 0u);
  EXPECT_EQ(c.rejected, 0u);
}

TEST_F(ProgramCacheTest, EntryFileHasTheDocumentedLayout) {
  auto cache = fresh_cache();
  build_and_check(*cache);
  const std::string key_hex = cache->key(testing::kAddOneSource, "");
  const auto bytes = read_bytes(cache->entry_path(key_hex));
  ASSERT_GT(bytes.size(), programs::kEntryHeaderBytes);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), "CLPORTPC");
  EXPECT_EQ(bytes[8], kProgramCacheFormatVersion);
  std::string stored_key;
  for (int i = 16; i < 48; ++i) {
    char hex[3];
    std::snprintf(hex, sizeof(hex), "%02x", bytes[i]);
    stored_key += hex;
  }
  EXPECT_EQ(stored_key, key_hex);
  uint64_t size = 0;
  for (int i = 0; i < 8; ++i) size |= uint64_t{bytes[48 + i]} << (8 * i);
  EXPECT_EQ(size, bytes.size() - programs::kEntryHeaderBytes);
  const auto payload = programs::sha256(bytes.data() + programs::kEntryHeaderBytes, size);
  EXPECT_TRUE(std::equal(payload.begin(), payload.end(), bytes.begin() + 56));
}

TEST_F(ProgramCacheTest, KeyCoversSourceOptionsAndDeviceIdentity) {
  auto cache = fresh_cache();
  const std::string base = cache->key("src", "-O");
  EXPECT_EQ(base.size(), 64u);
  EXPECT_EQ(base, cache->key("src", "-O"));
  EXPECT_NE(base, cache->key("src2", "-O"));
  EXPECT_NE(base, cache->key("src", "-O2"));
  // Field boundaries matter: moving a character from source to options changes the key.
  EXPECT_NE(cache->key("ab", "c"), cache->key("a", "bc"));
  const auto& cl = device_.library->api();
  auto with = [&](ProgramCacheIdentity id) {
    ProgramCacheOptions options;
    options.directory = dir_.string();
    return ProgramCache(cl, context_, device_.info.device, id, options).key("src", "-O");
  };
  ProgramCacheIdentity id = identity();
  EXPECT_EQ(with(id), base);
  id.device_name += "x";
  EXPECT_NE(with(id), base);
  id = identity();
  id.driver_version += "x";
  EXPECT_NE(with(id), base);
  id = identity();
  id.platform_version += "x";
  EXPECT_NE(with(id), base);
}

TEST_F(ProgramCacheTest, DifferentOptionsAreDifferentEntries) {
  auto cache = fresh_cache();
  build_and_check(*cache, "");
  build_and_check(*cache, "-cl-fast-relaxed-math");
  EXPECT_EQ(cache->counters().saves, 2u);
  EXPECT_EQ(cache->counters().misses, 2u);
}

TEST_F(ProgramCacheTest, DirectoryIsCreatedOwnerOnly) {
  const fs::path nested = dir_ / "a" / "b";
  auto cache = fresh_cache(nested.string());
  ASSERT_TRUE(cache->enabled());
  EXPECT_EQ(cache->directory(), nested.string());
  for (const fs::path& p : {dir_, dir_ / "a", nested}) {
    struct stat st {};
    ASSERT_EQ(::stat(p.c_str(), &st), 0) << p;
    EXPECT_EQ(st.st_mode & 0777, 0700u) << p;
  }
}

TEST_F(ProgramCacheTest, UnwritableDirectoryDisablesTheCacheNotTheBuild) {
  fs::create_directories(dir_);
  const fs::path file = dir_ / "a-file";
  std::ofstream(file) << "not a directory";
  // A directory below a regular file can never be created, even by root.
  auto cache = fresh_cache((file / "cache").string());
  EXPECT_FALSE(cache->enabled());
  build_and_check(*cache);
  EXPECT_EQ(cache->counters().saves, 0u);
  EXPECT_EQ(cache->counters().misses, 1u);
  if (::geteuid() != 0) {  // permission bits do not stop root
    const fs::path readonly = dir_ / "readonly";
    fs::create_directories(readonly);
    fs::permissions(readonly, fs::perms::owner_read | fs::perms::owner_exec,
                    fs::perm_options::replace);
    auto ro = fresh_cache(readonly.string());
    EXPECT_FALSE(ro->enabled());
    build_and_check(*ro);
    fs::permissions(readonly, fs::perms::owner_all, fs::perm_options::replace);
  }
}

TEST_F(ProgramCacheTest, EnvironmentSelectsOrSwitchesOffTheDirectory) {
  const auto& cl = device_.library->api();
  auto from_env = [&] {
    return std::make_unique<ProgramCache>(cl, context_, device_.info.device, identity());
  };
  {
    ScopedEnv env("CLPORT_CACHE_DIR", "off");
    EXPECT_FALSE(from_env()->enabled());
  }
  {
    ScopedEnv env("CLPORT_CACHE_DIR", dir_.c_str());
    auto cache = from_env();
    EXPECT_TRUE(cache->enabled());
    EXPECT_EQ(cache->directory(), dir_.string());
  }
  {
    ScopedEnv env("CLPORT_CACHE_DIR", nullptr);
    ScopedEnv xdg("XDG_CACHE_HOME", (dir_ / "xdg").c_str());
    EXPECT_EQ(ProgramCache::default_directory(), (dir_ / "xdg" / "clport" / "programs").string());
    auto cache = from_env();
    EXPECT_TRUE(cache->enabled());
    EXPECT_EQ(cache->directory(), ProgramCache::default_directory());
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
    ScopedEnv home("HOME", dir_.c_str());
    EXPECT_EQ(ProgramCache::default_directory(), (dir_ / ".cache" / "clport" / "programs").string());
  }
  {
    ScopedEnv env("CLPORT_CACHE_DIR", "off");
    ProgramCacheOptions explicit_dir;
    explicit_dir.directory = dir_.string();  // the caller's choice beats the environment
    EXPECT_TRUE(ProgramCache(cl, context_, device_.info.device, identity(), explicit_dir).enabled());
  }
}

TEST_F(ProgramCacheTest, BuildFailureCarriesTheBuildLogAndSavesNothing) {
  auto cache = fresh_cache();
  auto program = cache->build("__kernel void k(__global int* x) { x[0] = missing_symbol; }", "");
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.status().stage(), Stage::ProgramBuild);
  EXPECT_NE(program.status().message().find("missing_symbol"), std::string::npos)
      << program.status().message();
  EXPECT_EQ(cache->counters().build_failures, 1u);
  EXPECT_EQ(cache->counters().saves, 0u);
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) files += e.path().extension() == ".clbin";
  EXPECT_EQ(files, 0u);
}

TEST_F(ProgramCacheTest, MemoizedBuildsShareOneProgram) {
  ProgramCacheOptions options;
  options.directory = dir_.string();
  ProgramCache cache(device_.library->api(), context_, device_.info.device, identity(), options);
  auto a = cache.build(testing::kAddOneSource, "");
  auto b = cache.build(testing::kAddOneSource, "");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.value(), b.value());
  EXPECT_EQ(cache.counters().memo_hits, 1u);
  EXPECT_EQ(cache.counters().misses, 1u);
  // Each caller owns a reference: releasing both leaves the cache's own one working.
  device_.library->api().clReleaseProgram(a.value());
  device_.library->api().clReleaseProgram(b.value());
  auto c = cache.build(testing::kAddOneSource, "");
  ASSERT_TRUE(c.ok());
  expect_program_works(c.value());
  device_.library->api().clReleaseProgram(c.value());
}

TEST_F(ProgramCacheTest, DebugTraceNamesHitMissSaveWithCounters) {
  std::ostringstream captured;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(captured);
  auto log = logger("programs.cache");
  log->sinks().push_back(sink);
  {
    ScopedEnv debug("CLPORT_CACHE_DEBUG", "1");
    build_and_check(*fresh_cache());
    build_and_check(*fresh_cache());
  }
  log->flush();
  log->sinks().pop_back();
  const std::string text = captured.str();
  EXPECT_NE(text.find("MISS"), std::string::npos) << text;
  EXPECT_NE(text.find("SAVE"), std::string::npos) << text;
  EXPECT_NE(text.find("HIT"), std::string::npos) << text;
  EXPECT_NE(text.find("hits=1"), std::string::npos) << text;
  // Without the variable: silent.
  std::ostringstream quiet;
  log->sinks().push_back(std::make_shared<spdlog::sinks::ostream_sink_mt>(quiet));
  build_and_check(*fresh_cache());
  log->flush();
  log->sinks().pop_back();
  EXPECT_EQ(quiet.str().find("HIT"), std::string::npos) << quiet.str();
}

}  // namespace
}  // namespace clport
