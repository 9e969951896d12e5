// Internal: the cached self-test verdict as a small JSON file (written to a temp file and renamed,
// so a reader sees no file or a whole one).
#pragma once

#include <string>

#include "selftest/self_test.h"
#include "clport/status.h"

namespace clport::selftest::detail {

// Identity fields stored with the verdict, for people reading the file.
struct VerdictIdentity {
  std::string device, driver, platform, clport_version;
  // "name version", then what else decides the kernels an instance runs: its plugin file
  // (size and modification time) and the policy settings it was created with (their SHA-256).
  std::vector<std::string> plugins;
  std::string kernels;  // SHA-256 of the core's shared kernel sources (and CLPORT_KERNEL_DIR's)
};

Status save_verdict(const std::string& path, const VerdictIdentity& id, const Verdict& verdict);
// Fills verdict.cases / seed; Status when the file is missing (NotFound-like: Stage::Config
// with "missing") or unreadable / malformed / for another key.
Result<Verdict> load_verdict(const std::string& path, const std::string& key);

}  // namespace clport::selftest::detail
