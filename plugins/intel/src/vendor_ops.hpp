// What this vendor plugin serves so far, and the flat settings it reads from its policy section.
// Kept per plugin (not in plugins/common) because each vendor's subset and knobs will diverge
// once it gets its own kernels.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

#include "clport/plugin_abi.h"

namespace vendor {

// MUL_MAT with an F16 / Q4_0 / Q4_1 / Q8_0 / Q4_K / Q6_K weight and F32 activations (the
// weight types with a sub-group GEMV in intel_gemv.cl), and RMS_NORM: the hot ops of decoding.
// Everything else goes to the generic plugin.
inline bool in_served_subset(const clport_op& op) {
  if (op.kind == CLPORT_OP_RMS_NORM) return true;
  if (op.kind != CLPORT_OP_MUL_MAT || op.n_src < 2 || op.src[0] == nullptr) return false;
  const int32_t w = op.src[0]->dtype;
  return w == CLPORT_DTYPE_F16 || w == CLPORT_DTYPE_Q4_0 || w == CLPORT_DTYPE_Q4_1 ||
         w == CLPORT_DTYPE_Q8_0 || w == CLPORT_DTYPE_Q4_K || w == CLPORT_DTYPE_Q6_K;
}

// The raw value of "key: value" in the plugin's flat settings map; false when absent.
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

// An unsigned "key: value"; `fallback` when absent; *bad set when present but unreadable.
inline uint32_t setting_uint(const std::string& yaml, const std::string& key, uint32_t fallback, std::string* bad) {
  std::string v;
  if (!setting_text(yaml, key, &v)) return fallback;
  if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos) {
    *bad += (bad->empty() ? "" : ", ") + key + ": '" + v + "'";
    return fallback;
  }
  return static_cast<uint32_t>(std::stoul(v));
}

// A boolean "key: value" from the plugin's flat settings map; `fallback` when absent or unreadable.
inline bool setting_bool(const std::string& yaml, const std::string& key, bool fallback) {
  std::istringstream in(yaml);
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
