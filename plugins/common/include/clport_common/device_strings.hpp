// Reading the driver's strings in a plugin's probe (header-only: the Adreno plugin uses it
// without linking plugins/common). Version strings: clport_plugin/opencl_version.h.
#pragma once

#include <sstream>
#include <string>

namespace clport::plugin_common {

// True when the space-separated extension list holds `name` exactly.
inline bool has_extension(const char* list, const char* name) {
  if (list == nullptr) return false;
  std::istringstream in(list);
  std::string ext;
  while (in >> ext) {
    if (ext == name) return true;
  }
  return false;
}

}  // namespace clport::plugin_common
