// The tuner's stored results, as the runtime reads them: the winners `clport tune` measured
// (devtools/, clport_devtools/tuner.h) live in a per-device tuning file, tuning-<key>.json in the
// program cache directory, key = SHA-256 over (device name, driver version, platform version, hash
// of the shared kernel sources). A kernel edit or a driver update therefore starts from the
// built-in defaults again.
//
// At plugin creation (DeviceBinding::create over a DeviceContext) settings_with_stored() puts the
// stored winners, typed against the plugin's declarations, under the policy's explicit settings
// for that plugin: the policy wins, and `tuning: none` ignores the file.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "clport/export.h"
#include "clport_plugin/plugin_abi.h"
#include "policy/plugin_settings.h"
#include "policy/policy.h"
#include "clport/status.h"

namespace clport {

class DeviceContext;

namespace tuner {

// SHA-256 (hex) over every embedded shared kernel source, names included.
CLPORT_API std::string kernel_source_hash();
// The tuning file for the context's device; "" when the program cache directory is off.
CLPORT_API std::string tuning_file(const DeviceContext& context);
// The stored settings of `plugin` on this device, each value as a policy would write it (empty
// map: none). A corrupt or foreign file is ignored with a warning (Status for callers that want
// to know).
CLPORT_API Result<std::map<std::string, std::string>> load_stored(const DeviceContext& context,
                                                                  const std::string& plugin);
// The stored values checked against the plugin's declarations and typed, as the policy's are;
// one that no longer validates (tuned for another version of the plugin) is dropped with a
// warning naming `origin` (the tuning file).
CLPORT_API std::vector<TypedSetting> typed_stored(const clport_plugin& plugin, const std::string& plugin_name,
                                                  const std::map<std::string, std::string>& stored,
                                                  const std::string& origin);
// The settings a plugin instance gets: `policy` (the policy's, typed) over the stored winners.
// `policy` unchanged when level is None, nothing is stored, or the file is unusable (warning).
CLPORT_API std::vector<TypedSetting> settings_with_stored(const DeviceContext& context, const clport_plugin& plugin,
                                                          const std::string& plugin_name,
                                                          const std::vector<TypedSetting>& policy, TuningLevel level);

CLPORT_API const char* level_name(TuningLevel level);

}  // namespace tuner
}  // namespace clport
