// resolve_cache_location (programs/cache_location.h): explicit settings first, then the XDG / HOME
// defaults, each directory created and write-tested before it is accepted.
#include "programs/cache_location.h"

#include <cstdlib>

#include "programs/cache_directory.h"

namespace clport {
namespace {

std::string env_value(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

CacheLocation off(std::string why) {
  CacheLocation location;
  location.why_off = std::move(why);
  return location;
}

// An explicit setting: "off", or a directory that is used or turns the cache off.
CacheLocation explicit_location(const std::string& value, const std::string& source) {
  if (value == "off") return off("switched off by " + source + " (off)");
  Status ready = programs::prepare_cache_directory(value);
  if (!ready.ok()) return off(source + " names " + value + ": " + ready.message());
  CacheLocation location;
  location.directory = value;
  location.source = source;
  return location;
}

}  // namespace

std::string default_cache_directory() {
  if (const std::string xdg = env_value("XDG_CACHE_HOME"); !xdg.empty() && xdg[0] == '/') {
    return xdg + "/clport/programs";
  }
  if (const std::string home = env_value("HOME"); !home.empty()) return home + "/.cache/clport/programs";
  return {};
}

CacheLocation resolve_cache_location(const CacheRequest& request) {
  if (!request.app_directory.empty()) return explicit_location(request.app_directory, "the application");
  if (!request.policy_directory.empty()) {
    return explicit_location(request.policy_directory, "the policy's cache_dir:");
  }
  if (request.use_environment) {
    if (const std::string env = env_value("CLPORT_CACHE_DIR"); !env.empty()) {
      return explicit_location(env, "CLPORT_CACHE_DIR");
    }
  }
  std::vector<std::string> skipped;
  auto try_default = [&](const char* variable, const std::string& dir) -> bool {
    Status ready = programs::prepare_cache_directory(dir);
    if (ready.ok()) return true;
    skipped.push_back(std::string(variable) + ": " + ready.message());
    return false;
  };
  const std::string xdg = env_value("XDG_CACHE_HOME");
  if (xdg.empty()) {
    skipped.push_back("XDG_CACHE_HOME is not set");
  } else if (xdg[0] != '/') {
    skipped.push_back("XDG_CACHE_HOME is not an absolute path (" + xdg + ")");
  } else if (try_default("XDG_CACHE_HOME", xdg + "/clport/programs")) {
    CacheLocation location;
    location.directory = xdg + "/clport/programs";
    location.source = "XDG_CACHE_HOME";
    return location;
  }
  const std::string home = env_value("HOME");
  if (home.empty()) {
    skipped.push_back("HOME is not set");
  } else if (try_default("HOME", home + "/.cache/clport/programs")) {
    CacheLocation location;
    location.directory = home + "/.cache/clport/programs";
    location.source = "HOME";
    location.skipped = std::move(skipped);
    return location;
  }
  std::string why;
  for (const auto& s : skipped) why += s + "; ";
  CacheLocation location = off(why + "set CLPORT_CACHE_DIR or the policy's cache_dir: to a writable directory");
  location.skipped = std::move(skipped);
  return location;
}

std::string CacheLocation::describe() const {
  if (!enabled()) return "cache: off (" + why_off + ")";
  std::string line = "cache: " + directory + " (from " + source;
  for (const auto& s : skipped) line += "; " + s;
  return line + ")";
}

}  // namespace clport
