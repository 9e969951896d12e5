// Where clport keeps what it learns about a device between starts: compiled programs, the driver
// self-test verdict, the tuner's file and the record of devices that failed during a run. One
// resolver for all of them, so they can never disagree about the directory.
//
// Order: an explicit setting wins, the first one given of
//   1. the application's (EngineOptions::cache_dir, ProgramCacheOptions::directory),
//   2. the policy's `cache_dir:`,
//   3. CLPORT_CACHE_DIR;
// "off" in any of them switches the cache off, and an explicit directory that cannot be created
// or written switches it off too (with the reason) instead of being replaced by a default. With
// none given, the defaults are tried in turn, an unusable one giving way to the next:
//   4. $XDG_CACHE_HOME/clport/programs (XDG_CACHE_HOME must be an absolute path),
//   5. $HOME/.cache/clport/programs.
// When neither is usable (an Android app process has no HOME) the cache is off and the location
// says why. Directories are created owner-only (0700) and checked by writing a file.
#pragma once

#include <string>
#include <vector>

#include "clport/export.h"

namespace clport {

struct CacheRequest {
  std::string app_directory;     // 1. "" = not given, "off" = no cache
  std::string policy_directory;  // 2. the policy's cache_dir: ("" = not given, "off")
  bool use_environment = true;   // 3. read CLPORT_CACHE_DIR
};

struct CacheLocation {
  std::string directory;  // "" when the cache is off
  std::string source;     // what chose it: "the application", "the policy's cache_dir:",
                          // "CLPORT_CACHE_DIR", "XDG_CACHE_HOME", "HOME"
  std::string why_off;    // when off: why, and how to turn it on
  std::vector<std::string> skipped;  // defaults that were tried and could not be used, and why

  bool enabled() const { return !directory.empty(); }
  // One line for `clport check` / `clport devices`:
  //   "cache: /home/u/.cache/clport/programs (from HOME)"
  //   "cache: off (XDG_CACHE_HOME is not set; HOME is not set; ...)"
  CLPORT_API std::string describe() const;
};

// Resolves (and creates) the cache directory. Never fails: a problem is an off location.
CLPORT_API CacheLocation resolve_cache_location(const CacheRequest& request);

// The default directory from XDG_CACHE_HOME / HOME without creating it ("" when neither is set).
CLPORT_API std::string default_cache_directory();

}  // namespace clport
