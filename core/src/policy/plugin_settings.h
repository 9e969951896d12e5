// A plugin's settings as the policy gives them (a flat YAML map, policy.h), checked against the
// settings the plugin declares (clport_plugin.settings) and typed for its host table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clport/export.h"
#include "clport/status.h"
#include "clport_plugin/plugin_abi.h"

namespace clport {

struct TypedSetting {
  std::string name;
  int32_t type = CLPORT_SETTING_INT;  // clport_setting_type
  int64_t int_value = 0;              // BOOL (0 / 1) and INT
  std::string text;                   // TEXT
};

// Stage::Config naming the plugin and the key when the YAML is not a flat map, names a setting
// the plugin does not declare, or gives a value of the wrong type or outside the declared range.
CLPORT_API Result<std::vector<TypedSetting>> check_plugin_settings(const clport_plugin& plugin,
                                                                   const std::string& settings_yaml);

// The declaration of `name` in plugin's table, NULL when it declares none.
CLPORT_API const clport_setting_decl* find_setting(const clport_plugin& plugin, const std::string& name);

}  // namespace clport
