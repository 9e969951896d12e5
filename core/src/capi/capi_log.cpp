// clport_set_log_callback / clport_set_log_level: the process-wide clport loggers (clport/log.h)
// routed to an app's C callback.
#include "capi/capi_internal.h"
#include "clport/log.h"

namespace {

// The level's name as clport::set_log_level takes it; nullptr for a value not in the enum.
const char* capi_level_name(clport_log_severity level) {
  switch (level) {
    case CLPORT_SEVERITY_TRACE: return "trace";
    case CLPORT_SEVERITY_DEBUG: return "debug";
    case CLPORT_SEVERITY_INFO: return "info";
    case CLPORT_SEVERITY_WARN: return "warn";
    case CLPORT_SEVERITY_ERROR: return "error";
    case CLPORT_SEVERITY_OFF: return "off";
  }
  return nullptr;
}

clport_log_severity capi_severity(clport::LogLevel level) {
  switch (level) {
    case clport::LogLevel::Trace: return CLPORT_SEVERITY_TRACE;
    case clport::LogLevel::Debug: return CLPORT_SEVERITY_DEBUG;
    case clport::LogLevel::Info: return CLPORT_SEVERITY_INFO;
    case clport::LogLevel::Warn: return CLPORT_SEVERITY_WARN;
    default: return CLPORT_SEVERITY_ERROR;  // error and critical
  }
}

}  // namespace

extern "C" {

clport_status clport_set_log_callback(clport_log_callback callback, void* user_data) {
  return clport::capi::guarded(nullptr, "clport_set_log_callback", [&] {
    if (callback == nullptr) {
      clport::set_log_callback({});
    } else {
      clport::set_log_callback([callback, user_data](clport::LogLevel level,
                                                     const std::string& component,
                                                     const std::string& message) {
        callback(user_data, capi_severity(level), component.c_str(), message.c_str());
      });
    }
    return clport::capi::ok(nullptr);
  });
}

clport_status clport_set_log_level(clport_log_severity level) {
  return clport::capi::guarded(nullptr, "clport_set_log_level", [&] {
    const char* name = capi_level_name(level);
    if (name == nullptr) {
      return clport::capi::invalid(nullptr, "clport_set_log_level: level " +
                                                std::to_string(static_cast<int>(level)) +
                                                " is not a clport_log_severity (0-4 or 6)");
    }
    clport::set_log_level(name);
    return clport::capi::ok(nullptr);
  });
}

}  // extern "C"
