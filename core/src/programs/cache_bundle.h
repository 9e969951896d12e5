// A program bundle: the entries of one cache directory (compiled programs, the self-test verdict,
// tuning results) in one file, for an app to ship the programs of a device it knows, so that the
// first start on a phone builds nothing.
//
// Layout: magic "CLPORTBN" | u32 format version | u32 entry count | identity (device name, driver
// version, platform version, clport version; each u32 length + bytes) | entries (u32 name length,
// name, u64 size, bytes) | SHA-256 of everything before it. Little-endian.
#pragma once

#include <cstddef>
#include <string>

#include "programs/program_cache.h"
#include "clport/status.h"

namespace clport::programs {

inline constexpr uint32_t kBundleFormatVersion = 1;

// What a bundle's programs are valid for: the cache's device identity and the clport version.
struct BundleIdentity {
  ProgramCacheIdentity device;
  std::string clport_version;
  bool operator==(const BundleIdentity& o) const {
    return device.device_name == o.device.device_name && device.driver_version == o.device.driver_version &&
           device.platform_version == o.device.platform_version && clport_version == o.clport_version;
  }
  std::string describe() const;  // "'NAME' (driver D, platform P, clport V)"
};

// The identity of `cache`'s binaries under this clport version.
BundleIdentity bundle_identity(const ProgramCache& cache);

// Whether a file name is one a cache directory's entries use ("<64 hex>.clbin",
// "selftest-<64 hex>.json", "tuning-<name>.json"): the only names a bundle carries.
bool is_bundle_entry_name(const std::string& name);

// Every entry of `directory` into the bundle file `path` (written atomically).
Result<CacheBundleSummary> write_bundle(const std::string& directory, const BundleIdentity& identity,
                                        const std::string& path);
// The bundle's entries into `directory` when it was made for `here` (else none, and the summary
// says why). The whole file is checked first (length, hash, every name and size): a truncated or
// altered bundle is a Stage::Io error and nothing is written. Program entries are checked as the
// cache reads them; each file is written atomically.
Result<CacheBundleSummary> read_bundle(const std::string& path, const BundleIdentity& here,
                                       const std::string& directory);

}  // namespace clport::programs
