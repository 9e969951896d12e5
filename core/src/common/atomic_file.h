// Replacing a file so that readers (other processes included) see the old or the new contents,
// never a half-written one, and so that a failed write never leaves a truncated file behind:
// write a uniquely named temporary beside it, check every write and the close, then rename.
// Exported for the `clport` program, whose output files (--json, --trace) go the same way.
#pragma once

#include <string>
#include <string_view>

#include "clport/export.h"
#include "clport/status.h"

namespace clport {

// Stage::Io naming the file and the system's reason (a full disk, a missing directory, no
// permission) when the temporary cannot be created, written, closed or renamed; the temporary is
// then removed and the old file, if any, is left as it was.
CLPORT_API Status write_file_atomically(const std::string& path, std::string_view contents);

}  // namespace clport
