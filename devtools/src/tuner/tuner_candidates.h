// Internal: what the tuner times. A group is one op shape and the plugin's tunables of that group
// (clport_setting_decl.tuning_group); candidates are typed settings over those tunables, which the
// plugin checks at create (a combination it rejects is a failed trial, not an error).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/plugin_settings.h"
#include "policy/policy.h"
#include "conformance/conformance_cases.h"

namespace clport::tuner::detail {

struct Group {
  std::string name;  // "gemv", "gemm", "norm"
  conformance::detail::CaseSpec spec;
  std::vector<std::vector<TypedSetting>> candidates;  // {gemv_wg: 32, gemv_rows: 4}
};

std::vector<Group> groups(const clport_plugin& plugin, TuningLevel level, bool tiny);

}  // namespace clport::tuner::detail
