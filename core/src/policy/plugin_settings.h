// A plugin's settings as the policy writes them (written_settings.h), checked against the settings
// the plugin declares (clport_plugin.settings) and typed for its host table. This is the one place
// a setting's text becomes a value, through yaml-cpp's own conversions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "clport/export.h"
#include "clport/status.h"
#include "clport_plugin/plugin_abi.h"
#include "policy/source_mark.h"
#include "policy/written_settings.h"

namespace clport {

struct TypedSetting {
  std::string name;
  int32_t type = CLPORT_SETTING_INT;  // clport_setting_type
  int64_t int_value = 0;              // BOOL (0 / 1), INT, ENUM (the index of its name)
  std::string text;                   // TEXT, ENUM (the name)
};

// The declaration of `name` in plugin's table, NULL when it declares none.
CLPORT_API const clport_setting_decl* find_setting(const clport_plugin& plugin, const std::string& name);

// One value checked against the declaration of `key`: Stage::Config "<where>: settings of plugin
// 'p': 'key' ..." when the plugin declares no such setting, or the value is not a single value of
// the declared type and range (`where` from `mark`; nothing when its file is empty).
CLPORT_API Result<TypedSetting> check_setting(const clport_plugin& plugin, const std::string& key,
                                              const YAML::Node& value, const SourceMark& mark = {});

// Every setting of a policy's section (or settings file) checked and typed; the first error.
CLPORT_API Result<std::vector<TypedSetting>> check_plugin_settings(const clport_plugin& plugin,
                                                                   const WrittenSettings& settings);

// A value of the declaration's candidates (clport_setting_decl.candidates) as a setting;
// Stage::Config "candidate N is not one of its values" when it is not a value of the declared
// type and range.
CLPORT_API Result<TypedSetting> candidate_setting(const clport_setting_decl& decl, int64_t value);

// `over` and every setting of `base` that `over` does not set (`over` wins per name).
CLPORT_API std::vector<TypedSetting> merge_settings(const std::vector<TypedSetting>& base,
                                                    const std::vector<TypedSetting>& over);

// The value as a policy writes it ("32", "true", an enum's name, the text).
CLPORT_API std::string value_text(const TypedSetting& setting);
// "name: value, ..." in the given order (logs, the tuner's report).
CLPORT_API std::string describe(const std::vector<TypedSetting>& settings);

}  // namespace clport
