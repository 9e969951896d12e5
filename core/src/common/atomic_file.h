// Replacing a small file so that readers (other processes included) see the old or the new
// contents, never a half-written one: write a per-process temporary beside it, then rename.
#pragma once

#include <string>

#include "clport/status.h"

namespace clport {

// Stage::Internal naming the file when the temporary cannot be written or renamed (the
// temporary is removed; the old file, if any, is left as it was).
Status write_file_atomically(const std::string& path, const std::string& contents);

}  // namespace clport
