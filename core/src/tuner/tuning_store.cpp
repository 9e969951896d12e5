// The tuning file: {"format", "key", "device", "driver", "platform", "kernel_hash",
// "plugins": {name: {"level", "settings": {key: value}, "measurements": [...]}}}. Written to a
// temp file and renamed; anything malformed is ignored with a warning (defaults stay in force).
#include "tuner/tuning_store.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "runtime/device_context.h"
#include "clport_plugin/embedded_kernel.h"
#include "common/logger.h"
#include "programs/program_cache.h"
#include "tuner/tuner.h"
#include "common/atomic_file.h"
#include "programs/cache_key.h"

// Generated from kernels/*.cl by cmake/EmbedKernels.cmake.
extern const clport::EmbeddedKernel clport_shared_kernels[];

namespace clport::tuner {
namespace {

constexpr int kTuningFormat = 1;
using nlohmann::json;

Result<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(Stage::Config, "missing");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Result<json> parse_json(const std::string& text, const std::string& path) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return Status(Stage::Config, path + ": not a JSON object");
  return doc;
}

Result<json> read_json(const std::string& path) {
  auto text = read_text(path);
  if (!text.ok()) return text.status();
  return parse_json(text.value(), path);
}

// Whether `doc` is a tuning file of this format for `key`. Checked field by field rather than
// with json::value(), which throws for a key of another type and converts a huge "format"
// number to int (undefined behaviour).
bool is_ours(const json& doc, const std::string& key) {
  const auto format = doc.find("format");
  const auto stored_key = doc.find("key");
  return format != doc.end() && format->is_number_integer() &&
         format->get<int64_t>() == kTuningFormat && stored_key != doc.end() &&
         stored_key->is_string() && stored_key->get_ref<const std::string&>() == key;
}

}  // namespace

namespace detail {

std::string tuning_key(const DeviceContext& context) {
  const DeviceInfo& d = context.info();
  return programs::to_hex(programs::sha256_fields(
      {"clport-tuning-v1", d.name, d.driver_version, d.platform_version, kernel_source_hash()}));
}

Status save_entry(const DeviceContext& context, const std::string& path, const std::string& plugin,
                  const PluginEntry& entry) {
  const std::string key = tuning_key(context);
  json doc;
  if (auto old = read_json(path); old.ok() && is_ours(old.value(), key)) {
    doc = old.value();
  }
  doc["format"] = kTuningFormat;
  doc["key"] = key;
  doc["device"] = context.info().name;
  doc["driver"] = context.info().driver_version;
  doc["platform"] = context.info().platform_version;
  doc["kernel_hash"] = kernel_source_hash();
  if (!doc.contains("plugins") || !doc["plugins"].is_object()) doc["plugins"] = json::object();
  json section = {{"level", entry.level}, {"settings", entry.settings}};
  section["measurements"] = json::parse(entry.measurements_json, nullptr, false);
  doc["plugins"][plugin] = section;
  return write_file_atomically(path, doc.dump(1) + "\n");
}

Result<std::map<std::string, std::string>> read_entry(const std::string& path, const std::string& key,
                                                      const std::string& plugin) {
  auto text = read_text(path);
  if (!text.ok()) return text.status();
  return parse_entry(text.value(), path, key, plugin);
}

Result<std::map<std::string, std::string>> parse_entry(const std::string& text, const std::string& path,
                                                       const std::string& key, const std::string& plugin) {
  auto doc = parse_json(text, path);
  if (!doc.ok()) return doc.status();
  const json& d = doc.value();
  auto bad = [&](const std::string& why) { return Status(Stage::Config, path + ": " + why); };
  try {
    const auto format = d.find("format");
    if (format == d.end() || !format->is_number_integer() || format->get<int64_t>() != kTuningFormat) {
      return bad("unknown format");
    }
    if (!is_ours(d, key)) return bad("written for another device, driver or kernel version");
    std::map<std::string, std::string> out;
    const auto plugins = d.find("plugins");
    if (plugins == d.end() || !plugins->is_object()) return bad("no 'plugins' object");
    const auto entry = plugins->find(plugin);
    if (entry == plugins->end()) return out;
    const auto settings = entry->find("settings");
    if (settings == entry->end() || !settings->is_object()) return bad("plugin '" + plugin + "' has no 'settings' object");
    for (const auto& [k, v] : settings->items()) {
      if (!v.is_string() || k.empty() || k.find_first_of(":#\n{}[],") != std::string::npos)
        return bad("setting '" + k + "' is not a plain string value");
      // A number, true / false or an enum's name: one plain word, never YAML syntax.
      const std::string value = v.get<std::string>();
      if (value.empty() || value.size() > 64 ||
          value.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-") !=
              std::string::npos)
        return bad("setting '" + k + "' = '" + value + "' is not a plain value");
      out[k] = value;
    }
    return out;
  } catch (const std::exception& e) {
    return bad(e.what());
  }
}

}  // namespace detail

std::string kernel_source_hash() {
  std::vector<std::string> fields = {"clport-shared-kernels"};
  for (const EmbeddedKernel* k = clport_shared_kernels; k != nullptr && k->name != nullptr; ++k) {
    fields.emplace_back(k->name);
    fields.emplace_back(k->source, k->size);
  }
  return programs::to_hex(programs::sha256_fields(fields));
}

std::string tuning_file(const DeviceContext& context) {
  const ProgramCache& cache = context.programs();
  if (!cache.enabled() || cache.directory().empty()) return "";
  return cache.directory() + "/tuning-" + detail::tuning_key(context) + ".json";
}

Result<std::map<std::string, std::string>> load_stored(const DeviceContext& context, const std::string& plugin) {
  const std::string path = tuning_file(context);
  if (path.empty()) return std::map<std::string, std::string>{};
  auto entry = detail::read_entry(path, detail::tuning_key(context), plugin);
  if (!entry.ok() && entry.status().message() == "missing") return std::map<std::string, std::string>{};
  return entry;
}

std::vector<TypedSetting> typed_stored(const clport_plugin& plugin, const std::string& plugin_name,
                                       const std::map<std::string, std::string>& stored, const std::string& origin) {
  std::vector<TypedSetting> out;
  for (const auto& [key, value] : stored) {
    auto typed = check_setting(plugin, key, YAML::Node(value), SourceMark{origin, 0, 0});
    if (typed.ok()) {
      out.push_back(std::move(typed.value()));
    } else {
      logger("tuner")->warn("ignoring a stored tuning value of plugin '{}': {} (re-run `clport tune`)", plugin_name,
                            typed.status().message());
    }
  }
  return out;
}

std::vector<TypedSetting> settings_with_stored(const DeviceContext& context, const clport_plugin& plugin,
                                               const std::string& plugin_name, const std::vector<TypedSetting>& policy,
                                               TuningLevel level) {
  if (level == TuningLevel::None) return policy;
  auto log = logger("tuner");
  try {
    auto stored = load_stored(context, plugin_name);
    if (!stored.ok()) {
      log->warn("ignoring the tuning file: {} (built-in defaults stay in force; re-run `clport tune`)",
                stored.status().message());
      return policy;
    }
    if (stored.value().empty()) return policy;
    const std::string file = tuning_file(context);
    std::vector<TypedSetting> used;
    for (TypedSetting& s : typed_stored(plugin, plugin_name, stored.value(), file)) {
      const bool overridden =
          std::any_of(policy.begin(), policy.end(), [&](const TypedSetting& p) { return p.name == s.name; });
      if (!overridden) used.push_back(std::move(s));
    }
    if (used.empty()) return policy;
    log->info("plugin '{}' gets stored tuning from {}: {}", plugin_name, file, describe(used));
    return merge_settings(used, policy);
  } catch (const std::exception& e) {
    log->warn("ignoring stored tuning for plugin '{}': {}", plugin_name, e.what());
    return policy;
  }
}

const char* level_name(TuningLevel level) {
  switch (level) {
    case TuningLevel::None: return "none";
    case TuningLevel::Fast: return "fast";
    case TuningLevel::Normal: return "normal";
    case TuningLevel::Exhaustive: return "exhaustive";
  }
  return "?";
}

}  // namespace clport::tuner
