// Applies the rules to one device: which fire, and what they add up to.
#include "policy/policy.h"
#include "policy/policy_pattern.h"

namespace clport {
namespace {

bool regex_matches(const std::optional<std::string>& pattern, const std::string& value) {
  return !pattern || policy_pattern_matches(*pattern, value);
}

bool type_matches(const std::optional<std::string>& wanted, cl_device_type type) {
  if (!wanted) return true;
  if (*wanted == "gpu") return (type & CL_DEVICE_TYPE_GPU) != 0;
  if (*wanted == "cpu") return (type & CL_DEVICE_TYPE_CPU) != 0;
  return (type & CL_DEVICE_TYPE_ACCELERATOR) != 0;
}

bool version_in_range(const DeviceMatch& m, const std::string& driver) {
  if (!m.driver_min && !m.driver_max) return true;
  const auto version = parse_driver_version(driver);
  if (!version) return false;
  if (m.driver_min) {
    auto c = compare_driver_versions(*version, *m.driver_min);
    if (!c || *c < 0) return false;
  }
  if (m.driver_max) {
    auto c = compare_driver_versions(*version, *m.driver_max);
    if (!c || *c >= 0) return false;
  }
  return true;
}

bool rule_matches(const DeviceMatch& m, const DeviceInfo& d) {
  if (!regex_matches(m.name, d.name) || !regex_matches(m.vendor, d.vendor) ||
      !regex_matches(m.driver, d.driver_version) || !regex_matches(m.platform, d.platform_name) ||
      !regex_matches(m.family, d.klass.family) || !regex_matches(m.generation, d.klass.generation)) {
    return false;
  }
  if (m.generation_min && d.klass.generation_number < *m.generation_min) return false;
  if (m.generation_max && d.klass.generation_number > *m.generation_max) return false;
  for (const auto& ext : m.extensions) {
    if (!d.has_extension(ext)) return false;
  }
  return type_matches(m.device_type, d.type) && version_in_range(m, d.driver_version);
}

}  // namespace

DevicePolicy Policy::evaluate(const DeviceInfo& device) const {
  DevicePolicy result;
  result.precision = globals_.precision;
  for (const auto& rule : rules_) {
    if (!rule_matches(rule.match, device)) continue;
    std::string did;
    auto add = [&](const std::string& what) { did += (did.empty() ? "" : "; ") + what; };
    if (rule.deny_device) {
      result.device_denied = true;
      result.deny_reason = "rule '" + rule.id + "': " + rule.reason;
      add("denies the device");
    }
    if (rule.force_plugin) {
      result.forced_plugin = rule.force_plugin;
      add("forces plugin '" + *rule.force_plugin + "'");
    }
    for (const auto& [plugin, bonus] : rule.prefer) {
      result.bonus[plugin] += bonus;
      add("prefers '" + plugin + "' (" + (bonus >= 0 ? "+" : "") + std::to_string(bonus) + ")");
    }
    for (const auto& plugin : rule.deny_plugins) {
      result.denied[plugin] = rule.id;
      add("denies plugin '" + plugin + "'");
    }
    if (rule.precision) {
      result.precision = *rule.precision;
      add(std::string("sets precision ") + precision_name(*rule.precision));
    }
    // A plugin's settings are a flat map of knobs: a later rule's key replaces an earlier one's,
    // as written (with its place in its file).
    for (const auto& [plugin, written] : rule.settings) {
      WrittenSettings& merged = result.settings[plugin];
      for (const auto& [key, setting] : written) merged[key] = setting;
      add("settings for '" + plugin + "'");
    }
    const std::string where = rule.mark.to_string();
    std::string line = "rule '" + rule.id + "' (" + where + "): " + did;
    if (!rule.reason.empty()) line += " — " + rule.reason;
    if (!rule.source.empty()) line += " [source: " + rule.source + "]";
    result.fired.push_back(std::move(line));
  }
  if (result.precision == Precision::Fp16 && !device.has_fp16) {
    result.precision = Precision::Fp32;
    result.notes.push_back("fp16 requested but the device has no cl_khr_fp16: using fp32");
  }
  return result;
}

}  // namespace clport
