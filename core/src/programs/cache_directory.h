// Choosing and preparing the program cache directory.
#pragma once

#include <string>

#include "clport/status.h"

namespace clport::programs {

// Creates `dir` (and missing parents) with owner-only permissions (0700): compiled kernels of
// one user are nobody else's business, and another user must not plant binaries we would load.
// Existing directories keep their permissions. Then checks that a file can be written there.
Status prepare_cache_directory(const std::string& dir);

}  // namespace clport::programs
