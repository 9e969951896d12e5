#include "loader/symbol_resolver.h"

namespace clport::loader {

std::vector<std::string> resolve_by_name(const SymbolLookup& lookup, clport_cl_api& api,
                                         std::vector<std::string>& missing_optional) {
  std::vector<std::string> missing_required;
  api.struct_size = sizeof(clport_cl_api);
#define CLPORT_RESOLVE_REQUIRED(name)                                  \
  api.name = reinterpret_cast<cl_api_##name>(lookup(#name));           \
  if (api.name == nullptr) missing_required.emplace_back(#name);
#define CLPORT_RESOLVE_OPTIONAL(name)                                  \
  api.name = reinterpret_cast<cl_api_##name>(lookup(#name));           \
  if (api.name == nullptr) missing_optional.emplace_back(#name);
  CLPORT_CL_REQUIRED_FUNCTIONS(CLPORT_RESOLVE_REQUIRED)
  CLPORT_CL_OPTIONAL_FUNCTIONS(CLPORT_RESOLVE_OPTIONAL)
#undef CLPORT_RESOLVE_REQUIRED
#undef CLPORT_RESOLVE_OPTIONAL
  return missing_required;
}

std::vector<std::string> resolve_from_dispatch(const cl_icd_dispatch& dispatch, clport_cl_api& api,
                                               std::vector<std::string>& missing_optional) {
  std::vector<std::string> missing_required;
  api.struct_size = sizeof(clport_cl_api);
  // The dispatch table uses the same cl_api_* pointer types, so entries copy over as they are.
#define CLPORT_COPY_REQUIRED(name)                                     \
  api.name = dispatch.name;                                            \
  if (api.name == nullptr) missing_required.emplace_back(#name);
#define CLPORT_COPY_OPTIONAL(name)                                     \
  api.name = dispatch.name;                                            \
  if (api.name == nullptr) missing_optional.emplace_back(#name);
  CLPORT_CL_REQUIRED_FUNCTIONS(CLPORT_COPY_REQUIRED)
  CLPORT_CL_OPTIONAL_FUNCTIONS(CLPORT_COPY_OPTIONAL)
#undef CLPORT_COPY_REQUIRED
#undef CLPORT_COPY_OPTIONAL
  return missing_required;
}

}  // namespace clport::loader
