#include "policy/plugin_settings.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace clport {
namespace {

std::string declared_names(const clport_plugin& plugin) {
  std::string names;
  for (size_t i = 0; i < plugin.n_settings; ++i) names += (names.empty() ? "" : ", ") + std::string(plugin.settings[i].name);
  return names.empty() ? "none" : names;
}

Status bad(const clport_plugin& plugin, const std::string& key, const std::string& what) {
  return Status(Stage::Config, "settings of plugin '" + std::string(plugin.name) + "': '" + key + "' " + what);
}

bool parse_bool(const std::string& v, int64_t* out) {
  std::string s = v;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (s == "true" || s == "yes" || s == "on" || s == "1") {
    *out = 1;
    return true;
  }
  if (s == "false" || s == "no" || s == "off" || s == "0") {
    *out = 0;
    return true;
  }
  return false;
}

bool parse_int(const std::string& v, int64_t* out) {
  if (v.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (errno != 0 || end == nullptr || *end != '\0') return false;
  *out = x;
  return true;
}

}  // namespace

const clport_setting_decl* find_setting(const clport_plugin& plugin, const std::string& name) {
  for (size_t i = 0; plugin.settings != nullptr && i < plugin.n_settings; ++i) {
    if (plugin.settings[i].name != nullptr && name == plugin.settings[i].name) return &plugin.settings[i];
  }
  return nullptr;
}

Result<std::vector<TypedSetting>> check_plugin_settings(const clport_plugin& plugin, const std::string& settings_yaml) {
  std::vector<TypedSetting> out;
  YAML::Node root;
  try {
    root = YAML::Load(settings_yaml);
  } catch (const YAML::Exception& e) {
    return Status(Stage::Config, "settings of plugin '" + std::string(plugin.name) + "' are not valid YAML: " + e.what());
  }
  if (!root || root.IsNull()) return out;
  if (!root.IsMap()) return Status(Stage::Config, "settings of plugin '" + std::string(plugin.name) + "' must be a map of key: value");
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    const clport_setting_decl* decl = find_setting(plugin, key);
    if (decl == nullptr) return bad(plugin, key, "is not a setting it declares (it declares: " + declared_names(plugin) + ")");
    if (!kv.second.IsScalar()) return bad(plugin, key, "must be a single value");
    const std::string value = kv.second.Scalar();
    TypedSetting t;
    t.name = key;
    t.type = decl->type;
    switch (decl->type) {
      case CLPORT_SETTING_BOOL:
        if (!parse_bool(value, &t.int_value)) return bad(plugin, key, "must be true or false, got '" + value + "'");
        break;
      case CLPORT_SETTING_INT:
        if (!parse_int(value, &t.int_value)) return bad(plugin, key, "must be an integer, got '" + value + "'");
        if (t.int_value < decl->min_value || t.int_value > decl->max_value) {
          return bad(plugin, key, "must be in " + std::to_string(decl->min_value) + ".." +
                                      std::to_string(decl->max_value) + ", got " + value);
        }
        break;
      case CLPORT_SETTING_TEXT:
        t.text = value;
        break;
      default:
        return bad(plugin, key, "has a declared type (" + std::to_string(decl->type) + ") this clport does not know");
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace clport
