#include "real_opencl.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace fakecl {
namespace {

using IcdGetPlatforms = cl_int(CL_API_CALL*)(cl_uint, cl_platform_id*, cl_uint*);

void fill_direct(RealOpenCl& r) {
#define FAKECL_DLSYM(name) r.api.name = reinterpret_cast<cl_api_##name>(dlsym(r.handle, #name));
  CLPORT_CL_REQUIRED_FUNCTIONS(FAKECL_DLSYM)
  CLPORT_CL_OPTIONAL_FUNCTIONS(FAKECL_DLSYM)
#undef FAKECL_DLSYM
  r.get_extension_address = reinterpret_cast<void*(CL_API_CALL*)(const char*)>(
      dlsym(r.handle, "clGetExtensionFunctionAddress"));
}

bool fill_from_icd(RealOpenCl& r) {
  auto entry = reinterpret_cast<IcdGetPlatforms>(dlsym(r.handle, "clIcdGetPlatformIDsKHR"));
  if (entry == nullptr) {
    auto get_address = reinterpret_cast<void* (*)(const char*)>(
        dlsym(r.handle, "clGetExtensionFunctionAddress"));
    if (get_address) entry = reinterpret_cast<IcdGetPlatforms>(get_address("clIcdGetPlatformIDsKHR"));
  }
  if (entry == nullptr) return false;
  cl_uint count = 0;
  if (entry(0, nullptr, &count) != CL_SUCCESS || count == 0) return false;
  std::vector<cl_platform_id> platforms(count);
  if (entry(count, platforms.data(), nullptr) != CL_SUCCESS || platforms[0] == nullptr) return false;
  const auto* dispatch = *reinterpret_cast<cl_icd_dispatch* const*>(platforms[0]);
#define FAKECL_COPY(name) r.api.name = dispatch->name;
  CLPORT_CL_REQUIRED_FUNCTIONS(FAKECL_COPY)
  CLPORT_CL_OPTIONAL_FUNCTIONS(FAKECL_COPY)
#undef FAKECL_COPY
  r.api.clGetPlatformIDs = entry;
  r.get_extension_address = dispatch->clGetExtensionFunctionAddress;
  r.icd_only = true;
  return true;
}

RealOpenCl load() {
  RealOpenCl r;
  r.api.struct_size = sizeof(r.api);
  const char* target = std::getenv("FAKECL_TARGET");
  if (target == nullptr || *target == '\0') target = "libOpenCL.so.1";
  r.handle = dlopen(target, RTLD_NOW | RTLD_LOCAL);
  if (r.handle == nullptr) {
    const char* why = dlerror();
    r.error = std::string("fakecl: cannot open ") + target + ": " + (why ? why : "?");
    return r;
  }
  if (dlsym(r.handle, "clGetPlatformIDs") != nullptr) {
    fill_direct(r);
  } else if (!fill_from_icd(r)) {
    r.error = std::string("fakecl: ") + target + " is not an OpenCL library";
  }
  return r;
}

}  // namespace

const RealOpenCl& real() {
  static const RealOpenCl instance = load();
  return instance;
}

void* real_symbol(const char* name) {
  const RealOpenCl& r = real();
  if (r.handle == nullptr || !r.error.empty()) return nullptr;
  if (!r.icd_only) return dlsym(r.handle, name);
#define FAKECL_BY_NAME(fn) \
  if (std::strcmp(name, #fn) == 0) return reinterpret_cast<void*>(r.api.fn);
  CLPORT_CL_REQUIRED_FUNCTIONS(FAKECL_BY_NAME)
  CLPORT_CL_OPTIONAL_FUNCTIONS(FAKECL_BY_NAME)
#undef FAKECL_BY_NAME
  return r.get_extension_address ? r.get_extension_address(name) : nullptr;
}

}  // namespace fakecl
