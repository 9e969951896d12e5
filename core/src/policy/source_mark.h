// Where a value was written in a policy or settings file, for messages.
#pragma once

#include <string>

#include "clport/export.h"

namespace clport {

struct SourceMark {
  std::string file;
  int line = 0;    // 1-based; 0 when only the file is known
  int column = 0;  // 1-based
  // "file:line:column", or "file" when the line is not known.
  CLPORT_API std::string to_string() const;
};

}  // namespace clport
