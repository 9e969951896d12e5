// A plugin's settings as a policy file writes them: each value's YAML node, untyped, and where it
// stands. They travel so through the policy's layers and rules (later rules win per key) to the
// binding, where the plugin's own declarations type them once (plugin_settings.h); the policy is
// read before any plugin is loaded, so it cannot know their types itself, and an error found at
// the binding still names the file, line and column.
#pragma once

#include <map>
#include <string>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "clport/export.h"
#include "clport/status.h"
#include "policy/source_mark.h"

namespace clport {

struct WrittenSetting {
  YAML::Node value;  // as written; read-only once parsed (copies of a policy share it)
  SourceMark mark;   // of its key

  WrittenSetting() = default;
  WrittenSetting(YAML::Node value_, SourceMark mark_) : value(std::move(value_)), mark(std::move(mark_)) {}
  WrittenSetting(const WrittenSetting&) = default;
  // Assigning a YAML::Node writes into the node it refers to, which every copy of the policy
  // shares; a setting that replaces another must refer to the new node instead.
  WrittenSetting& operator=(const WrittenSetting& other) {
    value.reset(other.value);
    mark = other.mark;
    return *this;
  }
  WrittenSetting& operator=(WrittenSetting&& other) { return *this = static_cast<const WrittenSetting&>(other); }
};

// One plugin's section: key -> setting.
using WrittenSettings = std::map<std::string, WrittenSetting>;

// "key: value, ..." in key order (logs; the self-test's record of what a plugin was given). A value
// that is not a single scalar is shown in YAML flow style.
CLPORT_API std::string describe(const WrittenSettings& settings);

// A YAML map of one plugin's settings, read as the policy reads a plugin's section (a
// `clport conformance --settings` file, tests): Stage::Config "file:line:column: ..." when it is
// not such a map; empty text or an empty document is no settings.
CLPORT_API Result<WrittenSettings> parse_settings_text(const std::string& text, const std::string& file_name);
// The same for a file on disk.
CLPORT_API Result<WrittenSettings> read_settings_file(const std::string& path);

}  // namespace clport
