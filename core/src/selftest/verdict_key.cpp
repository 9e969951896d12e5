// The combination key of the self-test verdict (verdict_key.h).
#include "selftest/verdict_key.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "binding/binding.h"
#include "runtime/device_context.h"
#include "clport_plugin/embedded_kernel.h"
#include "common/version.h"
#include "programs/cache_key.h"

extern const clport::EmbeddedKernel clport_shared_kernels[];

namespace clport::selftest::detail {
namespace {

// "<bytes>@<mtime>" of a plugin file: a rebuilt plugin (new kernels inside, same version string)
// is a new combination. Cheap (one stat), unlike hashing the file on every start.
std::string file_stamp(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return "?";
  const auto mtime = std::filesystem::last_write_time(path, ec);
  if (ec) return std::to_string(size) + "@?";
  return std::to_string(size) + "@" + std::to_string(mtime.time_since_epoch().count());
}

// The core's embedded shared kernels, and the files of CLPORT_KERNEL_DIR when it is set (the
// plugins read their kernel sources from there instead).
std::string shared_kernel_fingerprint() {
  std::vector<std::string> fields;
  for (const EmbeddedKernel* k = clport_shared_kernels; k->name != nullptr; ++k) {
    fields.emplace_back(k->name);
    fields.emplace_back(k->source, k->size);
  }
  if (const char* dir = std::getenv("CLPORT_KERNEL_DIR"); dir != nullptr && *dir != '\0') {
    fields.emplace_back(dir);
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec))
      if (e.is_regular_file() && e.path().extension() == ".cl") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      fields.push_back(f.string());
      fields.push_back(text.str());
    }
  }
  return programs::to_hex(programs::sha256_fields(fields));
}

}  // namespace

VerdictIdentity identity_of(const DeviceContext& context, const DeviceBinding& binding) {
  VerdictIdentity id;
  id.device = context.info().name;
  id.driver = context.info().driver_version;
  id.platform = context.info().platform_version;
  id.clport_version = CLPORT_VERSION_STRING;
  for (const auto& inst : binding.instances()) {
    const char* version = inst->table().version;
    id.plugins.push_back(inst->name() + " " + (version != nullptr ? version : "?") + " file " +
                         file_stamp(inst->path()) + " settings " +
                         programs::to_hex(programs::sha256_fields({inst->settings()})));
  }
  id.kernels = shared_kernel_fingerprint();
  return id;
}

// A plugin upgrade or rebuild, other policy settings for a plugin (they pick other kernels or
// build options, e.g. gemv_packed), edited shared kernels, or a different set of bound plugins
// is a new combination: test again.
std::string key_of(const VerdictIdentity& id) {
  std::vector<std::string> fields = {"clport-selftest-v2", id.device, id.driver, id.platform, id.clport_version,
                                     id.kernels};
  fields.insert(fields.end(), id.plugins.begin(), id.plugins.end());
  return programs::to_hex(programs::sha256_fields(fields));
}

}  // namespace clport::selftest::detail
