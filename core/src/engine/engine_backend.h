// Internal: the pieces of backend selection (engine_backend.cpp) that the engine's recovery
// (engine_recovery.cpp) uses again when a device fails at load or during a generation.
#pragma once

#include <memory>

#include "backend/backend.h"
#include "binding/binding.h"
#include "runtime/device_context.h"
#include "engine/engine_core.h"
#include "plugins/plugin_manager.h"
#include "policy/policy.h"
#include "selftest/self_test.h"

namespace clport::detail {

// True when options.device names one device by its index (the user asked for that device).
bool names_device(const EngineOptions& options);

// The CPU path for these options: the fast CPU backend, with float activations when the options
// or the policy (precision: fp32) ask for them, as the no-OpenCL fallback runs it.
std::unique_ptr<Backend> create_cpu_path_backend(const EngineOptions& options);

// What can be judged before a model is opened, so that a wrong value is refused in seconds and
// not after a load: the policy reads, options.plugin names a plugin that was found (the search
// of the policy's plugin_dir and CLPORT_PLUGIN_PATH), options.cache_dir is "", "off" or an
// absolute path. Stage::Config for the policy, Stage::InvalidArgument naming the value and what
// is allowed for the rest.
Status check_engine_choices(const EngineOptions& options);

// A device chosen, its context created and its plugins bound, before the self-test and the
// backend: what the engine's CPU-first start hands to its loading thread.
struct PreparedDevice {
  std::shared_ptr<DeviceContext> context;
  std::shared_ptr<PluginManager> manager;
  std::unique_ptr<DeviceBinding> binding;
  SelfTestMode self_test_mode = SelfTestMode::Auto;
  std::function<void(size_t, size_t)> setup_progress;  // EngineOptions::setup_progress
  selftest::TestScope self_test_scope;  // the model's (selftest::model_scope); else everything
};
// The device the options and the policy choose (as create_backend does), ready for finish_device.
Result<PreparedDevice> prepare_device(const EngineOptions& options, const Policy& policy);
// Whether this device, driver and clport version were set up before: the self-test verdict is
// cached, so its programs are too and finish_device takes no compiling. Applies the verdict.
bool device_is_set_up(PreparedDevice& device);
// The self-test (run or read) and the backend.
Result<std::unique_ptr<Backend>> finish_device(PreparedDevice device);

// create_backend() without check_engine_choices(), for a caller that has just run it. With
// `defer_unset_device`: an OpenCL device chosen by "auto" that device_is_set_up() says was never
// set up is not finished here but moved to *defer_unset_device, and the CPU path is returned.
Result<std::unique_ptr<Backend>> create_checked_backend(const EngineOptions& options,
                                                        std::unique_ptr<PreparedDevice>* defer_unset_device = nullptr);

}  // namespace clport::detail
