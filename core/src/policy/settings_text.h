// A policy's plugin settings are kept as YAML text until the core checks them against the
// plugin's declarations and hands them over typed (plugin_settings.cpp, clport_host.settings): in
// block style, one `key: value` per line, whatever style the user wrote ({a: 1} flow maps
// included).
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

namespace clport::policy_detail {

inline void set_block_style(YAML::Node node) {
  if (node.IsMap() || node.IsSequence()) {
    node.SetStyle(YAML::EmitterStyle::Block);
    for (auto it = node.begin(); it != node.end(); ++it) {
      set_block_style(node.IsMap() ? YAML::Node(it->second) : YAML::Node(*it));
    }
  }
}

inline std::string settings_text(YAML::Node node) {
  YAML::Node copy = YAML::Clone(node);
  set_block_style(copy);
  YAML::Emitter out;
  out << copy;
  return out.c_str();
}

}  // namespace clport::policy_detail
