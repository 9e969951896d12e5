#include "probe/device_query.h"

#include <vector>

namespace clport::probe {
namespace {

// Strings come back NUL-terminated and sometimes with trailing blanks ("QUALCOMM "); keep them
// as reported except for the terminator, so that what `clport devices` shows is what the driver
// said.
std::string from_buffer(const std::vector<char>& buffer) {
  std::string out(buffer.data(), buffer.size());
  const auto nul = out.find('\0');
  if (nul != std::string::npos) out.resize(nul);
  return out;
}

}  // namespace

std::string device_string(const clport_cl_api& cl, cl_device_id device, cl_device_info param) {
  size_t size = 0;
  if (cl.clGetDeviceInfo(device, param, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::vector<char> buffer(size + 1, '\0');
  if (cl.clGetDeviceInfo(device, param, size, buffer.data(), nullptr) != CL_SUCCESS) return "";
  return from_buffer(buffer);
}

std::string platform_string(const clport_cl_api& cl, cl_platform_id platform,
                            cl_platform_info param) {
  size_t size = 0;
  if (cl.clGetPlatformInfo(platform, param, 0, nullptr, &size) != CL_SUCCESS || size == 0) {
    return "";
  }
  std::vector<char> buffer(size + 1, '\0');
  if (cl.clGetPlatformInfo(platform, param, size, buffer.data(), nullptr) != CL_SUCCESS) return "";
  return from_buffer(buffer);
}

}  // namespace clport::probe
