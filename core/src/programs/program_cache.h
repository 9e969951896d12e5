// Program cache: every OpenCL program the core or a plugin builds goes through here.
//
// Key = SHA-256 over (format version, clport version, device name, driver version, platform
// version, build options, source). An entry file <dir>/<key hex>.clbin holds
//   magic "CLPORTPC" | u32 format version | u32 0 | 32-byte key | u64 binary size |
//   32-byte SHA-256 of the binary | binary
// and is written to a temp file in the same directory and renamed, so a reader sees either no
// entry or a whole one. Anything wrong with an entry (short, bad magic, other key, hash
// mismatch, or a binary the driver refuses to load or build) deletes it and builds from source.
//
// Directory: resolve_cache_location (programs/cache_location.h) over options.directory, the
// policy's cache_dir: and CLPORT_CACHE_DIR, then the XDG / HOME defaults; created 0700. A
// directory that cannot be written disables the cache with a warning: builds still work.
// CLPORT_CACHE_DEBUG=1 logs every HIT / MISS / SAVE with the counters.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "programs/cache_location.h"
#include "clport_plugin/cl_api.h"
#include "clport/export.h"
#include "clport/status.h"

namespace clport {

// Bumped whenever the key derivation or the entry layout changes: old entries stop matching.
inline constexpr uint32_t kProgramCacheFormatVersion = 1;

struct ProgramCacheOptions {
  std::string directory;        // the application's choice ("off": none); beats everything else
  std::string policy_directory; // the policy's cache_dir: (beats CLPORT_CACHE_DIR)
  bool enabled = true;          // false: never read or write entries (builds still work)
  bool use_environment = true;  // read CLPORT_CACHE_DIR / CLPORT_CACHE_DEBUG
  bool debug = false;           // log HIT / MISS / SAVE (also CLPORT_CACHE_DEBUG=1)
  bool memoize = true;          // hand out the same cl_program for the same key in-process
};

// What makes a binary valid for a device (besides source and options).
struct ProgramCacheIdentity {
  std::string device_name;
  std::string driver_version;
  std::string platform_version;
};

struct ProgramCacheCounters {
  uint64_t hits = 0;          // loaded from a cache entry
  uint64_t misses = 0;        // no usable entry: built from source
  uint64_t saves = 0;         // entries written
  uint64_t rejected = 0;      // entries deleted (corrupt, foreign, or refused by the driver)
  uint64_t save_failures = 0;
  uint64_t memo_hits = 0;     // served from the in-process map
  uint64_t build_failures = 0;
};

// What a program bundle held and where it went (clport/engine.h: export_program_bundle and
// import_program_bundle; core/src/programs/cache_bundle.h).
struct CacheBundleSummary {
  size_t entries = 0;          // in the bundle
  size_t imported = 0;         // written into the cache
  size_t already_present = 0;  // held by the cache already (left as they were)
  size_t skipped = 0;          // made for another device, driver or clport version
  std::string note;            // why they were skipped
  std::string cache_directory;
  std::string device;          // the identity the bundle is for / was checked against
};

class CLPORT_API ProgramCache {
 public:
  ProgramCache(const clport_cl_api& cl, cl_context context, cl_device_id device,
               ProgramCacheIdentity identity, ProgramCacheOptions options = {});
  ~ProgramCache();  // releases the memoized programs
  ProgramCache(const ProgramCache&) = delete;
  ProgramCache& operator=(const ProgramCache&) = delete;

  // A built program for this device; the caller owns one reference (clReleaseProgram).
  // Stage::ProgramBuild with the build log when the source does not compile.
  Result<cl_program> build(const std::string& source, const std::string& options);

  // The cache key (64 hex digits) and the entry file it maps to.
  std::string key(const std::string& source, const std::string& options) const;
  std::string entry_path(const std::string& key_hex) const;

  bool enabled() const { return enabled_; }
  const std::string& directory() const { return directory_; }
  // What its binaries are valid for (with this clport version, which the keys include too).
  const ProgramCacheIdentity& identity() const { return identity_; }
  // Where the directory came from, or why the cache is off (one line: location().describe()).
  const CacheLocation& location() const { return location_; }
  ProgramCacheCounters counters() const;

  // The default directory ($XDG_CACHE_HOME/clport/programs or ~/.cache/clport/programs; ""
  // when neither variable is set, e.g. an Android app: pass options.directory there).
  static std::string default_directory() { return default_cache_directory(); }

 private:
  using Digest = std::array<unsigned char, 32>;
  Result<cl_program> build_or_load(const std::string& source, const std::string& options);
  Digest key_digest(const std::string& source, const std::string& options) const;
  Result<cl_program> load_entry(const Digest& key, const std::string& options);
  void save_entry(const Digest& key, cl_program program);
  void reject_entry(const std::string& path, const std::string& why);
  void trace(const char* event, const std::string& key_hex, const std::string& detail = {});
  void choose_directory();

  const clport_cl_api& cl_;
  cl_context context_;
  cl_device_id device_;
  ProgramCacheIdentity identity_;
  ProgramCacheOptions options_;
  bool enabled_ = false;
  bool debug_ = false;
  std::string directory_;
  CacheLocation location_;
  mutable std::mutex mutex_;
  ProgramCacheCounters counters_;
  std::map<std::string, cl_program> memo_;
};

}  // namespace clport
