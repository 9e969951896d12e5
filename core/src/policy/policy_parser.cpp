// Turns one YAML policy file into a PolicyLayer. Every key is known, every value is type- and
// range-checked, and every error names file:line:column, before anything is applied.
#include "policy/policy_parser.h"

#include <fstream>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "policy/policy_pattern.h"
#include "policy/yaml_guard.h"

namespace clport::policy_detail {
namespace {

// Carries the first validation error out of the nested readers below (internal to this file;
// parse_policy_layer turns it into a Status).
struct ConfigError {
  YAML::Mark mark;
  std::string message;
};

[[noreturn]] void fail(const YAML::Node& node, const std::string& message) {
  throw ConfigError{node.Mark(), message};
}

std::string read_string(const YAML::Node& node, const std::string& key) {
  if (!node.IsScalar()) fail(node, "'" + key + "' must be a string");
  return node.Scalar();
}

bool read_bool(const YAML::Node& node, const std::string& key) {
  bool value = false;
  if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
    fail(node, "'" + key + "' must be true or false");
  }
  return value;
}

int64_t read_int(const YAML::Node& node, const std::string& key, int64_t lo, int64_t hi) {
  int64_t value = 0;
  if (!node.IsScalar() || !YAML::convert<int64_t>::decode(node, value)) {
    fail(node, "'" + key + "' must be an integer");
  }
  if (value < lo || value > hi) {
    fail(node, "'" + key + "' is " + std::to_string(value) + ", allowed range is " +
                   std::to_string(lo) + " .. " + std::to_string(hi));
  }
  return value;
}

void require_map(const YAML::Node& node, const std::string& what) {
  if (!node.IsMap()) fail(node, what + " must be a map (key: value)");
}

// Iterates a map, rejecting keys not in `known` (typos must not be silently ignored).
template <typename Fn>
void for_each_key(const YAML::Node& map, const std::set<std::string>& known, const std::string& where,
                  Fn&& fn) {
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) fail(kv.first, where + ": keys must be plain strings");
    const std::string key = kv.first.Scalar();
    if (!known.empty() && known.count(key) == 0) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      fail(kv.first, "unknown key '" + key + "' in " + where + " (known: " + list + ")");
    }
    fn(key, kv.second);
  }
}

Precision read_precision(const YAML::Node& node) {
  const std::string v = read_string(node, "precision");
  if (v == "auto") return Precision::Auto;
  if (v == "fp32") return Precision::Fp32;
  if (v == "fp16") return Precision::Fp16;
  fail(node, "'precision' must be auto, fp32 or fp16, not '" + v + "'");
}

std::string read_cache_type(const YAML::Node& node, const std::string& key) {
  const std::string v = read_string(node, key);
  if (v != "f16" && v != "f32" && v != "q8_0" && v != "q4_0") {
    fail(node, "'" + key + "' must be f16, f32, q8_0 or q4_0, not '" + v + "'");
  }
  return v;
}

// Bytes: an integer, or a number with a binary unit (K, M, G, T, optionally followed by "iB").
uint64_t read_bytes(const YAML::Node& node, const std::string& key) {
  const std::string v = read_string(node, key);
  static const std::string kUnits = "KMGT";
  size_t digits = 0;
  while (digits < v.size() && v[digits] >= '0' && v[digits] <= '9') ++digits;
  std::string unit = v.substr(digits);
  if (unit.size() == 3 && unit.compare(1, 2, "iB") == 0) unit = unit.substr(0, 1);
  const size_t power = unit.empty() ? 0 : unit.size() == 1 ? kUnits.find(unit[0]) + 1 : 0;
  if (digits == 0 || digits > 15 || (!unit.empty() && power == 0)) {
    fail(node, "'" + key + "' must be a number of bytes, optionally with a unit (K, M, G, T: 512M, 2G), not '" + v + "'");
  }
  const uint64_t count = std::stoull(v.substr(0, digits));
  if (power != 0 && (count >> (64 - 10 * power)) != 0) fail(node, "'" + key + "' is too large: '" + v + "'");
  return count << (10 * power);
}

std::string read_regex(const YAML::Node& node, const std::string& key) {
  const std::string pattern = read_string(node, key);
  if (pattern.size() > 512) fail(node, "'" + key + "' regex is longer than 512 characters");
  if (const std::string error = policy_pattern_error(pattern); !error.empty()) {
    fail(node, "'" + key + "' is not a valid regular expression: " + error);
  }
  return pattern;
}

std::string read_plugin_name(const YAML::Node& node, const std::string& key) {
  const std::string name = read_string(node, key);
  if (!valid_plugin_name(name)) {
    fail(node, "'" + name + "' is not a plugin name (lower case letters, digits, '_' or '-')");
  }
  return name;
}

std::vector<std::string> read_string_list(const YAML::Node& node, const std::string& key) {
  std::vector<std::string> out;
  if (node.IsScalar()) return {read_string(node, key)};
  if (!node.IsSequence()) fail(node, "'" + key + "' must be a string or a list of strings");
  for (const auto& item : node) out.push_back(read_string(item, key));
  return out;
}

SourceMark mark_in(const std::string& file, const YAML::Node& node) {
  return SourceMark{file, node.Mark().line + 1, node.Mark().column + 1};
}

// A plugin's settings: a map of keys to values kept as written. Which keys and values the plugin
// takes, only its declarations say (checked at binding, policy/plugin_settings.h).
WrittenSettings read_settings_map(const YAML::Node& node, const std::string& what, const std::string& file) {
  if (!node.IsMap()) fail(node, what + " must be a map (key: value)");
  WrittenSettings out;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) fail(kv.first, what + ": keys must be plain strings");
    const std::string key = kv.first.Scalar();
    if (out.count(key) != 0) fail(kv.first, what + ": '" + key + "' is set twice");
    out[key] = WrittenSetting{kv.second, mark_in(file, kv.first)};
  }
  return out;
}

std::map<std::string, WrittenSettings> read_plugin_settings(const YAML::Node& node, const std::string& key,
                                                            const std::string& file) {
  require_map(node, "'" + key + "'");
  std::map<std::string, WrittenSettings> out;
  for (const auto& kv : node) {
    const std::string plugin = read_plugin_name(kv.first, key);
    out[plugin] = read_settings_map(kv.second, "settings for plugin '" + plugin + "'", file);
  }
  return out;
}

DriverVersion read_version(const YAML::Node& node, const std::string& key) {
  const std::string text = read_string(node, key);
  auto parsed = parse_driver_version(text);
  if (!parsed) {
    fail(node, "'" + key + "': cannot read a driver version from '" + text +
                   "' (no driver_versions scheme of the device-family table reads it)");
  }
  return *parsed;
}

DeviceMatch read_match(const YAML::Node& node) {
  require_map(node, "'match'");
  DeviceMatch m;
  static const std::set<std::string> keys = {"name", "vendor", "driver", "platform", "family",
                                             "generation", "driver_version", "generation_number",
                                             "extensions", "device_type"};
  for_each_key(node, keys, "match", [&](const std::string& key, const YAML::Node& value) {
    if (key == "name") m.name = read_regex(value, key);
    else if (key == "vendor") m.vendor = read_regex(value, key);
    else if (key == "driver") m.driver = read_regex(value, key);
    else if (key == "platform") m.platform = read_regex(value, key);
    else if (key == "family") m.family = read_regex(value, key);
    else if (key == "generation") m.generation = read_regex(value, key);
    else if (key == "extensions") m.extensions = read_string_list(value, key);
    else if (key == "device_type") {
      const std::string t = read_string(value, key);
      if (t != "gpu" && t != "cpu" && t != "accelerator") {
        fail(value, "'device_type' must be gpu, cpu or accelerator");
      }
      m.device_type = t;
    } else if (key == "driver_version") {
      require_map(value, "'driver_version'");
      for_each_key(value, {"min", "max"}, "driver_version", [&](const std::string& k, const YAML::Node& v) {
        (k == "min" ? m.driver_min : m.driver_max) = read_version(v, k);
      });
      if (m.driver_min && m.driver_max) {
        auto order = compare_driver_versions(*m.driver_min, *m.driver_max);
        if (!order) fail(value, "'driver_version' min and max use different version schemes (" +
                                    m.driver_min->scheme + " vs " + m.driver_max->scheme + ")");
        if (*order >= 0) fail(value, "'driver_version' range is empty: min must be below max (max is exclusive)");
      }
    } else if (key == "generation_number") {
      require_map(value, "'generation_number'");
      for_each_key(value, {"min", "max"}, "generation_number", [&](const std::string& k, const YAML::Node& v) {
        (k == "min" ? m.generation_min : m.generation_max) =
            static_cast<int32_t>(read_int(v, k, 0, 1000000));
      });
      if (m.generation_min && m.generation_max && *m.generation_min > *m.generation_max) {
        fail(value, "'generation_number' range is empty: min is above max");
      }
    }
  });
  return m;
}

PolicyRule read_rule(const YAML::Node& node, const std::string& file) {
  require_map(node, "a rule");
  PolicyRule rule;
  rule.mark = mark_in(file, node);
  static const std::set<std::string> keys = {"id", "reason", "source", "match", "force", "prefer",
                                             "deny", "deny_device", "precision", "settings"};
  bool has_action = false;
  for_each_key(node, keys, "rule", [&](const std::string& key, const YAML::Node& value) {
    if (key == "id") {
      rule.id = read_string(value, key);
      if (rule.id.empty() || rule.id.size() > 128) fail(value, "'id' must be 1..128 characters");
    } else if (key == "reason") {
      rule.reason = read_string(value, key);
    } else if (key == "source") {
      rule.source = read_string(value, key);
    } else if (key == "match") {
      rule.match = read_match(value);
    } else if (key == "force") {
      rule.force_plugin = read_plugin_name(value, key);
      has_action = true;
    } else if (key == "prefer") {
      require_map(value, "'prefer' (plugin: bonus)");
      for (const auto& kv : value) {
        rule.prefer[read_plugin_name(kv.first, key)] =
            static_cast<int32_t>(read_int(kv.second, "prefer bonus", -100000, 100000));
      }
      has_action = true;
    } else if (key == "deny") {
      for (const auto& name : read_string_list(value, key)) {
        if (!valid_plugin_name(name)) fail(value, "'" + name + "' is not a plugin name");
        rule.deny_plugins.push_back(name);
      }
      has_action = true;
    } else if (key == "deny_device") {
      rule.deny_device = read_bool(value, key);
      has_action = has_action || rule.deny_device;
    } else if (key == "precision") {
      rule.precision = read_precision(value);
      has_action = true;
    } else if (key == "settings") {
      rule.settings = read_plugin_settings(value, key, file);
      has_action = true;
    }
  });
  if (rule.id.empty()) fail(node, "a rule needs an 'id'");
  if (!has_action) {
    fail(node, "rule '" + rule.id + "' does nothing: give it force, prefer, deny, deny_device, precision or settings");
  }
  if (rule.force_plugin) {
    for (const auto& denied : rule.deny_plugins) {
      if (denied == *rule.force_plugin) fail(node, "rule '" + rule.id + "' both forces and denies '" + denied + "'");
    }
  }
  return rule;
}

void read_layer(const YAML::Node& root, const std::string& file, PolicyLayer* out) {
  if (root.IsNull()) return;  // an empty file is a valid (empty) layer
  require_map(root, "the policy file");
  static const std::set<std::string> keys = {"version", "plugin_dir", "allow_insecure_plugin_dirs",
                                             "log_level", "opencl_library", "cache_dir", "precision",
                                             "plugins", "rules", "disable_rules", "self_test", "device_start", "tuning",
                                             "cache_type_k", "cache_type_v", "memory_limit"};
  std::set<std::string> ids;
  for_each_key(root, keys, "the policy file", [&](const std::string& key, const YAML::Node& value) {
    if (key == "version") {
      read_int(value, key, 1, 1);
    } else if (key == "plugin_dir") {
      out->plugin_dir = read_string(value, key);
    } else if (key == "allow_insecure_plugin_dirs") {
      out->allow_insecure_plugin_dirs = read_bool(value, key);
    } else if (key == "log_level") {
      const std::string level = read_string(value, key);
      static const std::set<std::string> levels = {"trace", "debug", "info", "warn", "error", "critical", "off"};
      if (!level.empty() && levels.count(level) == 0) fail(value, "'log_level' must be trace, debug, info, warn, error, critical or off");
      out->log_level = level;
    } else if (key == "opencl_library") {
      out->opencl_library = read_string(value, key);
    } else if (key == "cache_dir") {
      // A relative directory would follow the working directory of whoever starts the program.
      const std::string dir = read_string(value, key);
      if (!dir.empty() && dir != "off" && dir[0] != '/') {
        fail(value, "'cache_dir' must be an absolute path or off, not '" + dir + "'");
      }
      out->cache_dir = dir;
    } else if (key == "precision") {
      out->precision = read_precision(value);
    } else if (key == "self_test") {
      const std::string v = read_string(value, key);
      if (v == "auto") out->self_test = SelfTestMode::Auto;
      else if (v == "off") out->self_test = SelfTestMode::Off;
      else if (v == "force") out->self_test = SelfTestMode::Force;
      else fail(value, "'self_test' must be auto, off or force, not '" + v + "'");
    } else if (key == "device_start") {
      const std::string v = read_string(value, key);
      if (v == "cpu_first") out->device_start = DeviceStartMode::CpuFirst;
      else if (v == "wait") out->device_start = DeviceStartMode::Wait;
      else fail(value, "'device_start' must be cpu_first or wait, not '" + v + "'");
    } else if (key == "tuning") {
      const std::string v = read_string(value, key);
      if (v == "none") out->tuning = TuningLevel::None;
      else if (v == "fast") out->tuning = TuningLevel::Fast;
      else if (v == "normal") out->tuning = TuningLevel::Normal;
      else if (v == "exhaustive") out->tuning = TuningLevel::Exhaustive;
      else fail(value, "'tuning' must be none, fast, normal or exhaustive, not '" + v + "'");
    } else if (key == "cache_type_k") {
      out->cache_type_k = read_cache_type(value, key);
    } else if (key == "cache_type_v") {
      out->cache_type_v = read_cache_type(value, key);
    } else if (key == "memory_limit") {
      out->memory_limit_bytes = read_bytes(value, key);
    } else if (key == "plugins") {
      out->plugin_settings = read_plugin_settings(value, key, file);
    } else if (key == "disable_rules") {
      out->disable_rules = read_string_list(value, key);
    } else if (key == "rules") {
      if (!value.IsSequence()) fail(value, "'rules' must be a list");
      for (const auto& item : value) {
        PolicyRule rule = read_rule(item, file);
        if (!ids.insert(rule.id).second) fail(item, "duplicate rule id '" + rule.id + "' in this file");
        out->rules.push_back(std::move(rule));
      }
    }
  });
}

// Runs `read` over the YAML text's root, turning what it or yaml-cpp throws into a Config status
// "file:line:column: ...".
template <typename Read>
Status read_yaml(const std::string& text, const std::string& file_name, Read&& read) {
  CLPORT_RETURN_IF_ERROR(check_yaml_shape(text, file_name));
  try {
    read(YAML::Load(text));
  } catch (const ConfigError& e) {
    return Status(Stage::Config, file_name + ":" + std::to_string(e.mark.line + 1) + ":" +
                                     std::to_string(e.mark.column + 1) + ": " + e.message);
  } catch (const YAML::Exception& e) {
    return Status(Stage::Config, file_name + ":" + std::to_string(e.mark.line + 1) + ":" +
                                     std::to_string(e.mark.column + 1) + ": " + e.msg);
  } catch (const std::exception& e) {
    return Status(Stage::Config, file_name + ": " + e.what());
  }
  return Status();
}

}  // namespace

bool valid_plugin_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  }
  return true;
}

Status parse_policy_layer(const std::string& text, const std::string& file_name, PolicyLayer* out) {
  PolicyLayer layer;
  CLPORT_RETURN_IF_ERROR(read_yaml(text, file_name, [&](const YAML::Node& root) { read_layer(root, file_name, &layer); }));
  *out = std::move(layer);
  return Status();
}

}  // namespace clport::policy_detail

namespace clport {

Result<WrittenSettings> parse_settings_text(const std::string& text, const std::string& file_name) {
  WrittenSettings settings;
  CLPORT_RETURN_IF_ERROR(policy_detail::read_yaml(text, file_name, [&](const YAML::Node& root) {
    if (!root.IsNull()) settings = policy_detail::read_settings_map(root, "a settings file", file_name);
  }));
  return settings;
}

Result<WrittenSettings> read_settings_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(Stage::Config, "cannot open settings file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) return Status(Stage::Io, "cannot read settings file '" + path + "'");
  return parse_settings_text(text.str(), path);
}

}  // namespace clport
