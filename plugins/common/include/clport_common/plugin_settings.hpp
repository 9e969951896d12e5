// Reading a plugin's own policy section and the driver's strings, shared by the vendor plugins.
// The core always hands settings over as block YAML, one `key: value` per line
// (core/src/policy/settings_text.h), so a line reader is enough and plugins need no YAML library.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

namespace clport::plugin_common {

// The raw value of "key: value" in the flat settings map; false when absent.
inline bool setting_text(const std::string& yaml, const std::string& key, std::string* value) {
  std::istringstream in(yaml);
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon), v = line.substr(colon + 1);
    k.erase(0, k.find_first_not_of(" \t"));
    k.erase(k.find_last_not_of(" \t") + 1);
    if (k != key) continue;
    v.erase(0, v.find_first_not_of(" \t"));
    v.erase(v.find_last_not_of(" \t\r") + 1);
    *value = v;
    return true;
  }
  return false;
}

// A boolean "key: value"; `fallback` when absent or unreadable.
inline bool setting_bool(const std::string& yaml, const std::string& key, bool fallback) {
  std::string v;
  if (!setting_text(yaml, key, &v)) return fallback;
  if (v == "true" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "no" || v == "off") return false;
  return fallback;
}

// An unsigned "key: value"; `fallback` when absent; *bad gets a note when present but unreadable.
inline uint32_t setting_uint(const std::string& yaml, const std::string& key, uint32_t fallback,
                             std::string* bad) {
  std::string v;
  if (!setting_text(yaml, key, &v)) return fallback;
  if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos) {
    *bad += (bad->empty() ? "" : ", ") + key + ": '" + v + "'";
    return fallback;
  }
  return static_cast<uint32_t>(std::stoul(v));
}

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
