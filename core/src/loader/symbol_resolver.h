// Fills a clport_cl_api table from an opened library, by one of three routes: the library's own
// cl* exports, the cl_icd_dispatch table of its platforms (ICD-only vendor libraries), or the
// Pixel enableOpenCL/loadOpenCLPointer protocol.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "clport_plugin/cl_api.h"

namespace clport::loader {

using SymbolLookup = std::function<void*(const char* name)>;

// Resolves every entry by name through `lookup`. Returns the names of missing required symbols;
// missing optional ones are appended to `missing_optional`.
std::vector<std::string> resolve_by_name(const SymbolLookup& lookup, clport_cl_api& api,
                                         std::vector<std::string>& missing_optional);

// Copies every entry from an ICD dispatch table (NULL entries stay NULL). Same return convention.
std::vector<std::string> resolve_from_dispatch(const cl_icd_dispatch& dispatch, clport_cl_api& api,
                                               std::vector<std::string>& missing_optional);

}  // namespace clport::loader
