// Per-device sections of `clport devices`. cmd_devices.cpp prints what the loader and the probe
// found; describe_plugins() (body in device_report_plugins.cpp, owned by the plugin manager)
// appends which plugins were considered for the device and the resulting per-op binding.
#pragma once

#include <memory>
#include <ostream>

#include <nlohmann/json.hpp>

#include "clport/device_info.h"
#include "clport/opencl_loader.h"

namespace clport::cli {

// Writes the plugin/binding section for `device` to `text` (indented two spaces, one item per
// line) and/or into `json` (an object; add keys to it). Either may be null. Must not throw.
void describe_plugins(const std::shared_ptr<OpenClLibrary>& library, const DeviceInfo& device,
                      std::ostream* text, nlohmann::json* json);

}  // namespace clport::cli
