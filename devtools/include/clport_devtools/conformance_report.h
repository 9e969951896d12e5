// Conformance reports as text, for `clport conformance` and the per-plugin conformance tests. The
// run itself (conformance/conformance.h) stays in libclport: the driver self-test runs its catalogue.
#pragma once

#include <string>

#include "conformance/conformance.h"

namespace clport::conformance {

// A fixed-width table, one line per case, plus a summary line.
// With recorded kernels, each case line ends with the kernels it ran.
std::string format_table(const Report& report, bool show_unsupported = true);

}  // namespace clport::conformance
