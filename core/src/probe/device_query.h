// Small typed wrappers over clGetDeviceInfo / clGetPlatformInfo that never fail loudly: a query
// the driver rejects leaves the default (old drivers lack many OpenCL 2.x/3.0 queries).
#pragma once

#include <string>

#include "clport_plugin/cl_api.h"

namespace clport::probe {

std::string device_string(const clport_cl_api& cl, cl_device_id device, cl_device_info param);
std::string platform_string(const clport_cl_api& cl, cl_platform_id platform,
                            cl_platform_info param);

template <typename T>
T device_scalar(const clport_cl_api& cl, cl_device_id device, cl_device_info param, T fallback) {
  T value{};
  size_t size = 0;
  if (cl.clGetDeviceInfo(device, param, sizeof(T), &value, &size) != CL_SUCCESS || size != sizeof(T)) {
    return fallback;
  }
  return value;
}

}  // namespace clport::probe
