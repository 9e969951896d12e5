// Parsing configs/device_families.yaml into FamilyRule objects (see family_table.h for the model
// and the YAML file's header for the format). yaml-cpp and std::regex report problems by
// throwing; everything is caught here and turned into a Config status.
#include "probe/family_table.h"

#include <yaml-cpp/yaml.h>

#include <exception>
#include <set>

namespace clport::probe {
namespace {

const std::set<std::string> kFields = {"name",          "vendor",          "device_version",
                                       "driver_version", "opencl_c_version", "platform_name",
                                       "platform_vendor", "platform_version"};
const std::set<std::string> kRuleKeys = {"id",         "source", "family", "generation", "type",
                                         "all",        "any",    "number", "generations"};
const std::set<std::string> kTopKeys = {"default_family", "rules", "driver_versions"};
const std::set<std::string> kSchemeKeys = {"scheme", "source", "regex"};

// Thrown inside this file only; parse_family_table catches it.
struct TableError {
  std::string message;
};

[[noreturn]] void fail(const std::string& rule, const std::string& what) {
  throw TableError{(rule.empty() ? std::string() : "rule '" + rule + "': ") + what};
}

std::regex compile(const std::string& rule, const std::string& pattern) {
  try {
    return std::regex(pattern, std::regex::ECMAScript | std::regex::icase);
  } catch (const std::regex_error& e) {
    fail(rule, "invalid regex '" + pattern + "': " + e.what());
  }
}

std::vector<FieldPattern> parse_patterns(const std::string& rule, const YAML::Node& node,
                                         const char* key) {
  std::vector<FieldPattern> out;
  if (!node) return out;
  if (!node.IsMap()) fail(rule, std::string("'") + key + "' must be a map of field: regex");
  for (const auto& entry : node) {
    const auto field = entry.first.as<std::string>();
    if (kFields.count(field) == 0) fail(rule, "unknown field '" + field + "' in '" + key + "'");
    const auto pattern = entry.second.as<std::string>();
    out.push_back({field, pattern, compile(rule, pattern)});
  }
  return out;
}

cl_device_type parse_type(const std::string& rule, const std::string& text) {
  if (text == "gpu") return CL_DEVICE_TYPE_GPU;
  if (text == "cpu") return CL_DEVICE_TYPE_CPU;
  if (text == "accelerator") return CL_DEVICE_TYPE_ACCELERATOR;
  fail(rule, "type must be gpu, cpu or accelerator, not '" + text + "'");
}

void parse_number(FamilyRule& rule, const YAML::Node& node) {
  if (!node) return;
  if (!node.IsMap() || !node["regex"]) fail(rule.id, "'number' needs a 'regex'");
  rule.number_regex = compile(rule.id, node["regex"].as<std::string>());
  rule.number_group = node["group"] ? node["group"].as<int>() : 1;
  if (rule.number_group < 1 || rule.number_group > 9) fail(rule.id, "'group' must be 1..9");
  if (node["fields"]) {
    for (const auto& f : node["fields"]) rule.number_fields.push_back(f.as<std::string>());
  } else {
    rule.number_fields = {"name", "device_version", "driver_version"};
  }
  for (const auto& f : rule.number_fields) {
    if (kFields.count(f) == 0) fail(rule.id, "unknown field '" + f + "' in 'number.fields'");
  }
}

void parse_generations(FamilyRule& rule, const YAML::Node& node) {
  if (!node) return;
  if (!node.IsSequence()) fail(rule.id, "'generations' must be a list");
  if (!rule.number_regex) fail(rule.id, "'generations' needs a 'number' to select by");
  for (const auto& g : node) {
    GenerationRange range;
    if (!g["name"]) fail(rule.id, "every entry of 'generations' needs a 'name'");
    range.name = g["name"].as<std::string>();
    if (g["numbers"]) {
      for (const auto& n : g["numbers"]) range.numbers.push_back(n.as<long>());
    } else if (g["min"] && g["max"]) {
      range.min = g["min"].as<long>();
      range.max = g["max"].as<long>();
    } else {
      fail(rule.id, "generation '" + range.name + "' needs 'numbers' or 'min' and 'max'");
    }
    rule.generations.push_back(std::move(range));
  }
}

FamilyRule parse_rule(const YAML::Node& node, size_t index) {
  if (!node.IsMap()) fail("#" + std::to_string(index), "a rule must be a map");
  FamilyRule rule;
  rule.id = node["id"] ? node["id"].as<std::string>() : "#" + std::to_string(index);
  for (const auto& entry : node) {
    const auto key = entry.first.as<std::string>();
    if (kRuleKeys.count(key) == 0) fail(rule.id, "unknown key '" + key + "'");
  }
  if (!node["id"]) fail(rule.id, "missing 'id'");
  if (!node["family"]) fail(rule.id, "missing 'family'");
  if (!node["source"] || node["source"].as<std::string>().empty()) {
    fail(rule.id, "missing 'source' (say where the device strings were seen)");
  }
  rule.source = node["source"].as<std::string>();
  rule.family = node["family"].as<std::string>();
  if (node["generation"]) rule.generation = node["generation"].as<std::string>();
  if (node["type"]) rule.type = parse_type(rule.id, node["type"].as<std::string>());
  rule.all = parse_patterns(rule.id, node["all"], "all");
  rule.any = parse_patterns(rule.id, node["any"], "any");
  parse_number(rule, node["number"]);
  parse_generations(rule, node["generations"]);
  // One substring must never decide: a rule needs two independent conditions, the device type
  // counting as one (it comes from CL_DEVICE_TYPE, not from a string).
  const size_t conditions = rule.all.size() + (rule.any.empty() ? 0 : 1) + (rule.type ? 1 : 0);
  if (conditions < 2 && rule.type == 0) {
    fail(rule.id, "needs at least two conditions (e.g. vendor and name), or a 'type'");
  }
  if (conditions == 0) fail(rule.id, "has no condition");
  return rule;
}

DriverVersionScheme parse_scheme(const YAML::Node& node, size_t index) {
  const std::string where = "driver_versions #" + std::to_string(index);
  if (!node.IsMap()) fail("", where + ": a scheme must be a map");
  for (const auto& entry : node) {
    const auto key = entry.first.as<std::string>();
    if (kSchemeKeys.count(key) == 0) fail("", where + ": unknown key '" + key + "'");
  }
  DriverVersionScheme s;
  if (!node["scheme"] || node["scheme"].as<std::string>().empty()) fail("", where + ": missing 'scheme'");
  s.scheme = node["scheme"].as<std::string>();
  const std::string what = "driver version scheme '" + s.scheme + "'";
  if (!node["source"] || node["source"].as<std::string>().empty()) {
    fail("", what + ": missing 'source' (say where driver strings of this form were seen)");
  }
  s.source = node["source"].as<std::string>();
  if (!node["regex"]) fail("", what + ": missing 'regex'");
  s.pattern = node["regex"].as<std::string>();
  try {
    s.regex = std::regex(s.pattern, std::regex::ECMAScript | std::regex::icase);
  } catch (const std::regex_error& e) {
    fail("", what + ": invalid regex '" + s.pattern + "': " + e.what());
  }
  if (s.regex.mark_count() == 0) fail("", what + ": the regex needs capture groups (the version's numbers)");
  return s;
}

}  // namespace

std::optional<std::string> identity_field(const DeviceIdentity& d, const std::string& field) {
  if (field == "name") return d.name;
  if (field == "vendor") return d.vendor;
  if (field == "device_version") return d.device_version;
  if (field == "driver_version") return d.driver_version;
  if (field == "opencl_c_version") return d.opencl_c_version;
  if (field == "platform_name") return d.platform_name;
  if (field == "platform_vendor") return d.platform_vendor;
  if (field == "platform_version") return d.platform_version;
  return std::nullopt;
}

Result<FamilyTable> parse_family_table(const std::string& yaml_text, const std::string& origin) {
  try {
    const YAML::Node root = YAML::Load(yaml_text);
    if (!root.IsMap()) throw TableError{"the top level must be a map with 'rules'"};
    for (const auto& entry : root) {
      const auto key = entry.first.as<std::string>();
      if (kTopKeys.count(key) == 0) throw TableError{"unknown top-level key '" + key + "'"};
    }
    FamilyTable table;
    if (root["default_family"]) table.default_family = root["default_family"].as<std::string>();
    const YAML::Node rules = root["rules"];
    if (!rules || !rules.IsSequence() || rules.size() == 0) {
      throw TableError{"'rules' must be a non-empty list"};
    }
    std::set<std::string> ids;
    for (size_t i = 0; i < rules.size(); ++i) {
      FamilyRule rule = parse_rule(rules[i], i);
      if (!ids.insert(rule.id).second) fail(rule.id, "duplicate id");
      table.rules.push_back(std::move(rule));
    }
    if (const YAML::Node schemes = root["driver_versions"]) {
      if (!schemes.IsSequence()) throw TableError{"'driver_versions' must be a list"};
      for (size_t i = 0; i < schemes.size(); ++i) table.driver_versions.push_back(parse_scheme(schemes[i], i));
    }
    return table;
  } catch (const TableError& e) {
    return Status(Stage::Config, origin + ": " + e.message);
  } catch (const YAML::Exception& e) {
    return Status(Stage::Config, origin + ": " + e.what());
  } catch (const std::exception& e) {
    return Status(Stage::Config, origin + ": " + e.what());
  }
}

}  // namespace clport::probe
