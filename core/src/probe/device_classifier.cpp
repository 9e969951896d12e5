#include "probe/device_classifier.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "clport_plugin/embedded_kernel.h"
#include "common/logger.h"

// Generated from configs/*.yaml at build time (cmake/EmbedKernels.cmake via core/CMakeLists.txt).
extern const clport::EmbeddedKernel clport_embedded_configs[];

namespace clport::probe {
namespace {

bool field_matches(const DeviceIdentity& identity, const FieldPattern& p) {
  const auto text = identity_field(identity, p.field);
  return text && std::regex_search(*text, p.regex);
}

// The model number and the matched captures, from the first listed field that matches.
bool extract_number(const DeviceIdentity& identity, const FamilyRule& rule, long& number,
                    std::smatch& captures, std::string& storage) {
  for (const auto& field : rule.number_fields) {
    const auto text = identity_field(identity, field);
    if (!text) continue;
    storage = *text;
    if (std::regex_search(storage, captures, *rule.number_regex) &&
        captures.size() > static_cast<size_t>(rule.number_group) &&
        captures[rule.number_group].matched) {
      number = std::strtol(captures[rule.number_group].str().c_str(), nullptr, 10);
      return true;
    }
  }
  return false;
}

std::string substitute_captures(std::string pattern, const std::smatch& captures) {
  for (size_t i = 1; i < captures.size() && i <= 9; ++i) {
    const std::string token = "$" + std::to_string(i);
    for (auto pos = pattern.find(token); pos != std::string::npos; pos = pattern.find(token)) {
      pattern.replace(pos, token.size(), captures[i].str());
    }
  }
  return pattern;
}

std::string generation_for(const FamilyRule& rule, long number) {
  for (const auto& g : rule.generations) {
    if (g.numbers.empty()) {
      if (number >= g.min && number <= g.max) return g.name;
    } else {
      for (long n : g.numbers) {
        if (n == number) return g.name;
      }
    }
  }
  return "";
}

Result<FamilyTable> load_default_table() {
  if (const char* path = std::getenv("CLPORT_DEVICE_FAMILIES"); path && *path) {
    std::ifstream in(path);
    if (!in) return Status(Stage::Config, std::string("cannot read CLPORT_DEVICE_FAMILIES=") + path);
    std::stringstream text;
    text << in.rdbuf();
    return parse_family_table(text.str(), path);
  }
  const EmbeddedKernel* file = find_embedded_kernel(clport_embedded_configs, "device_families.yaml");
  if (file == nullptr) {
    return Status(Stage::Internal, "device_families.yaml was not embedded into libclport");
  }
  return parse_family_table(std::string(file->source, file->size), "device_families.yaml");
}

}  // namespace

DeviceClass classify(const DeviceIdentity& identity, const FamilyTable& table) {
  for (const auto& rule : table.rules) {
    if (rule.type != 0 && (identity.type & rule.type) == 0) continue;
    bool ok = true;
    for (const auto& p : rule.all) ok = ok && field_matches(identity, p);
    if (!ok) continue;
    if (!rule.any.empty()) {
      bool any = false;
      for (const auto& p : rule.any) any = any || field_matches(identity, p);
      if (!any) continue;
    }
    DeviceClass out;
    out.family = rule.family;
    out.rule = rule.id;
    std::smatch captures;
    std::string storage;
    long number = 0;
    const bool numbered = rule.number_regex && extract_number(identity, rule, number, captures, storage);
    if (numbered) out.generation_number = static_cast<int32_t>(number);
    if (!rule.generation.empty()) {
      out.generation = numbered ? substitute_captures(rule.generation, captures) : rule.generation;
      // An unresolved "$1" means the number was not found: say nothing rather than "$1".
      if (out.generation.find('$') != std::string::npos) out.generation.clear();
      for (auto& c : out.generation) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (out.generation.empty() && numbered) out.generation = generation_for(rule, number);
    return out;
  }
  DeviceClass out;
  out.family = table.default_family;
  out.rule = "default";
  return out;
}

DeviceIdentity identity_of(const DeviceInfo& info) {
  DeviceIdentity id;
  id.name = info.name;
  id.vendor = info.vendor;
  id.device_version = info.device_version;
  id.driver_version = info.driver_version;
  id.opencl_c_version = info.opencl_c_version;
  id.platform_name = info.platform_name;
  id.platform_vendor = info.platform_vendor;
  id.platform_version = info.platform_version;
  id.type = info.type;
  return id;
}

const Result<FamilyTable>& default_family_table() {
  static const Result<FamilyTable> table = load_default_table();
  return table;
}

DeviceClass classify_with_default_table(const DeviceInfo& info) {
  const auto& table = default_family_table();
  if (!table.ok()) {
    logger("probe")->error("device family table unusable: {}", table.status().message());
    DeviceClass out;
    out.rule = "table-error: " + table.status().message();
    return out;
  }
  DeviceClass out = classify(identity_of(info), table.value());
  if (out.rule == "default") {
    logger("probe")->warn(
        "device '{}' (vendor '{}', '{}') matches no rule in device_families.yaml; treated as "
        "family '{}' (generic kernels only). Please report these strings.",
        info.name, info.vendor, info.device_version, out.family);
  }
  return out;
}

}  // namespace clport::probe
