// The library's own side of logging (the app's side is clport/log.h): the spdlog logger of a
// component, sharing the level and the sink that clport/log.h sets.
#pragma once

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include "clport/export.h"
#include "clport/log.h"

namespace clport {

// The logger for a component, created on first use with the current global level.
CLPORT_API std::shared_ptr<spdlog::logger> logger(const std::string& component);

}  // namespace clport
