// Several processes start cold against one empty cache directory at the same moment: all must
// succeed, none may ever read a half-written entry (it would be counted as rejected), and what
// is left is one valid entry per program and no temp files.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "programs/cache_entry.h"

extern char** environ;

namespace clport {
namespace {

namespace fs = std::filesystem;

programs::Digest digest_from_hex(const std::string& hex) {
  programs::Digest d{};
  for (size_t i = 0; i < d.size() && 2 * i + 1 < hex.size(); ++i) {
    d[i] = static_cast<unsigned char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  }
  return d;
}

TEST(ProgramCacheProcesses, ColdStartRaceLeavesOnlyValidEntries) {
  const fs::path dir =
      fs::temp_directory_path() / ("clport-pc-race-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  constexpr int kProcesses = 6;
  constexpr int kPrograms = 3;
  constexpr int kRounds = 2;
  std::vector<pid_t> pids;
  std::vector<fs::path> outputs;
  for (int p = 0; p < kProcesses; ++p) {
    outputs.push_back(dir.string() + "-out-" + std::to_string(p));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, outputs.back().c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const std::string n = std::to_string(kPrograms), rounds = std::to_string(kRounds);
    std::vector<char*> args = {const_cast<char*>(PROGRAM_CACHE_WORKER),
                               const_cast<char*>(dir.c_str()), const_cast<char*>(n.c_str()),
                               const_cast<char*>(rounds.c_str()), nullptr};
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, PROGRAM_CACHE_WORKER, &actions, nullptr, args.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    pids.push_back(pid);
  }
  uint64_t saves = 0;
  for (int p = 0; p < kProcesses; ++p) {
    int status = 0;
    ASSERT_EQ(waitpid(pids[p], &status, 0), pids[p]);
    std::ifstream in(outputs[p]);
    std::string line;
    std::getline(in, line);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "worker " << p << ": " << line;
    unsigned long long hits = 0, misses = 0, saved = 0, rejected = 99;
    int ok = 0;
    ASSERT_EQ(std::sscanf(line.c_str(), "ok=%d hits=%llu misses=%llu saves=%llu rejected=%llu", &ok,
                          &hits, &misses, &saved, &rejected),
              5)
        << line;
    EXPECT_EQ(ok, 1);
    EXPECT_EQ(rejected, 0u) << "worker " << p << " saw a damaged entry";
    EXPECT_EQ(hits + misses, uint64_t{kPrograms} * kRounds);
    saves += saved;
    fs::remove(outputs[p]);
  }
  EXPECT_GE(saves, uint64_t{kPrograms});
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    ASSERT_EQ(name.find(".tmp."), std::string::npos) << "temp file left behind: " << name;
    ASSERT_EQ(e.path().extension(), ".clbin") << name;
    std::vector<unsigned char> bytes;
    ASSERT_EQ(programs::read_whole_file(e.path().string(), bytes), programs::ReadOutcome::Read);
    auto decoded = programs::decode_entry(bytes, digest_from_hex(e.path().stem().string()));
    EXPECT_TRUE(decoded.ok()) << name << ": " << decoded.status().to_string();
    ++entries;
  }
  EXPECT_EQ(entries, size_t{kPrograms});
  fs::remove_all(dir);
}

}  // namespace
}  // namespace clport
