// Internal: reading and writing the per-device tuning file. save_entry is exported from libclport
// for the tuner in devtools/ (which writes the file the runtime reads here), though this header is
// not installed.
#pragma once

#include <map>
#include <string>

#include "clport/export.h"
#include "clport/status.h"

namespace clport {
class DeviceContext;
}

namespace clport::tuner::detail {

struct PluginEntry {
  std::string level;                            // level it was tuned at
  std::map<std::string, std::string> settings;  // key -> value
  std::string measurements_json;                // the groups' timings (for people), JSON text
};

// The key of the tuning file for this context's device (64 hex digits).
std::string tuning_key(const DeviceContext& context);
// Replaces `plugin`'s entry in the file (other plugins' entries are kept when the file is valid).
CLPORT_API Status save_entry(const DeviceContext& context, const std::string& path, const std::string& plugin,
                             const PluginEntry& entry);
// Stage::Config "missing" when there is no file.
Result<std::map<std::string, std::string>> read_entry(const std::string& path, const std::string& key,
                                                      const std::string& plugin);
// The same for the file's text (`path` names it in messages): Stage::Config saying what is wrong
// with a malformed or foreign file; an empty map when the file has no entry for `plugin`.
Result<std::map<std::string, std::string>> parse_entry(const std::string& text, const std::string& path,
                                                       const std::string& key, const std::string& plugin);

}  // namespace clport::tuner::detail
