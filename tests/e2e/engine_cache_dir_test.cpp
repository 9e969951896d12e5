// EngineOptions::cache_dir, the application's cache directory (what an app without HOME passes,
// and what the C API's cache-directory option maps to): it beats the policy's cache_dir: and
// CLPORT_CACHE_DIR, holds the compiled programs and the self-test verdict, and "off" keeps none.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/engine_core.h"
#include "model_compare.h"
#include "scoped_env.h"

namespace clport::test {
namespace {

namespace fs = std::filesystem;

size_t files_like(const fs::path& dir, const std::string& prefix, const std::string& suffix) {
  size_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    n += name.rfind(prefix, 0) == 0 && name.size() >= suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  }
  return n;
}

TEST(EngineCacheDir, TheApplicationsDirectoryBeatsThePolicyAndTheEnvironment) {
  const fs::path root = fs::temp_directory_path() / ("clport-engine-cache-dir-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const fs::path app = root / "app", policy_dir = root / "policy", env_dir = root / "env";
  testing_env::ScopedEnv env{{"CLPORT_CACHE_DIR", env_dir.c_str()}, {"CLPORT_SELF_TEST", nullptr},
                             {"CLPORT_CONFIG", nullptr}};
  std::ofstream(root / "policy.yaml") << "version: 1\ncache_dir: " << policy_dir.string() << "\n";
  const fs::path model = write_temp_model(RandomModelSpec{}, "cache_dir");

  EngineOptions options;
  options.model_path = model.string();
  options.config_path = (root / "policy.yaml").string();
  options.cache_dir = app.string();
  auto backend = create_backend(options);
  ASSERT_TRUE(backend.ok()) << backend.status().to_string();
  if (backend.value()->device_info() == nullptr) GTEST_SKIP() << "no OpenCL device: nothing is cached";
  EXPECT_GT(files_like(app, "", ".clbin"), 0u);
  EXPECT_EQ(files_like(app, "selftest-", ".json"), 1u);
  EXPECT_FALSE(fs::exists(policy_dir));
  EXPECT_FALSE(fs::exists(env_dir));
  backend.value().reset();

  options.cache_dir = "off";
  fs::remove_all(app);
  auto uncached = create_backend(options);
  ASSERT_TRUE(uncached.ok()) << uncached.status().to_string();
  EXPECT_FALSE(fs::exists(app) || fs::exists(policy_dir) || fs::exists(env_dir));
  uncached.value().reset();

  std::error_code ec;
  fs::remove(model, ec);
  fs::remove_all(root, ec);
}

}  // namespace
}  // namespace clport::test
