// Per-test scratch folders: ctest runs tests of one binary in parallel processes, so each test's
// files live in a folder named after the test and the process.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

namespace clport::test {

// The running test's name as part of a file name ('/' of parameterised names replaced).
inline std::string test_name_tag() {
  std::string tag = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::replace(tag.begin(), tag.end(), '/', '_');
  return tag;
}

// "<temp>/<prefix>-<pid>-<test>", removed first so the test starts from nothing.
inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()) + "-" + test_name_tag());
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return dir;
}

}  // namespace clport::test
