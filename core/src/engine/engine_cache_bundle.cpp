// export_program_bundle / import_program_bundle: the device and its cache directory as the engine
// would choose them, then programs/cache_bundle.
#include "engine/engine_core.h"
#include "programs/program_cache.h"
#include "engine/engine_backend.h"
#include "programs/cache_bundle.h"

namespace clport {
namespace {

// The chosen device's cache directory and the identity of its binaries.
struct BundleTarget {
  std::string directory;
  programs::BundleIdentity identity;
};

Result<BundleTarget> bundle_target(const EngineOptions& options) {
  if (options.device == "cpu") {
    return Status(Stage::InvalidArgument, "a program bundle holds an OpenCL device's programs; the CPU path builds none "
                                          "(choose --device auto or an index)");
  }
  auto policy = engine_policy(options);
  if (!policy.ok()) return policy.status();
  auto device = detail::prepare_device(options, policy.value());
  if (!device.ok()) return device.status();
  const DeviceContext& context = *device.value().context;
  const ProgramCache& cache = context.programs();
  if (!cache.enabled() || cache.directory().empty()) {
    return Status(Stage::InvalidArgument, "the program cache is off (" + cache.location().describe() +
                                              "): there is no cache to export from or import into");
  }
  BundleTarget t;
  t.directory = cache.directory();
  t.identity = programs::bundle_identity(cache);
  return t;
}

}  // namespace

Result<CacheBundleSummary> export_program_bundle(const EngineOptions& options, const std::string& path) {
  CLPORT_RETURN_IF_ERROR(detail::check_engine_choices(options));
  auto target = bundle_target(options);
  if (!target.ok()) return target.status();
  return programs::write_bundle(target.value().directory, target.value().identity, path);
}

Result<CacheBundleSummary> import_program_bundle(const EngineOptions& options, const std::string& path) {
  CLPORT_RETURN_IF_ERROR(detail::check_engine_choices(options));
  auto target = bundle_target(options);
  if (!target.ok()) return target.status();
  return programs::read_bundle(path, target.value().identity, target.value().directory);
}

}  // namespace clport
