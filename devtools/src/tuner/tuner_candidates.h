// Internal: what the tuner times. A group is one op shape and the plugin's tunables of that group
// (clport_setting_decl.tuning_group); candidates are flat YAML texts over those settings, which
// the plugin checks at create (a combination it rejects is a failed trial, not an error).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/policy.h"
#include "conformance/conformance_cases.h"

namespace clport::tuner::detail {

struct Group {
  std::string name;  // "gemv", "gemm", "norm"
  conformance::detail::CaseSpec spec;
  std::vector<std::string> candidates;  // "gemv_wg: 32\ngemv_rows: 4\n"
};

std::vector<Group> groups(const clport_plugin& plugin, TuningLevel level, bool tiny);

}  // namespace clport::tuner::detail
