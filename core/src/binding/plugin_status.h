// Internal: a plugin call's status code and error object as a Status.
#pragma once

#include <string>

#include "clport/status.h"
#include "clport_plugin/plugin_abi.h"

namespace clport {

// "plugin 'name' what: message (code N)" with the stage the code maps to; frees the error object
// through table. OK with no error object is an OK Status.
Status plugin_call_status(const clport_plugin& table, const std::string& plugin_name, int32_t rc,
                          clport_plugin_error* error, const std::string& what);

}  // namespace clport
