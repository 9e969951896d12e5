// Backend selection for the engine: the policy, the device inventory, the plugins, and the CPU
// path whenever OpenCL cannot be used (a warning, never a failure, unless the user named a
// device).
#include <cstdlib>

#include "engine/engine_backend.h"

#include "backend/device_backend.h"
#include "selftest/device_failure.h"
#include "engine/device_selection.h"
#include "engine/engine_core.h"
#include "gguf/gguf.h"
#include "common/logger.h"
#include "plugins/plugin_manager.h"
#include "policy/policy.h"
#include "selftest/self_test.h"

namespace clport {
namespace {

bool is_index(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// What the self-test checks for this model (its dtypes and KV types), so that a first start
// builds and tests the programs of this model only; every dtype when there is no model to read.
selftest::TestScope self_test_scope(const EngineOptions& options) {
  if (options.model_path.empty()) return {};
  auto file = GgufFile::open(options.model_path);
  if (!file.ok()) return {};
  std::vector<int32_t> tensor_dtypes;
  for (const GgufTensorInfo& t : file.value()->tensors()) tensor_dtypes.push_back(static_cast<int32_t>(t.dtype));
  return selftest::model_scope(tensor_dtypes, static_cast<int32_t>(options.model.kv_type_k),
                               static_cast<int32_t>(options.model.kv_type_v));
}

}  // namespace

namespace detail {

Result<PreparedDevice> prepare_device(const EngineOptions& options, const Policy& policy) {
  const bool named = is_index(options.device);
  auto inventory = discover_devices(policy.globals().opencl_library);
  if (inventory.devices.empty()) return inventory.status;
  int index = best_device_index(inventory.devices);
  if (named) {
    index = std::atoi(options.device.c_str());
    if (index >= static_cast<int>(inventory.devices.size())) {
      return Status(Stage::InvalidArgument, "device " + options.device + " does not exist (" +
                                                std::to_string(inventory.devices.size()) +
                                                " found; see `clport devices`)");
    }
  }
  const AvailableDevice& chosen = inventory.devices[index];
  const DevicePolicy device_policy = policy.evaluate(chosen.info);
  if (device_policy.device_denied) {
    return Status(Stage::DeviceUnusable,
                  chosen.info.name + " is denied by the policy: " + device_policy.deny_reason);
  }
  DeviceContextOptions ctx_options;
  ctx_options.profiling = options.profiling;
  ctx_options.cache_dir = options.cache_dir;
  ctx_options.policy_cache_dir = policy.globals().cache_dir;
  auto context = DeviceContext::create(chosen.library, chosen.info, ctx_options);
  if (!context.ok()) return context.status();

  PluginSearchOptions search;
  search.plugin_dir = policy.globals().plugin_dir;
  search.allow_insecure_dirs = policy.globals().allow_insecure_plugin_dirs;
  auto manager = PluginManager::discover(search);
  auto binding = DeviceBinding::create(*manager, policy, context.value());
  // A device that failed during an earlier run with this driver and these plugins is not bound
  // again (selftest/device_failure.h), unless the user named it.
  if (auto failed = find_device_failure(*context.value(), *binding)) {
    const std::string why = chosen.info.name + " failed during an earlier run (" + failed->when +
                            ": " + failed->what + "; recorded in " + failed->file +
                            "); it is avoided until its driver, clport or the plugins change "
                            "(delete that file to try it again)";
    if (!named) return Status(Stage::DeviceUnusable, why);
    logger("engine")->warn("{}; using it anyway because --device {} names it", why, options.device);
  }
  PreparedDevice prepared;
  prepared.context = context.value();
  prepared.manager = manager;
  prepared.binding = std::move(binding);
  prepared.self_test_mode = policy.globals().self_test;
  prepared.setup_progress = options.setup_progress;
  prepared.self_test_scope = self_test_scope(options);
  return prepared;
}

bool device_is_set_up(PreparedDevice& device) {
  if (!device.binding->has_device()) return true;  // nothing to test or build: finish fails at once
  selftest::Options cached_only;
  cached_only.mode = device.self_test_mode;
  cached_only.run_if_missing = false;
  cached_only.scope = device.self_test_scope;
  return selftest::run(*device.context, *device.binding, cached_only).source == selftest::Verdict::Source::Cache;
}

Result<std::unique_ptr<Backend>> finish_device(PreparedDevice device) {
  // Driver self-test (core/src/selftest): the first start on this device / driver /
  // clport version checks every bound op against the CPU reference and re-binds failing ones
  // before any weight is prepared. It never fails backend creation.
  if (device.binding->has_device()) {
    selftest::Options self_test;
    self_test.mode = device.self_test_mode;
    self_test.progress = device.setup_progress;
    self_test.scope = device.self_test_scope;
    selftest::run(*device.context, *device.binding, self_test);
  }
  if (!device.binding->has_device()) {
    std::string why = "no plugin can serve " + device.context->info().name;
    for (const auto& c : device.binding->candidates()) why += "; " + c.plugin + ": " + c.outcome;
    if (device.manager->plugins().empty()) why += " (no plugin found; see `clport devices`)";
    return Status(Stage::Plugin, why);
  }
  return make_device_backend(device.context, device.manager, std::move(device.binding));
}

}  // namespace detail

namespace {

// The fast CPU backend; the CPU reference (make_cpu_backend) is only for checks against it.
std::unique_ptr<Backend> create_cpu_backend(const EngineOptions& options, bool policy_fp32) {
  FastCpuOptions cpu;
  cpu.n_threads = options.n_threads;
  cpu.float_activations = options.cpu_float_activations || policy_fp32;
  cpu.profiling = options.profiling;
  return make_fast_cpu_backend(cpu);
}

}  // namespace

namespace detail {

bool names_device(const EngineOptions& options) { return is_index(options.device); }

std::unique_ptr<Backend> create_cpu_path_backend(const EngineOptions& options) {
  bool policy_fp32 = false;
  if (options.device != "cpu") {
    // The policy was read once already when the device was chosen: it is valid.
    auto policy = engine_policy(options);
    policy_fp32 = policy.ok() && policy->globals().precision == Precision::Fp32;
  }
  return create_cpu_backend(options, policy_fp32);
}

Status check_engine_choices(const EngineOptions& options) {
  auto policy = engine_policy(options);
  if (!policy.ok()) return policy.status();
  if (!options.cache_dir.empty() && options.cache_dir != "off" && options.cache_dir[0] != '/') {
    return Status(Stage::InvalidArgument, "cache directory '" + options.cache_dir +
                                              "' is not an absolute path; give an absolute path or off");
  }
  if (options.plugin.empty()) return Status::ok_status();
  // Plugin names are in the libraries' tables: the search loads them (no plugin code runs but
  // the table getter), as binding will.
  PluginSearchOptions search;
  search.plugin_dir = policy->globals().plugin_dir;
  search.allow_insecure_dirs = policy->globals().allow_insecure_plugin_dirs;
  const auto manager = PluginManager::discover(search);
  std::string found;
  for (const auto& plugin : manager->plugins()) {
    if (plugin->name() == options.plugin) return Status::ok_status();
    found += (found.empty() ? "" : ", ") + plugin->name();
  }
  return Status(Stage::InvalidArgument,
                "plugin '" + options.plugin + "' was not found; the plugins found are: " +
                    (found.empty() ? "none" : found) + " (see `clport devices`)");
}

Result<std::unique_ptr<Backend>> create_checked_backend(const EngineOptions& options,
                                                        std::unique_ptr<PreparedDevice>* defer_unset_device) {
  if (options.device == "cpu") return create_cpu_backend(options, false);
  auto policy = engine_policy(options);
  if (!policy.ok()) return policy.status();
  const Policy& effective = policy.value();
  const bool fp32 = effective.globals().precision == Precision::Fp32;
  auto prepared = prepare_device(options, effective);
  if (prepared.ok() && defer_unset_device != nullptr && !is_index(options.device) &&
      !device_is_set_up(prepared.value())) {
    *defer_unset_device = std::make_unique<PreparedDevice>(std::move(prepared.value()));
    return create_cpu_backend(options, fp32);
  }
  auto device = prepared.ok() ? finish_device(std::move(prepared.value()))
                              : Result<std::unique_ptr<Backend>>(prepared.status());
  if (device.ok()) return device;
  if (is_index(options.device)) return device.status();  // the user asked for this device
  logger("engine")->warn("OpenCL is not usable ({}); running on the CPU",
                         device.status().to_string());
  return create_cpu_backend(options, fp32);
}

}  // namespace detail

Result<Policy> engine_policy(const EngineOptions& options) {
  auto policy = Policy::load(options.config_path);
  if (!policy.ok()) return policy.status();  // never start on a half-read policy
  Policy effective = policy.value();
  for (size_t i = 0; i < options.config_texts.size(); ++i) {
    CLPORT_RETURN_IF_ERROR(effective.add_layer(options.config_texts[i],
                                               "<policy text " + std::to_string(i + 1) + ">"));
  }
  if (!options.plugin.empty()) {
    CLPORT_RETURN_IF_ERROR(effective.add_layer(
        "rules:\n  - id: command-line-plugin\n    reason: --plugin on the command line\n"
        "    force: " + options.plugin + "\n",
        "<--plugin>"));
  }
  return effective;
}

Result<std::unique_ptr<Backend>> create_backend(const EngineOptions& options) {
  CLPORT_RETURN_IF_ERROR(detail::check_engine_choices(options));
  return detail::create_checked_backend(options);
}

}  // namespace clport
