// Building a plugin's setting declarations (clport_setting_decl, plugin_abi.h) and describing
// the values the host hands over. Header-only: the Adreno plugin uses it without linking
// plugins/common.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "clport_plugin/plugin_abi.h"

namespace clport::plugin_common {

inline clport_setting_decl bool_setting(const char* name, const char* description) {
  return clport_setting_decl{name, CLPORT_SETTING_BOOL, description, 0, 1, nullptr, nullptr, 0, nullptr, 0};
}

inline clport_setting_decl int_setting(const char* name, int64_t min_value, int64_t max_value,
                                       const char* description) {
  return clport_setting_decl{name, CLPORT_SETTING_INT, description, min_value, max_value,
                             nullptr, nullptr, 0, nullptr, 0};
}

// A tunable INT: `clport tune` times it with the other settings of `group` over `candidates`.
// The declaration keeps a pointer to the candidates, so they must have static storage.
template <size_t N>
clport_setting_decl tuned_int_setting(const char* name, int64_t min_value, int64_t max_value, const char* group,
                                      const int64_t (&candidates)[N], const char* description) {
  return clport_setting_decl{name, CLPORT_SETTING_INT, description, min_value, max_value, group, candidates, N,
                             nullptr, 0};
}

// An ENUM: the policy writes one of `names`, the plugin gets its index (sdk::Host::setting_int)
// and its name (setting_text). min_value / max_value span the indexes, for the plugin's own range
// checks. The declaration keeps a pointer to the names, so they must have static storage.
template <size_t N>
clport_setting_decl enum_setting(const char* name, const char* const (&names)[N], const char* description) {
  return clport_setting_decl{name, CLPORT_SETTING_ENUM, description, 0, static_cast<int64_t>(N) - 1,
                             nullptr, nullptr, 0, names, N};
}

// "name: value, ..." of the settings the host hands over, for a plugin's log.
inline std::string describe_settings(const clport_host& host) {
  std::string text;
  for (size_t i = 0; host.settings != nullptr && i < host.n_settings; ++i) {
    const clport_setting_value& v = host.settings[i];
    if (!text.empty()) text += ", ";
    text += std::string(v.name) + ": ";
    switch (v.type) {
      case CLPORT_SETTING_BOOL: text += v.int_value != 0 ? "true" : "false"; break;
      case CLPORT_SETTING_INT: text += std::to_string(v.int_value); break;
      default: text += v.text_value != nullptr ? v.text_value : ""; break;  // TEXT, ENUM's name
    }
  }
  return text;
}

}  // namespace clport::plugin_common
