// The tuner's stored results, as the runtime reads them: the winners `clport tune` measured
// (devtools/, clport_devtools/tuner.h) live in a per-device tuning file, tuning-<key>.json in the
// program cache directory, key = SHA-256 over (device name, driver version, platform version, hash
// of the shared kernel sources). A kernel edit or a driver update therefore starts from the
// built-in defaults again.
//
// At plugin creation (DeviceBinding::create over a DeviceContext) settings_with_stored() puts the
// stored winners under the policy's explicit settings for that plugin: the policy wins, and
// `tuning: none` ignores the file.
#pragma once

#include <map>
#include <string>

#include "clport/export.h"
#include "policy/policy.h"
#include "clport/status.h"

namespace clport {

class DeviceContext;

namespace tuner {

// SHA-256 (hex) over every embedded shared kernel source, names included.
CLPORT_API std::string kernel_source_hash();
// The tuning file for the context's device; "" when the program cache directory is off.
CLPORT_API std::string tuning_file(const DeviceContext& context);
// The stored settings of `plugin` on this device (empty map: none). A corrupt or foreign file is
// ignored with a warning (Status for callers that want to know).
CLPORT_API Result<std::map<std::string, std::string>> load_stored(const DeviceContext& context,
                                                                  const std::string& plugin);
// The settings YAML a plugin instance gets: stored winners under `policy_yaml` (policy wins).
// Returns policy_yaml unchanged when level is None, nothing is stored, or anything goes wrong.
CLPORT_API std::string settings_with_stored(const DeviceContext& context, const std::string& plugin,
                                            const std::string& policy_yaml, TuningLevel level);
// Flat YAML merge: every key of `base` that `over` does not set, then `over` (which wins);
// `over` unchanged when it is not a YAML map.
CLPORT_API std::string merge_settings(const std::map<std::string, std::string>& base, const std::string& over);

CLPORT_API const char* level_name(TuningLevel level);

}  // namespace tuner
}  // namespace clport
