// Small parsing helpers of the Adreno plugin: the flat settings of its policy section and the
// driver's version strings.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

#include "clport/plugin_abi.h"

namespace vendor {

// A boolean "key: value" from the plugin's flat settings map, in block ("a: true" lines) or flow
// ("{a: true, b: false}") style, as the policy hands it over; `fallback` when absent or
// unreadable.
inline bool setting_bool(const std::string& yaml, const std::string& key, bool fallback) {
  std::string flat = yaml;
  for (char& c : flat) {
    if (c == '{' || c == '}') c = ' ';
    if (c == ',') c = '\n';
  }
  std::istringstream in(flat);
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon), v = line.substr(colon + 1);
    k.erase(0, k.find_first_not_of(" \t"));
    k.erase(k.find_last_not_of(" \t") + 1);
    v.erase(0, v.find_first_not_of(" \t"));
    v.erase(v.find_last_not_of(" \t\r") + 1);
    if (k != key) continue;
    if (v == "true" || v == "yes" || v == "on") return true;
    if (v == "false" || v == "no" || v == "off") return false;
  }
  return fallback;
}

// Parses the leading "OpenCL C M.N" of a version string into M*10+N; 0 when unreadable.
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

inline bool has_extension(const char* list, const char* name) {
  if (list == nullptr) return false;
  std::istringstream in(list);
  std::string ext;
  while (in >> ext) {
    if (ext == name) return true;
  }
  return false;
}

}  // namespace vendor
