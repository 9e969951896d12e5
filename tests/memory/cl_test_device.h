// Test helper: the first OpenCL device of the library the loader finds (PoCL here), with the
// DeviceInfo fields the pool and program cache need. Deliberately independent of the device
// probe so these tests only depend on the loader.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "probe/device_info.h"
#include "loader/opencl_loader.h"

namespace clport::testing {

struct TestDevice {
  std::shared_ptr<OpenClLibrary> library;
  DeviceInfo info;
  std::string why_not;  // non-empty when there is no device
};

inline std::string device_string(const clport_cl_api& cl, cl_device_id device,
                                 cl_device_info what) {
  size_t size = 0;
  if (cl.clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string text(size, '\0');
  cl.clGetDeviceInfo(device, what, size, text.data(), nullptr);
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

inline std::string platform_string(const clport_cl_api& cl, cl_platform_id platform,
                                   cl_platform_info what) {
  size_t size = 0;
  if (cl.clGetPlatformInfo(platform, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) {
    return {};
  }
  std::string text(size, '\0');
  cl.clGetPlatformInfo(platform, what, size, text.data(), nullptr);
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

inline TestDevice first_test_device() {
  TestDevice out;
  LoadReport report = load_opencl();
  if (report.library == nullptr) {
    out.why_not = report.status.to_string();
    return out;
  }
  out.library = report.library;
  const clport_cl_api& cl = out.library->api();
  cl_uint count = 0;
  if (cl.clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0) {
    out.why_not = "no OpenCL platform";
    return out;
  }
  std::vector<cl_platform_id> platforms(count);
  cl.clGetPlatformIDs(count, platforms.data(), nullptr);
  for (cl_platform_id platform : platforms) {
    cl_device_id device = nullptr;
    if (cl.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS) {
      continue;
    }
    DeviceInfo& info = out.info;
    info.platform = platform;
    info.device = device;
    info.platform_name = platform_string(cl, platform, CL_PLATFORM_NAME);
    info.platform_version = platform_string(cl, platform, CL_PLATFORM_VERSION);
    info.name = device_string(cl, device, CL_DEVICE_NAME);
    info.vendor = device_string(cl, device, CL_DEVICE_VENDOR);
    info.device_version = device_string(cl, device, CL_DEVICE_VERSION);
    info.driver_version = device_string(cl, device, CL_DRIVER_VERSION);
    cl_uint align_bits = 0;
    cl.clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(align_bits), &align_bits,
                       nullptr);
    info.mem_base_addr_align_bytes = align_bits / 8;
    cl_ulong max_alloc = 0;
    cl.clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(max_alloc), &max_alloc,
                       nullptr);
    info.max_alloc_bytes = max_alloc;
    return out;
  }
  out.why_not = "no OpenCL device on any platform";
  return out;
}

}  // namespace clport::testing
