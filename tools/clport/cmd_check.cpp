// `clport check [--library PATH] [--config FILE] [--device auto|N]`: can `clport run` use OpenCL
// here, and if not, why. Takes the inputs `run` takes (the policy from --config or CLPORT_CONFIG
// with its `opencl_library:`, CLPORT_OPENCL_LIBRARY, the device choice), then goes through the
// stages in order: load the library, find platforms and devices, pick the device `run` would
// pick, apply the policy's deny rules, create a context and a queue, and build, run and compare
// one tiny kernel. Exit 0 and one line naming library, platform and device; otherwise 10 + the
// failing stage (clport/status.h, table in the README) and the reason on stderr. Either way a
// last line says where the cache `run` would use is, or why there is none. --json prints one
// document instead (docs/json-output.md; the cache as its "cache" object), same exit code.
#include <cstdlib>
#include <iostream>
#include <memory>

#include "programs/cache_location.h"
#include "runtime/device_context.h"
#include "probe/device_info.h"
#include "engine/device_selection.h"
#include "probe/device_smoke_test.h"
#include "policy/policy.h"
#include "command_registry.h"
#include "json_output.h"
#include "option_ranges.h"

namespace clport::cli {
namespace {

struct CheckArgs {
  std::string library;
  std::string config;
  std::string device = "auto";
  bool json = false;
};

// What the stages found so far, for --json (null until the stage that knows it passed).
struct CheckFound {
  nlohmann::json library, platform, device;
};

// Where `run` keeps compiled programs, the self-test verdict and the tuning file, or why it
// keeps none.
nlohmann::json cache_json(const CacheLocation& cache) {
  return {{"enabled", cache.enabled()}, {"directory", cache.directory}, {"source", cache.source},
          {"why_off", cache.why_off}};
}

int check_failed(const Status& status, const CheckArgs& args, const CheckFound& found, const CacheLocation& cache) {
  std::cerr << "clport check: " << status.to_string() << "\n";
  const int code = 10 + static_cast<int>(status.stage());
  if (args.json) {
    print_json({{"ok", false}, {"exit_code", code}, {"stage", stage_name(status.stage())},
                {"stage_number", static_cast<int>(status.stage())}, {"message", status.message()},
                {"library", found.library}, {"platform", found.platform}, {"device", found.device},
                {"cache", cache_json(cache)}});
  }
  return code;
}

const char* kind_phrase(LibraryKind kind) {
  switch (kind) {
    case LibraryKind::DirectExports: return "direct exports";
    case LibraryKind::IcdDispatch: return "ICD dispatch";
    case LibraryKind::PixelProtocol: return "Pixel protocol";
  }
  return "?";
}

int check_stages(const CheckArgs& args, const Policy& policy, const CacheLocation& cache) {
  CheckFound found;
  auto fail = [&](const Status& status) { return check_failed(status, args, found, cache); };
  // --library wins; then the policy's `opencl_library:`, which `run` would use; the loader reads
  // CLPORT_OPENCL_LIBRARY when both are empty.
  const std::string library =
      args.library.empty() ? policy.globals().opencl_library : args.library;
  DeviceInventory inventory = discover_devices(library);
  if (inventory.devices.empty()) return fail(inventory.status);

  int index = best_device_index(inventory.devices);
  if (args.device != "auto") {
    index = std::atoi(args.device.c_str());  // the option's validator allowed digits only
    if (index >= static_cast<int>(inventory.devices.size())) {
      return fail(Status(Stage::InvalidArgument,
                         "device " + args.device + " does not exist (" +
                             std::to_string(inventory.devices.size()) +
                             " found; see `clport devices`)"));
    }
  }
  const AvailableDevice& chosen = inventory.devices[static_cast<size_t>(index)];
  const DeviceInfo& device = chosen.info;
  found.library = {{"path", chosen.library->path()}, {"kind", kind_phrase(chosen.library->kind())}};
  found.platform = {{"name", device.platform_name}, {"version", device.platform_version}};
  found.device = {{"index", index}, {"name", device.name}, {"family", device.klass.family},
                  {"generation", device.klass.generation}, {"driver_version", device.driver_version}};
  const DevicePolicy device_policy = policy.evaluate(device);
  if (device_policy.device_denied) {
    return fail(Status(Stage::DeviceUnusable, "device '" + device.name +
                                                  "' is denied by the policy: " +
                                                  device_policy.deny_reason));
  }
  Status usable = check_device_usable(chosen.library->api(), device);
  if (!usable.ok()) return fail(usable);
  DeviceContextOptions context_options;
  context_options.policy_cache_dir = policy.globals().cache_dir;
  auto context = DeviceContext::create(chosen.library, device, context_options);
  if (!context.ok()) return fail(context.status());
  Status computes = run_device_smoke_test(*context.value());
  if (!computes.ok()) return fail(computes);

  if (args.json) {
    print_json({{"ok", true}, {"exit_code", 0}, {"stage", stage_name(Stage::Ok)}, {"stage_number", 0},
                {"message", "test kernel built, ran and matched"}, {"library", found.library},
                {"platform", found.platform}, {"device", found.device}, {"cache", cache_json(cache)}});
    return 0;
  }
  std::cout << "OpenCL usable: library " << chosen.library->path() << " ("
            << kind_phrase(chosen.library->kind()) << "), platform '" << device.platform_name
            << "' (" << device.platform_version << "), device '" << device.name << "' ("
            << device.klass.family
            << (device.klass.generation.empty() ? "" : " " + device.klass.generation)
            << "); test kernel built, ran and matched\n";
  return 0;
}

int run_check(const CheckArgs& args) {
  auto policy = Policy::load(args.config);  // "" = CLPORT_CONFIG when set, as for `run`
  const CacheLocation cache = resolve_cache_location({"", policy.ok() ? policy->globals().cache_dir : ""});
  const int rc = policy.ok() ? check_stages(args, policy.value(), cache)
                             : check_failed(policy.status(), args, CheckFound{}, cache);
  // One line on stdout whatever the verdict on OpenCL (the JSON document carries it instead).
  if (!args.json) std::cout << cache.describe() << "\n";
  return rc;
}

const RegisterCommand kRegisterCheck{
    {"check", "Say whether `clport run` can use OpenCL here (exit 0), or which stage fails and why",
     [](CLI::App& sub) {
       auto args = std::make_shared<CheckArgs>();
       sub.add_option("--library", args->library,
                      "OpenCL library to use instead of the policy's opencl_library: and the search "
                      "(like CLPORT_OPENCL_LIBRARY)");
       sub.add_option("--config", args->config, "policy YAML layered on the defaults (default: CLPORT_CONFIG)");
       sub.add_option("--device", args->device,
                      "auto (the device `clport run` picks) or a device index from `clport devices`")
           ->transform(device_choice(/*allow_cpu=*/false));
       sub.add_flag("--json", args->json, "print one JSON document (docs/json-output.md)");
       return [args]() { return run_check(*args); };
     }}};

}  // namespace
}  // namespace clport::cli
