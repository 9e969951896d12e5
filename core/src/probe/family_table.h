// The device-family table (configs/device_families.yaml) in memory: ordered regex rules that
// turn a device's identity strings into a family, generation and model number, and the schemes
// that read vendors' driver version strings. The table is data so that a new GPU or driver
// dialect needs a YAML edit, not a code change.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "clport_plugin/cl_api.h"
#include "clport/status.h"

namespace clport::probe {

// The identity strings a rule can look at. Field names match the YAML keys.
struct DeviceIdentity {
  std::string name, vendor, device_version, driver_version, opencl_c_version;
  std::string platform_name, platform_vendor, platform_version;
  cl_device_type type = 0;
};

struct FieldPattern {
  std::string field;    // "name", "vendor", ...
  std::string pattern;  // as written in the YAML, for messages
  std::regex regex;     // case-insensitive ECMAScript
};

// Maps the extracted model number to a generation name.
struct GenerationRange {
  std::string name;
  long min = 0, max = -1;     // inclusive range, used when `numbers` is empty
  std::vector<long> numbers;  // explicit list (Mali numbering is not ordered by generation)
};

struct FamilyRule {
  std::string id;
  std::string source;  // where the strings this rule expects were seen (required)
  std::string family;
  std::string generation;  // fixed generation; "$1".."$9" are replaced by number captures
  cl_device_type type = 0;  // 0: any device type
  std::vector<FieldPattern> all;  // every one must match
  std::vector<FieldPattern> any;  // at least one must match (when not empty)
  // Model number: first field (in order) whose text matches; capture group `number_group`.
  std::optional<std::regex> number_regex;
  std::vector<std::string> number_fields;
  int number_group = 1;
  std::vector<GenerationRange> generations;
};

// One vendor dialect of CL_DRIVER_VERSION (the table's `driver_versions`): where `regex` is
// found, its capture groups are the version's numbers, compared only with versions of the same
// scheme (the policy's driver_version ranges).
struct DriverVersionScheme {
  std::string scheme;   // "adreno-compiler", "mali", "numeric"
  std::string source;   // where strings of this form were seen (required)
  std::string pattern;  // as written in the YAML, for messages
  std::regex regex;     // case-insensitive ECMAScript, at least one capture group
};

struct FamilyTable {
  std::vector<FamilyRule> rules;
  std::string default_family = "unknown";
  std::vector<DriverVersionScheme> driver_versions;  // tried in order; may be empty
};

// Parses the YAML text. A malformed table (bad YAML, unknown field, bad regex, a rule that would
// decide by one substring alone, a driver version scheme without capture groups) is a Config
// status naming the rule or scheme; never an exception.
Result<FamilyTable> parse_family_table(const std::string& yaml_text, const std::string& origin);

// The text of a field of `identity` by its YAML key; nullopt for an unknown key.
std::optional<std::string> identity_field(const DeviceIdentity& identity, const std::string& field);

}  // namespace clport::probe
