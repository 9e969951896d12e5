// `clport tune [--device N] [--plugin NAME] [--level fast|normal|exhaustive]`: times the plugin's
// tunable kernel parameters on this device and stores the winners in the per-device tuning file
// (see tuner/tuner.h), which every later start on this device and driver picks up.
#include <iomanip>
#include <iostream>
#include <memory>

#include "binding/binding.h"
#include "runtime/device_context.h"
#include "engine/device_selection.h"
#include "plugins/plugin_manager.h"
#include "policy/policy.h"
#include "clport_devtools/tuner.h"
#include "command_registry.h"
#include "engine_flags.h"
#include "option_ranges.h"

namespace clport::cli {
namespace {

struct TuneArgs {
  int device = -1;
  std::string plugin, level, config;
  bool tiny = false;
  int repeats = 0;
  double accept_within = -0.02;
};

void print(const tuner::Report& r) {
  std::cout << "plugin " << r.plugin << " on " << r.device << " (" << (r.profiled ? "profiling events" : "wall clock")
            << ")\n";
  for (const auto& g : r.groups) {
    std::cout << "  " << std::left << std::setw(5) << g.group << " " << g.shape << "\n";
    for (size_t i = 0; i < g.trials.size(); ++i) {
      const auto& t = g.trials[i];
      std::cout << "    " << (static_cast<int>(i) == g.best ? "* " : "  ") << std::setw(48) << (t.settings.empty() ? "defaults" : describe(t.settings));
      if (t.ok) {
        std::cout << std::fixed << std::setprecision(3) << t.ms << " ms\n";
      } else {
        std::cout << "failed: " << t.error << "\n";
      }
    }
    std::cout << "    -> " << (g.stored ? "stored" : "defaults kept") << "\n";
  }
  std::cout << "stored:";
  if (r.stored.empty()) std::cout << " (nothing: the defaults won)";
  for (const auto& [k, v] : r.stored) std::cout << " " << k << "=" << v;
  std::cout << "\nfile: " << r.file << "\n";
}

int run_tune(const TuneArgs& args) {
  auto policy = Policy::load(args.config);
  if (!policy.ok()) return report_failure("tune", policy.status());
  auto inventory = discover_devices(policy->globals().opencl_library);
  if (inventory.devices.empty()) return report_failure("tune", inventory.status);
  const int index = args.device >= 0 ? args.device : best_device_index(inventory.devices);
  if (index >= static_cast<int>(inventory.devices.size())) {
    return report_failure("tune", Status(Stage::InvalidArgument, "device " + std::to_string(index) +
                                                                     " does not exist (see `clport devices`)"));
  }
  const AvailableDevice& chosen = inventory.devices[static_cast<size_t>(index)];
  DeviceContextOptions ctx_options;
  ctx_options.profiling = true;
  ctx_options.policy_cache_dir = policy->globals().cache_dir;  // where `run` reads the tuning file
  auto ctx = DeviceContext::create(chosen.library, chosen.info, ctx_options);
  if (!ctx.ok()) return report_failure("tune", ctx.status());
  PluginSearchOptions search;
  search.plugin_dir = policy->globals().plugin_dir;
  search.allow_insecure_dirs = policy->globals().allow_insecure_plugin_dirs;
  std::shared_ptr<PluginManager> manager = PluginManager::discover(search);
  std::string name = args.plugin;
  if (name.empty()) {  // the plugin the runtime would put first on this device
    auto binding = DeviceBinding::create(*manager, policy.value(), ctx.value());
    if (!binding->has_device()) {
      return report_failure("tune", Status(Stage::Plugin, "no plugin can serve " + chosen.info.name +
                                                              " (see `clport devices`)"));
    }
    name = binding->instances().front()->name();
  }
  std::shared_ptr<LoadedPlugin> plugin;
  for (const auto& p : manager->plugins())
    if (p->name() == name) plugin = p;
  if (plugin == nullptr) {
    return report_failure("tune", Status(Stage::InvalidArgument,
                                         "no plugin named '" + name + "' (see `clport devices`)"));
  }
  tuner::Options options;
  options.level = policy->globals().tuning == TuningLevel::None ? TuningLevel::Normal : policy->globals().tuning;
  if (args.level == "fast") options.level = TuningLevel::Fast;
  if (args.level == "normal") options.level = TuningLevel::Normal;
  if (args.level == "exhaustive") options.level = TuningLevel::Exhaustive;
  options.tiny = args.tiny;
  options.repeats = args.repeats;
  options.accept_within = args.accept_within;
  const DevicePolicy device_policy = policy->evaluate(chosen.info);
  // (DevicePolicy::settings_for is not exported from libclport; same lookup.)
  const auto settings = device_policy.settings.find(name);
  if (settings != device_policy.settings.end()) options.policy_settings = settings->second;
  options.precision = device_policy.precision_code();
  auto report = tuner::tune(*ctx.value(), plugin, options);
  if (!report.ok()) return report_failure("tune", report.status());
  print(report.value());
  return 0;
}

const RegisterCommand kRegisterTune{
    {"tune", "Time a plugin's kernel parameters on a device and store the winners",
     [](CLI::App& sub) {
       auto args = std::make_shared<TuneArgs>();
       sub.add_option("--device", args->device, "device index (see `clport devices`; default: the best one)")
           ->transform(integer_range(0, kMaxDeviceIndex));
       sub.add_option("--plugin", args->plugin, "plugin to tune (default: the one bound first on the device)");
       sub.add_option("--level", args->level, "fast, normal or exhaustive (default: the policy's `tuning:`)")
           ->check(CLI::IsMember({"fast", "normal", "exhaustive"}));
       sub.add_option("--config", args->config, "policy file (default: CLPORT_CONFIG)");
       sub.add_flag("--tiny", args->tiny, "tiny shapes (tests, very slow devices)");
       sub.add_option("--repeats", args->repeats, "timed runs per candidate (default: by level)")
           ->transform(integer_range(1, 1000));
       sub.add_option("--accept-within", args->accept_within,
                      "store the best candidate when its time <= defaults x (1 + this); default -0.02")
           ->transform(number_range(-0.9, 100.0));
       return [args]() { return run_tune(*args); };
     }}};

}  // namespace
}  // namespace clport::cli
