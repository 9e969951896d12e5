// Logging: one logger per component ("loader", "probe", "plugins", ...). The level comes from
// CLPORT_LOG_LEVEL (trace/debug/info/warn/error/critical/off), the CLI (--log-level) or the
// policy. Logs go to stderr so that generated text on stdout stays clean, or to a callback an app
// sets (the C API's clport_set_log_callback is the same switch).
#pragma once

#include <functional>
#include <string>

#include "clport/export.h"

namespace clport {

enum class LogLevel { Trace, Debug, Info, Warn, Error, Critical, Off };

// Sets the level of every clport logger, existing and future. Unknown names leave it unchanged
// and return false.
CLPORT_API bool set_log_level(const std::string& level);

// Receives every clport log line (component without the "clport." prefix, the message without a
// newline) instead of stderr, one call at a time; an empty function restores stderr. Applies to
// every clport logger, existing and future.
using LogCallback = std::function<void(LogLevel level, const std::string& component, const std::string& message)>;
CLPORT_API void set_log_callback(LogCallback callback);

}  // namespace clport
