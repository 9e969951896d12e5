// Logging: spdlog, one logger per component ("loader", "probe", "plugins", ...). The level comes
// from CLPORT_LOG_LEVEL (trace/debug/info/warn/error/off), the CLI (--log-level) or the policy.
// Logs go to stderr so that generated text on stdout stays clean, or to a callback an app sets
// (the C API's clport_set_log_callback).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include "clport/export.h"

namespace clport {

// The logger for a component, created on first use with the current global level.
CLPORT_API std::shared_ptr<spdlog::logger> logger(const std::string& component);
// Sets the level of every clport logger, existing and future. Unknown names leave it unchanged
// and return false.
CLPORT_API bool set_log_level(const std::string& level);

// Receives every clport log line (component without the "clport." prefix, the message without a
// newline) instead of stderr, one call at a time; an empty function restores stderr. Applies to
// every clport logger, existing and future.
using LogCallback = std::function<void(spdlog::level::level_enum level, const std::string& component,
                                       const std::string& message)>;
CLPORT_API void set_log_callback(LogCallback callback);

}  // namespace clport
