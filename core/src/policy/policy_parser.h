// One policy file, parsed and validated into plain values; only the plugins' settings keep their
// YAML nodes (written_settings.h), which the plugins' own declarations type at binding.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "policy/policy.h"

namespace clport::policy_detail {

// Only the keys the file sets; applied over the previous layers by Policy::add_layer.
struct PolicyLayer {
  std::optional<std::string> plugin_dir, log_level, opencl_library, cache_dir;
  std::optional<bool> allow_insecure_plugin_dirs;
  std::optional<Precision> precision;
  std::optional<SelfTestMode> self_test;
  std::optional<DeviceStartMode> device_start;
  std::optional<TuningLevel> tuning;
  std::optional<std::string> cache_type_k, cache_type_v;
  std::optional<uint64_t> memory_limit_bytes;
  std::map<std::string, WrittenSettings> plugin_settings;  // top-level `plugins:` section
  std::vector<PolicyRule> rules;
  std::vector<std::string> disable_rules;
};

Status parse_policy_layer(const std::string& text, const std::string& file_name, PolicyLayer* out);

// True when `name` can be a plugin name (lower case letters, digits, '_', '-').
bool valid_plugin_name(const std::string& name);

}  // namespace clport::policy_detail
