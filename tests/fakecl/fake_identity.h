// The identity the forwarding library reports instead of the real device's, from FAKECL_PRESET
// and the FAKECL_* identity variables (which override the preset field by field). Read at every
// query so that a test can change it between calls.
#pragma once

#include <optional>
#include <string>

#include "real_opencl.h"

namespace fakecl {

// The replacement for a string device query, or nullopt to forward the real answer.
// `real_extensions` is needed for FAKECL_EXTENSIONS="+ext ..." (append).
std::optional<std::string> device_string_override(cl_device_info param,
                                                  const std::string& real_extensions);
std::optional<std::string> platform_string_override(cl_platform_info param);
// 0 when the type is not spoofed.
cl_device_type device_type_override();

}  // namespace fakecl
