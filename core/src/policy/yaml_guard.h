// Checks a YAML text before it is turned into a node tree: size, nesting depth, node count, a
// single document, and no aliases (an alias bomb is cheap to write and exponential to walk).
#pragma once

#include <string>

#include "clport/status.h"

namespace clport::policy_detail {

struct YamlLimits {
  size_t max_bytes = 1 << 20;
  int max_depth = 32;
  size_t max_nodes = 100000;
};

// Ok, or a Config status "file:line:column: ..." naming the first offending place.
Status check_yaml_shape(const std::string& text, const std::string& file_name,
                        const YamlLimits& limits = {});

}  // namespace clport::policy_detail
