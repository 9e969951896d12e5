// Helpers of the Adreno plugin: the flat settings of its policy section and the driver's strings
// (shared with the other vendor plugins, see clport_common/plugin_settings.hpp).
#pragma once

#include "clport_common/plugin_settings.hpp"

namespace vendor {

// Settings and driver-string helpers are shared by every vendor plugin.
using clport::plugin_common::has_extension;
using clport::plugin_common::opencl_c_level;
using clport::plugin_common::setting_bool;
using clport::plugin_common::setting_text;
using clport::plugin_common::setting_uint;

}  // namespace vendor
