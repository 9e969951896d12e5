#include "policy/plugin_settings.h"

#include <algorithm>

namespace clport {
namespace {

std::string declared_names(const clport_plugin& plugin) {
  std::string names;
  for (size_t i = 0; plugin.settings != nullptr && i < plugin.n_settings; ++i) {
    names += (names.empty() ? "" : ", ") + std::string(plugin.settings[i].name);
  }
  return names.empty() ? "none" : names;
}

std::string where(const SourceMark& mark) { return mark.file.empty() ? "" : mark.to_string() + ": "; }

// What was written, for messages: the scalar, or the node in YAML flow style.
std::string shown(const YAML::Node& value) {
  if (value.IsScalar()) return value.Scalar();
  YAML::Emitter flow;
  flow << YAML::Flow << value;
  return flow.c_str();
}

Status bad(const std::string& plugin, const std::string& key, const std::string& what, const SourceMark& mark) {
  return Status(Stage::Config, where(mark) + "settings of plugin '" + plugin + "': '" + key + "' " + what);
}

std::string range_of(const clport_setting_decl& decl) {
  return std::to_string(decl.min_value) + ".." + std::to_string(decl.max_value);
}

std::string names_of(const clport_setting_decl& decl) {
  std::string names;
  for (size_t i = 0; i < decl.n_values; ++i) names += (i == 0 ? "" : ", ") + std::string(decl.value_names[i]);
  return names;
}

// The index of `name` among an enum's names, -1 when it is none of them.
int64_t index_of(const clport_setting_decl& decl, const std::string& name) {
  for (size_t i = 0; decl.value_names != nullptr && i < decl.n_values; ++i) {
    if (decl.value_names[i] != nullptr && name == decl.value_names[i]) return static_cast<int64_t>(i);
  }
  return -1;
}

}  // namespace

const clport_setting_decl* find_setting(const clport_plugin& plugin, const std::string& name) {
  for (size_t i = 0; plugin.settings != nullptr && i < plugin.n_settings; ++i) {
    if (plugin.settings[i].name != nullptr && name == plugin.settings[i].name) return &plugin.settings[i];
  }
  return nullptr;
}

Result<TypedSetting> check_setting(const clport_plugin& plugin, const std::string& key, const YAML::Node& value,
                                   const SourceMark& mark) {
  const std::string name = plugin.name != nullptr ? plugin.name : "?";
  const clport_setting_decl* decl = find_setting(plugin, key);
  if (decl == nullptr) {
    return bad(name, key, "is not a setting it declares (it declares: " + declared_names(plugin) + ")", mark);
  }
  if (!value.IsScalar()) return bad(name, key, "must be a single value, got '" + shown(value) + "'", mark);
  TypedSetting t;
  t.name = key;
  t.type = decl->type;
  switch (decl->type) {
    case CLPORT_SETTING_BOOL: {
      bool on = false;
      if (!YAML::convert<bool>::decode(value, on)) {
        return bad(name, key, "must be true or false, got '" + shown(value) + "'", mark);
      }
      t.int_value = on ? 1 : 0;
      break;
    }
    case CLPORT_SETTING_INT:
      if (!YAML::convert<int64_t>::decode(value, t.int_value)) {
        return bad(name, key, "must be an integer, got '" + shown(value) + "'", mark);
      }
      if (t.int_value < decl->min_value || t.int_value > decl->max_value) {
        return bad(name, key, "must be in " + range_of(*decl) + ", got " + shown(value), mark);
      }
      break;
    case CLPORT_SETTING_TEXT:
      t.text = value.Scalar();
      break;
    case CLPORT_SETTING_ENUM:
      // Only the names: a number (the index) would make the policy depend on their order.
      t.int_value = index_of(*decl, value.Scalar());
      if (t.int_value < 0) {
        return bad(name, key, "must be one of " + names_of(*decl) + ", got '" + shown(value) + "'", mark);
      }
      t.text = value.Scalar();
      break;
    default:
      return bad(name, key, "has a declared type (" + std::to_string(decl->type) + ") this clport does not know", mark);
  }
  return t;
}

Result<std::vector<TypedSetting>> check_plugin_settings(const clport_plugin& plugin, const WrittenSettings& settings) {
  std::vector<TypedSetting> out;
  for (const auto& [key, written] : settings) {
    auto typed = check_setting(plugin, key, written.value, written.mark);
    if (!typed.ok()) return typed.status();
    out.push_back(std::move(typed.value()));
  }
  return out;
}

Result<TypedSetting> candidate_setting(const clport_setting_decl& decl, int64_t value) {
  TypedSetting t;
  t.name = decl.name != nullptr ? decl.name : "";
  t.type = decl.type;
  t.int_value = value;
  const bool is_enum = decl.type == CLPORT_SETTING_ENUM && decl.value_names != nullptr;
  const bool fits = (decl.type == CLPORT_SETTING_BOOL && (value == 0 || value == 1)) ||
                    (decl.type == CLPORT_SETTING_INT && value >= decl.min_value && value <= decl.max_value) ||
                    (is_enum && value >= 0 && static_cast<uint64_t>(value) < decl.n_values);
  if (!fits) {
    return Status(Stage::Config, "candidate " + std::to_string(value) + " is not one of its values");
  }
  if (is_enum) t.text = decl.value_names[value];
  return t;
}

std::vector<TypedSetting> merge_settings(const std::vector<TypedSetting>& base, const std::vector<TypedSetting>& over) {
  std::vector<TypedSetting> out = over;
  for (const TypedSetting& b : base) {
    const bool overridden =
        std::any_of(over.begin(), over.end(), [&](const TypedSetting& o) { return o.name == b.name; });
    if (!overridden) out.push_back(b);
  }
  return out;
}

std::string value_text(const TypedSetting& setting) {
  switch (setting.type) {
    case CLPORT_SETTING_BOOL: return setting.int_value != 0 ? "true" : "false";
    case CLPORT_SETTING_INT: return std::to_string(setting.int_value);
    default: return setting.text;
  }
}

std::string describe(const WrittenSettings& settings) {
  std::string out;
  for (const auto& [key, written] : settings) out += (out.empty() ? "" : ", ") + key + ": " + shown(written.value);
  return out;
}

std::string describe(const std::vector<TypedSetting>& settings) {
  std::string out;
  for (const TypedSetting& s : settings) out += (out.empty() ? "" : ", ") + s.name + ": " + value_text(s);
  return out;
}

}  // namespace clport
