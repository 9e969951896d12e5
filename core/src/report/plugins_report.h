// The plugin section of the devices report (report.h): body in plugins_report.cpp, owned by the
// plugin manager's side. devices_report.cpp writes what the loader and the probe found.
#pragma once

#include <memory>
#include <ostream>

#include <nlohmann/json.hpp>

#include "probe/device_info.h"
#include "loader/opencl_loader.h"
#include "plugins/plugin_manager.h"
#include "policy/policy.h"

namespace clport::report {

// Writes the plugin/binding section for `device` to `text` (indented two spaces, one item per
// line) and/or into `json` (an object; add keys to it). Either may be null. Every device of one
// report is judged against the same plugin files (`manager`) and policy. Must not throw.
void describe_plugins(const std::shared_ptr<OpenClLibrary>& library, const DeviceInfo& device,
                      const Policy& policy, PluginManager& manager, const std::string& cache_dir,
                      std::ostream* text, nlohmann::json* json);

}  // namespace clport::report
