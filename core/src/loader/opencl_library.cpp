// Opening one OpenCL library and filling its entry-point table (see opencl_loader.h).
#include <dlfcn.h>
#if defined(__linux__) && !defined(__ANDROID__)
#include <link.h>
#define CLPORT_HAVE_DLINFO 1
#endif

#include <climits>
#include <cstdlib>
#include <sstream>

#include "common/logger.h"
#include "loader/opencl_loader.h"
#include "loader/symbol_resolver.h"

namespace clport {
namespace {

using EnableOpenClFn = void (*)();
using LoadOpenClPointerFn = void* (*)(const char*);
using GetExtensionFunctionAddressFn = void* (*)(const char*);

std::string join(const std::vector<std::string>& names) {
  std::ostringstream out;
  for (size_t i = 0; i < names.size(); ++i) out << (i ? ", " : "") << names[i];
  return out.str();
}

// ICD-only libraries export clIcdGetPlatformIDsKHR directly, or only through
// clGetExtensionFunctionAddress (which is how ICD loaders find it).
clIcdGetPlatformIDsKHR_fn find_icd_entry(void* handle) {
  if (void* direct = dlsym(handle, "clIcdGetPlatformIDsKHR")) {
    return reinterpret_cast<clIcdGetPlatformIDsKHR_fn>(direct);
  }
  auto get_address = reinterpret_cast<GetExtensionFunctionAddressFn>(
      dlsym(handle, "clGetExtensionFunctionAddress"));
  if (get_address == nullptr) return nullptr;
  return reinterpret_cast<clIcdGetPlatformIDsKHR_fn>(get_address("clIcdGetPlatformIDsKHR"));
}

Status fill_from_icd(void* handle, clIcdGetPlatformIDsKHR_fn icd_get_platforms,
                     OpenClLibrary& library) {
  cl_uint count = 0;
  cl_int err = icd_get_platforms(0, nullptr, &count);
  if (err != CL_SUCCESS || count == 0) {
    return Status(Stage::NoPlatform,
                  std::string("clIcdGetPlatformIDsKHR reported no platform (") +
                      cl_error_name(err) + ")");
  }
  std::vector<cl_platform_id> platforms(count);
  err = icd_get_platforms(count, platforms.data(), nullptr);
  if (err != CL_SUCCESS || platforms[0] == nullptr) {
    return Status(Stage::NoPlatform, std::string("clIcdGetPlatformIDsKHR failed (") +
                                         cl_error_name(err) + ")");
  }
  // Khronos ICD convention: every object of an ICD starts with a pointer to its dispatch table.
  const auto* dispatch = *reinterpret_cast<cl_icd_dispatch* const*>(platforms[0]);
  if (dispatch == nullptr) {
    return Status(Stage::SymbolMissing, "ICD platform has no dispatch table");
  }
  auto missing = loader::resolve_from_dispatch(*dispatch, library.mutable_api(),
                                               library.mutable_missing_optional());
  // Platform enumeration must not go through the dispatch table: it is the ICD entry itself.
  library.mutable_api().clGetPlatformIDs = icd_get_platforms;
  if (!missing.empty()) {
    return Status(Stage::SymbolMissing,
                  "ICD dispatch table lacks required entry points: " + join(missing));
  }
  (void)handle;
  return Status();
}

Status query_platforms(OpenClLibrary& library) {
  const auto& api = library.api();
  cl_uint count = 0;
  const cl_int err = api.clGetPlatformIDs(0, nullptr, &count);
  if (err != CL_SUCCESS || count == 0) {
    return Status(Stage::NoPlatform, std::string("clGetPlatformIDs found no platform (") +
                                         cl_error_name(err) +
                                         "); is a vendor driver installed and registered?");
  }
  auto& platforms = library.mutable_platforms();
  platforms.assign(count, nullptr);
  const cl_int err2 = api.clGetPlatformIDs(count, platforms.data(), nullptr);
  if (err2 != CL_SUCCESS) {
    platforms.clear();
    return Status(Stage::NoPlatform,
                  std::string("clGetPlatformIDs failed: ") + cl_error_name(err2));
  }
  return Status();
}

// The file dlopen really mapped for `handle` (symlinks resolved), so that the search can tell
// "libOpenCL.so" and "/usr/lib/x86_64-linux-gnu/libOpenCL.so.1" apart from two real libraries.
std::string mapped_file(void* handle, const std::string& fallback) {
  std::string name = fallback;
#if defined(CLPORT_HAVE_DLINFO)
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    name = map->l_name;
  }
#else
  (void)handle;
#endif
  char resolved[PATH_MAX];
  if (realpath(name.c_str(), resolved) != nullptr) return resolved;
  return name.find('/') != std::string::npos ? name : std::string();
}

}  // namespace

OpenClLibrary::OpenClLibrary(std::string path, LibraryKind kind)
    : path_(std::move(path)), kind_(kind) {
  api_.struct_size = sizeof(api_);
}

// Deliberately no dlclose (so no handle is kept): several drivers start threads or register
// atexit handlers and crash when unloaded while the process lives on.
OpenClLibrary::~OpenClLibrary() = default;

Result<std::shared_ptr<OpenClLibrary>> open_opencl_library(const std::string& path,
                                                           LoadAttempt* attempt) {
  LoadAttempt local;
  LoadAttempt& record = attempt ? *attempt : local;
  record.path = path;
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    record.opened = false;
    record.error = why ? why : "dlopen failed";
    return Status(Stage::LibraryNotFound, path + ": " + record.error);
  }
  record.opened = true;
  record.resolved_path = mapped_file(handle, path);

  auto fail = [&](Status status, bool unload) -> Result<std::shared_ptr<OpenClLibrary>> {
    record.error = status.message();
    // Only unload libraries we never called into; see the destructor comment.
    if (unload) dlclose(handle);
    return Status(status.stage(), path + ": " + status.message());
  };

  std::shared_ptr<OpenClLibrary> library;
  auto enable = reinterpret_cast<EnableOpenClFn>(dlsym(handle, "enableOpenCL"));
  auto load_pointer = reinterpret_cast<LoadOpenClPointerFn>(dlsym(handle, "loadOpenCLPointer"));
  if (enable != nullptr && load_pointer != nullptr) {
    // Pixel protocol: the library hides its entry points until enableOpenCL() is called, then
    // hands them out one by one through loadOpenCLPointer(name).
    library = std::make_shared<OpenClLibrary>(path, LibraryKind::PixelProtocol);
    enable();
    auto missing = loader::resolve_by_name([&](const char* name) { return load_pointer(name); },
                                           library->mutable_api(),
                                           library->mutable_missing_optional());
    if (!missing.empty()) {
      return fail(Status(Stage::SymbolMissing,
                         "loadOpenCLPointer lacks required entry points: " + join(missing)),
                  false);
    }
  } else if (dlsym(handle, "clGetPlatformIDs") != nullptr) {
    library = std::make_shared<OpenClLibrary>(path, LibraryKind::DirectExports);
    auto missing = loader::resolve_by_name([&](const char* name) { return dlsym(handle, name); },
                                           library->mutable_api(),
                                           library->mutable_missing_optional());
    if (!missing.empty()) {
      return fail(Status(Stage::SymbolMissing, "required OpenCL 1.2 entry points missing: " +
                                                   join(missing)),
                  true);
    }
  } else if (auto icd_entry = find_icd_entry(handle)) {
    library = std::make_shared<OpenClLibrary>(path, LibraryKind::IcdDispatch);
    Status status = fill_from_icd(handle, icd_entry, *library);
    if (!status.ok()) return fail(status, false);
  } else {
    return fail(Status(Stage::SymbolMissing,
                       "exports neither clGetPlatformIDs nor clIcdGetPlatformIDsKHR: not an "
                       "OpenCL library"),
                true);
  }

  Status platforms = query_platforms(*library);
  if (!platforms.ok()) return fail(platforms, false);
  if (!library->missing_optional().empty()) {
    logger("loader")->debug("{}: optional entry points absent (features off): {}", path,
                            join(library->missing_optional()));
  }
  record.error.clear();
  return library;
}

}  // namespace clport
