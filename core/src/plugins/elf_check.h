// A cheap integrity check of a plugin file before dlopen: an ELF whose headers point past the
// end of the file is a truncated copy. dlopen alone can accept such a file when only the debug
// sections were cut, and a cut inside a loaded segment can fault later instead of failing.
#pragma once

#include <string>

namespace clport::plugin_detail {

// "" when the file looks whole (or is not ELF: dlopen then gives its own reason), else why not.
std::string elf_truncation_problem(const std::string& path);

}  // namespace clport::plugin_detail
