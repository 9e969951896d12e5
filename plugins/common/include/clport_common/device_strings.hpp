// Reading the driver's strings in a plugin's probe (header-only: the Adreno plugin uses it
// without linking plugins/common).
#pragma once

#include <sstream>
#include <string>

namespace clport::plugin_common {

// The leading "M.N" of a version string such as "OpenCL C 2.0 Adreno" as M*10+N; 0 when unreadable.
inline int opencl_c_level(const char* version) {
  int major = 0, minor = 0;
  if (version == nullptr) return 0;
  std::string v(version);
  const auto at = v.find_first_of("0123456789");
  if (at == std::string::npos) return 0;
  std::istringstream in(v.substr(at));
  char dot = 0;
  in >> major >> dot >> minor;
  return major * 10 + minor;
}

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
