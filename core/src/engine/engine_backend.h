// Internal: the pieces of backend selection (engine_backend.cpp) that the engine's recovery
// (engine_recovery.cpp) uses again when a device fails at load or during a generation.
#pragma once

#include <memory>

#include "clport/backend.h"
#include "clport/engine.h"

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

// create_backend() without check_engine_choices(), for a caller that has just run it.
Result<std::unique_ptr<Backend>> create_checked_backend(const EngineOptions& options);

}  // namespace clport::detail
