// Helpers of the Adreno plugin: the driver's strings (shared with the other vendor plugins, see
// clport_common/device_strings.hpp and clport_plugin/opencl_version.h).
#pragma once

#include "clport_common/device_strings.hpp"
#include "clport_plugin/opencl_version.h"

namespace vendor {

// Driver-string helpers are shared by every vendor plugin.
using clport::plugin_common::has_extension;

}  // namespace vendor
