// Internal: what the tuner times. A group is one op shape and the settings keys that affect it;
// candidates are flat YAML texts over those keys, filtered by the device's work-group limit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clport/policy.h"
#include "conformance/conformance_cases.h"

namespace clport::tuner::detail {

struct Group {
  std::string name;  // "gemv", "gemm", "norm"
  conformance::detail::CaseSpec spec;
  std::vector<std::string> candidates;  // "gemv_wg: 32\ngemv_rows: 4\n"
};

std::vector<Group> groups(TuningLevel level, bool tiny, uint32_t max_work_group_size);

}  // namespace clport::tuner::detail
