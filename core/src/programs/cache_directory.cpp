#include "programs/cache_directory.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

namespace clport::programs {

namespace fs = std::filesystem;

Status prepare_cache_directory(const std::string& dir) {
  if (dir.empty()) return Status(Stage::InvalidArgument, "empty cache directory");
  std::error_code ec;
  // Missing ancestors, outermost first, so each one is created with our permissions.
  std::vector<fs::path> missing;
  for (fs::path p = fs::path(dir).lexically_normal(); !p.empty() && !fs::exists(p, ec);
       p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    fs::create_directory(*it, ec);
    if (ec && !fs::is_directory(*it)) {
      return Status(Stage::Io, "cannot create " + it->string() + ": " + ec.message());
    }
    fs::permissions(*it, fs::perms::owner_all, fs::perm_options::replace, ec);
  }
  if (!fs::is_directory(dir, ec)) return Status(Stage::Io, dir + " is not a directory");
  // Permission bits do not tell the whole story (read-only mounts, SELinux on Android): try.
  // A unique name: several processes may probe the same directory at once.
  const fs::path probe =
      fs::path(dir) / (".clport-write-test." + std::to_string(std::random_device{}()));
  {
    std::ofstream out(probe, std::ios::binary | std::ios::trunc);
    if (!out || !(out << "ok") || !out.flush()) {
      return Status(Stage::Io, "cannot write into " + dir);
    }
  }
  fs::remove(probe, ec);
  return Status::ok_status();
}

}  // namespace clport::programs
