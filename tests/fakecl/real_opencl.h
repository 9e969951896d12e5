// The real OpenCL implementation the stand-in libraries forward to (FAKECL_TARGET, default
// libOpenCL.so.1). Works with libraries that export cl* and with ICD-only vendor libraries
// (libpocl.so.2), whose entry points come from their platform's cl_icd_dispatch table.
#pragma once

#ifndef CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#endif
#include "clport_plugin/cl_api.h"

#include <string>

namespace fakecl {

struct RealOpenCl {
  clport_cl_api api{};  // NULL entries: the target lacks them
  void* (CL_API_CALL* get_extension_address)(const char*) = nullptr;
  void* handle = nullptr;
  bool icd_only = false;
  std::string error;  // why the target could not be used (empty when it can)
};

// Loaded once per process, on first use.
const RealOpenCl& real();

// An entry point of the target by name (NULL when absent).
void* real_symbol(const char* name);

}  // namespace fakecl
