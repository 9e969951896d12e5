// libclport_fakecl_forward: enumeration and info queries, where identity spoofing and the
// zero-platform / zero-device faults happen.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "fake_identity.h"
#include "forward_macros.h"

namespace {

// Answers an info query from our own bytes, honouring the size-query convention.
cl_int answer(const void* data, size_t size, size_t value_size, void* value, size_t* size_ret) {
  if (value != nullptr) {
    if (value_size < size) return CL_INVALID_VALUE;
    std::memcpy(value, data, size);
  }
  if (size_ret != nullptr) *size_ret = size;
  return CL_SUCCESS;
}

cl_int answer_string(const std::string& text, size_t value_size, void* value, size_t* size_ret) {
  return answer(text.c_str(), text.size() + 1, value_size, value, size_ret);
}

std::string real_device_string(cl_device_id device, cl_device_info param) {
  const auto fn = fakecl::real().api.clGetDeviceInfo;
  size_t size = 0;
  if (fn == nullptr || fn(device, param, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::vector<char> buffer(size + 1, '\0');
  if (fn(device, param, size, buffer.data(), nullptr) != CL_SUCCESS) return "";
  return std::string(buffer.data());
}

}  // namespace

extern "C" FAKECL_EXPORT cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries,
                                                             cl_platform_id* platforms,
                                                             cl_uint* num_platforms) {
  cl_int injected = CL_SUCCESS;
  if (fakecl::inject("clGetPlatformIDs", &injected)) return injected;
  const auto& real = fakecl::real();
  if (fakecl::env_flag("FAKECL_ZERO_PLATFORMS") || !real.error.empty() ||
      real.api.clGetPlatformIDs == nullptr) {
    if (!real.error.empty()) std::fprintf(stderr, "%s\n", real.error.c_str());
    if (num_platforms != nullptr) *num_platforms = 0;
    return CL_PLATFORM_NOT_FOUND_KHR;
  }
  return real.api.clGetPlatformIDs(num_entries, platforms, num_platforms);
}

extern "C" FAKECL_EXPORT cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform,
                                                              cl_platform_info param,
                                                              size_t value_size, void* value,
                                                              size_t* size_ret) {
  cl_int injected = CL_SUCCESS;
  if (fakecl::inject("clGetPlatformInfo", &injected)) return injected;
  if (auto text = fakecl::platform_string_override(param)) {
    return answer_string(*text, value_size, value, size_ret);
  }
  const auto fn = fakecl::real().api.clGetPlatformInfo;
  return fn ? fn(platform, param, value_size, value, size_ret) : CL_INVALID_OPERATION;
}

extern "C" FAKECL_EXPORT cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id platform,
                                                           cl_device_type type,
                                                           cl_uint num_entries,
                                                           cl_device_id* devices,
                                                           cl_uint* num_devices) {
  cl_int injected = CL_SUCCESS;
  if (fakecl::inject("clGetDeviceIDs", &injected)) return injected;
  const auto fn = fakecl::real().api.clGetDeviceIDs;
  if (fn == nullptr) return CL_INVALID_OPERATION;
  if (fakecl::env_flag("FAKECL_ZERO_DEVICES")) {
    if (num_devices != nullptr) *num_devices = 0;
    return CL_DEVICE_NOT_FOUND;
  }
  // A spoofed type: the real devices answer for whatever type the spoof claims.
  if (const cl_device_type spoofed = fakecl::device_type_override()) {
    const bool wanted = type == CL_DEVICE_TYPE_ALL || type == CL_DEVICE_TYPE_DEFAULT ||
                        (type & spoofed) != 0;
    if (!wanted) {
      if (num_devices != nullptr) *num_devices = 0;
      return CL_DEVICE_NOT_FOUND;
    }
    type = CL_DEVICE_TYPE_ALL;
  }
  return fn(platform, type, num_entries, devices, num_devices);
}

extern "C" FAKECL_EXPORT cl_int CL_API_CALL clGetDeviceInfo(cl_device_id device,
                                                            cl_device_info param,
                                                            size_t value_size, void* value,
                                                            size_t* size_ret) {
  cl_int injected = CL_SUCCESS;
  if (fakecl::inject("clGetDeviceInfo", &injected)) return injected;
  const auto fn = fakecl::real().api.clGetDeviceInfo;
  if (fn == nullptr) return CL_INVALID_OPERATION;
  if (param == CL_DEVICE_TYPE) {
    if (const cl_device_type spoofed = fakecl::device_type_override()) {
      return answer(&spoofed, sizeof(spoofed), value_size, value, size_ret);
    }
  }
  if (param == CL_DEVICE_AVAILABLE && fakecl::env_flag("FAKECL_DEVICE_UNAVAILABLE")) {
    const cl_bool no = CL_FALSE;
    return answer(&no, sizeof(no), value_size, value, size_ret);
  }
  const std::string real_extensions =
      param == CL_DEVICE_EXTENSIONS ? real_device_string(device, CL_DEVICE_EXTENSIONS) : "";
  if (auto text = fakecl::device_string_override(param, real_extensions)) {
    return answer_string(*text, value_size, value, size_ret);
  }
  return fn(device, param, value_size, value, size_ret);
}

// Extension functions come from the real implementation; the ICD entry is withheld so that an
// ICD loader never mistakes this library for a vendor driver (it would recurse into itself).
extern "C" FAKECL_EXPORT void* CL_API_CALL clGetExtensionFunctionAddress(const char* name) {
  if (name == nullptr || std::strcmp(name, "clIcdGetPlatformIDsKHR") == 0) return nullptr;
  const auto fn = fakecl::real().get_extension_address;
  return fn ? fn(name) : nullptr;
}

extern "C" FAKECL_EXPORT void* CL_API_CALL
clGetExtensionFunctionAddressForPlatform(cl_platform_id platform, const char* name) {
  if (name == nullptr || std::strcmp(name, "clIcdGetPlatformIDsKHR") == 0) return nullptr;
  const auto fn = fakecl::real().api.clGetExtensionFunctionAddressForPlatform;
  return fn ? fn(platform, name) : clGetExtensionFunctionAddress(name);
}
