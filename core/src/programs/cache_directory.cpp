#include "programs/cache_directory.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

namespace clport::programs {

namespace fs = std::filesystem;

namespace {

std::string mode_text(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// Compiled programs from the cache run on the device and its self-test verdict decides which
// kernels are trusted: a directory someone else can write lets them plant either (the entry's
// hash does not help, a writer recomputes it). Refused as a plugin directory is.
Status trusted_directory(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return Status(Stage::Io, "cannot inspect " + dir);
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return Status(Stage::Io, dir + " is group- or world-writable (mode " + mode_text(st.st_mode) +
                                 "): another user could plant programs there; chmod go-w it or choose "
                                 "another directory");
  }
  if (st.st_uid != ::geteuid()) {
    return Status(Stage::Io, dir + " belongs to user " + std::to_string(st.st_uid) + ", not to this user (" +
                                 std::to_string(::geteuid()) + "); choose a directory of your own");
  }
  return Status::ok_status();
}

}  // namespace

Status prepare_cache_directory(const std::string& dir) {
  if (dir.empty()) return Status(Stage::InvalidArgument, "empty cache directory");
  if (dir[0] != '/') {
    return Status(Stage::InvalidArgument, "'" + dir + "' is not an absolute path (it would depend on the "
                                          "working directory)");
  }
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
  CLPORT_RETURN_IF_ERROR(trusted_directory(dir));
  // Permission bits do not tell the whole story (read-only mounts, SELinux on Android): try.
  // A unique name: several processes may probe the same directory at once. The probe is removed
  // whether or not the write worked (a full disk creates the file, then refuses its bytes).
  const fs::path probe =
      fs::path(dir) / (".clport-write-test." + std::to_string(std::random_device{}()));
  bool written = false;
  {
    std::ofstream out(probe, std::ios::binary | std::ios::trunc);
    written = out && (out << "ok") && out.flush();
    out.close();
    written = written && !out.fail();
  }
  fs::remove(probe, ec);
  if (!written) return Status(Stage::Io, "cannot write into " + dir);
  return Status::ok_status();
}

}  // namespace clport::programs
