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

}  // namespace clport::detail
