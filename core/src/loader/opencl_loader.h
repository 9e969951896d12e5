// Run-time OpenCL loader: finds and opens an OpenCL library without linking libOpenCL, resolves
// entry points one by one into a clport_cl_api table, and says exactly what failed otherwise.
//
// Search order: explicit path (CLPORT_OPENCL_LIBRARY or LoaderOptions::explicit_path), then the
// per-OS table of known locations, then vendor libraries named by ICD files
// (/etc/OpenCL/vendors/*.icd or OCL_ICD_VENDORS). A library that exports cl* is used directly; an
// ICD-only vendor library (exports only clIcdGetPlatformIDsKHR: Debian's libpocl.so.2, NVIDIA's
// libnvidia-opencl.so.1) is used through its platforms' cl_icd_dispatch tables.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "clport_plugin/cl_api.h"
#include "clport/export.h"
#include "clport/status.h"

namespace clport {

// One library the loader tried, and what happened.
struct LoadAttempt {
  std::string path;    // as given to dlopen
  std::string source;  // "explicit", "known-location", "icd-file <file>", "pixel"
  bool opened = false;
  std::string error;   // dlerror() or the reason it was rejected; empty when it was used
  std::string resolved_path;  // the file actually mapped (realpath), when known
};

struct LoaderOptions {
  std::string explicit_path;        // overrides CLPORT_OPENCL_LIBRARY when not empty
  bool use_environment = true;      // read CLPORT_OPENCL_LIBRARY / OCL_ICD_VENDORS
  bool search_known_locations = true;
  bool search_icd_files = true;
  bool stop_at_first_usable = true; // false: try every candidate (for `clport devices`)
};

// How the entry points were obtained.
enum class LibraryKind { DirectExports, IcdDispatch, PixelProtocol };

// An opened OpenCL library. Keeps the library loaded for as long as it (or any copy of the
// shared_ptr) lives; the api() table is valid for that long.
class CLPORT_API OpenClLibrary {
 public:
  ~OpenClLibrary();
  OpenClLibrary(const OpenClLibrary&) = delete;
  OpenClLibrary& operator=(const OpenClLibrary&) = delete;

  const clport_cl_api& api() const { return api_; }
  const std::string& path() const { return path_; }
  LibraryKind kind() const { return kind_; }
  // Optional entry points that were absent (features switched off).
  const std::vector<std::string>& missing_optional() const { return missing_optional_; }
  // The platforms this library exposes (for ICD-only libraries: the ones whose dispatch table
  // filled api()).
  const std::vector<cl_platform_id>& platforms() const { return platforms_; }

  // Internal: constructed by the loader.
  OpenClLibrary(std::string path, LibraryKind kind);
  clport_cl_api& mutable_api() { return api_; }
  std::vector<std::string>& mutable_missing_optional() { return missing_optional_; }
  std::vector<cl_platform_id>& mutable_platforms() { return platforms_; }

 private:
  std::string path_;
  LibraryKind kind_;
  clport_cl_api api_{};
  std::vector<std::string> missing_optional_;
  std::vector<cl_platform_id> platforms_;
};

struct LoadReport {
  std::vector<LoadAttempt> attempts;          // every path tried, in order
  std::shared_ptr<OpenClLibrary> library;     // first usable library (null when none)
  std::vector<std::shared_ptr<OpenClLibrary>> all_usable;  // with stop_at_first_usable=false
  Status status;                              // why there is no library, with the stage
};

// Never throws or aborts. On failure report.status names the stage (LibraryNotFound with every
// path tried and its error, SymbolMissing naming the symbol, NoPlatform, ...).
CLPORT_API LoadReport load_opencl(const LoaderOptions& options = {});

// Opens one specific library (no search). Used by load_opencl and by tests.
CLPORT_API Result<std::shared_ptr<OpenClLibrary>> open_opencl_library(const std::string& path,
                                                                      LoadAttempt* attempt);

// The known-location table for the OS clport was built for (in search order).
CLPORT_API std::vector<std::string> known_opencl_locations();

// Human-readable name for an OpenCL error code ("CL_OUT_OF_RESOURCES").
CLPORT_API const char* cl_error_name(cl_int code);

}  // namespace clport
