// Helpers of the Adreno plugin: the driver's strings (shared with the other vendor plugins, see
// clport_common/device_strings.hpp).
#pragma once

#include "clport_common/device_strings.hpp"

namespace vendor {

// Driver-string helpers are shared by every vendor plugin.
using clport::plugin_common::has_extension;
using clport::plugin_common::opencl_c_level;

}  // namespace vendor
