// probe_device / probe_all_devices (probe/device_info.h): one snapshot per device, classified.
#include <algorithm>
#include <sstream>

#include "clport_plugin/opencl_version.h"
#include "probe/device_info.h"
#include "common/logger.h"
#include "loader/opencl_loader.h"
#include "probe/device_classifier.h"
#include "probe/device_query.h"

namespace clport {
namespace {

std::vector<std::string> split_extensions(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string ext; in >> ext;) out.push_back(ext);
  return out;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

void fill_capabilities(const clport_cl_api& cl, DeviceInfo& info) {
  info.has_fp16 = info.has_extension("cl_khr_fp16");
  info.has_fp64 = info.has_extension("cl_khr_fp64");
  // Sub-groups: the Khronos extension, Intel's (also implemented by PoCL), Qualcomm's sub-group
  // extensions, or OpenCL 3.0's optional core feature (reported as a non-zero sub-group count).
  info.has_subgroups = info.has_extension("cl_khr_subgroups") ||
                       info.has_extension("cl_intel_subgroups") ||
                       std::any_of(info.extensions.begin(), info.extensions.end(),
                                   [](const std::string& e) {
                                     return starts_with(e, "cl_qcom_") &&
                                            e.find("sub_group") != std::string::npos;
                                   });
  if (!info.has_subgroups && clport_opencl_version(info.device_version.c_str()) >= 300) {
    info.has_subgroups =
        probe::device_scalar<cl_uint>(cl, info.device, CL_DEVICE_MAX_NUM_SUB_GROUPS, 0) > 0;
  }
  info.has_int_dot = info.has_extension("cl_arm_integer_dot_product_int8") ||
                     info.has_extension("cl_khr_integer_dot_product") ||
                     info.has_extension("cl_qcom_dot_product8");
  info.has_images = probe::device_scalar<cl_bool>(cl, info.device, CL_DEVICE_IMAGE_SUPPORT,
                                                  CL_FALSE) == CL_TRUE;
}

void fill_limits(const clport_cl_api& cl, DeviceInfo& info) {
  using probe::device_scalar;
  info.global_mem_bytes = device_scalar<cl_ulong>(cl, info.device, CL_DEVICE_GLOBAL_MEM_SIZE, 0);
  info.local_mem_bytes = device_scalar<cl_ulong>(cl, info.device, CL_DEVICE_LOCAL_MEM_SIZE, 0);
  info.max_alloc_bytes = device_scalar<cl_ulong>(cl, info.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, 0);
  info.compute_units = device_scalar<cl_uint>(cl, info.device, CL_DEVICE_MAX_COMPUTE_UNITS, 0);
  info.max_work_group_size = static_cast<uint32_t>(std::min<size_t>(
      device_scalar<size_t>(cl, info.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, 0), UINT32_MAX));
  // Reported in bits; a driver that reports nothing gets the OpenCL 1.2 minimum (a long16).
  const cl_uint align_bits = device_scalar<cl_uint>(cl, info.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, 0);
  info.mem_base_addr_align_bytes = align_bits >= 8 ? align_bits / 8 : 128;
  info.clock_mhz = device_scalar<cl_uint>(cl, info.device, CL_DEVICE_MAX_CLOCK_FREQUENCY, 0);
  // Deprecated in OpenCL 2.0 but still answered by the drivers we meet; a CPU device is host
  // memory whatever it reports.
  info.host_unified_memory =
      (info.type & CL_DEVICE_TYPE_CPU) != 0 ||
      device_scalar<cl_bool>(cl, info.device, CL_DEVICE_HOST_UNIFIED_MEMORY, CL_FALSE) == CL_TRUE;
}

}  // namespace

bool DeviceInfo::has_extension(const std::string& ext) const {
  return std::find(extensions.begin(), extensions.end(), ext) != extensions.end();
}

clport_device_desc DeviceInfo::to_desc() const {
  clport_device_desc d{};
  d.struct_size = sizeof(d);
  d.platform = platform;
  d.device = device;
  d.name = name.c_str();
  d.vendor = vendor.c_str();
  d.device_version = device_version.c_str();
  d.driver_version = driver_version.c_str();
  d.opencl_c_version = opencl_c_version.c_str();
  d.platform_name = platform_name.c_str();
  d.platform_version = platform_version.c_str();
  d.extensions = extensions_string.c_str();
  d.family = klass.family.c_str();
  d.generation = klass.generation.c_str();
  d.generation_number = klass.generation_number;
  d.device_type = type;
  d.has_fp16 = has_fp16;
  d.has_fp64 = has_fp64;
  d.has_subgroups = has_subgroups;
  d.has_int_dot = has_int_dot;
  d.has_images = has_images;
  d.global_mem_bytes = global_mem_bytes;
  d.local_mem_bytes = local_mem_bytes;
  d.max_alloc_bytes = max_alloc_bytes;
  d.compute_units = compute_units;
  d.max_work_group_size = max_work_group_size;
  d.mem_base_addr_align_bytes = mem_base_addr_align_bytes;
  return d;
}

Result<DeviceInfo> probe_device(const clport_cl_api& cl, cl_platform_id platform,
                                cl_device_id device) {
  if (device == nullptr || cl.clGetDeviceInfo == nullptr || cl.clGetPlatformInfo == nullptr) {
    return Status(Stage::InvalidArgument, "probe_device needs a device and a loaded OpenCL table");
  }
  DeviceInfo info;
  info.platform = platform;
  info.device = device;
  if (platform != nullptr) {
    info.platform_name = probe::platform_string(cl, platform, CL_PLATFORM_NAME);
    info.platform_vendor = probe::platform_string(cl, platform, CL_PLATFORM_VENDOR);
    info.platform_version = probe::platform_string(cl, platform, CL_PLATFORM_VERSION);
  }
  info.name = probe::device_string(cl, device, CL_DEVICE_NAME);
  info.vendor = probe::device_string(cl, device, CL_DEVICE_VENDOR);
  info.device_version = probe::device_string(cl, device, CL_DEVICE_VERSION);
  info.driver_version = probe::device_string(cl, device, CL_DRIVER_VERSION);
  info.opencl_c_version = probe::device_string(cl, device, CL_DEVICE_OPENCL_C_VERSION);
  info.extensions_string = probe::device_string(cl, device, CL_DEVICE_EXTENSIONS);
  info.extensions = split_extensions(info.extensions_string);
  info.type = probe::device_scalar<cl_device_type>(cl, device, CL_DEVICE_TYPE, 0);
  if (info.name.empty() && info.device_version.empty()) {
    return Status(Stage::Device, "clGetDeviceInfo answers nothing for this device; the driver is "
                                 "broken or the device was lost");
  }
  fill_capabilities(cl, info);
  fill_limits(cl, info);
  info.klass = probe::classify_with_default_table(info);
  logger("probe")->debug("device '{}' ({}): family {} generation '{}' number {} via rule {}",
                         info.name, info.vendor, info.klass.family, info.klass.generation,
                         info.klass.generation_number, info.klass.rule);
  return info;
}

Result<std::vector<DeviceInfo>> probe_all_devices(const clport_cl_api& cl) {
  if (cl.clGetPlatformIDs == nullptr || cl.clGetDeviceIDs == nullptr) {
    return Status(Stage::InvalidArgument, "probe_all_devices needs a loaded OpenCL table");
  }
  cl_uint count = 0;
  cl_int err = cl.clGetPlatformIDs(0, nullptr, &count);
  if (err != CL_SUCCESS || count == 0) {
    return Status(Stage::NoPlatform, std::string("clGetPlatformIDs found no platform (") +
                                         cl_error_name(err) +
                                         "); is a vendor driver installed and registered?");
  }
  std::vector<cl_platform_id> platforms(count);
  err = cl.clGetPlatformIDs(count, platforms.data(), nullptr);
  if (err != CL_SUCCESS) {
    return Status(Stage::NoPlatform, std::string("clGetPlatformIDs failed: ") + cl_error_name(err));
  }
  std::vector<DeviceInfo> out;
  std::ostringstream why;
  for (cl_platform_id platform : platforms) {
    const std::string pname = probe::platform_string(cl, platform, CL_PLATFORM_NAME);
    cl_uint n = 0;
    err = cl.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &n);
    if (err != CL_SUCCESS || n == 0) {
      why << "\n  platform '" << pname << "': " << (n == 0 && err == CL_SUCCESS ? "0 devices" : cl_error_name(err));
      continue;
    }
    std::vector<cl_device_id> devices(n);
    if ((err = cl.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n, devices.data(), nullptr)) !=
        CL_SUCCESS) {
      why << "\n  platform '" << pname << "': clGetDeviceIDs failed: " << cl_error_name(err);
      continue;
    }
    for (cl_device_id device : devices) {
      auto info = probe_device(cl, platform, device);
      if (info.ok()) {
        out.push_back(std::move(info.value()));
      } else {
        why << "\n  platform '" << pname << "': " << info.status().message();
      }
    }
  }
  if (out.empty()) {
    return Status(Stage::NoDevice, "OpenCL platforms exist but expose no usable device "
                                   "(is the GPU driver loaded, and may this user access it?):" +
                                       why.str());
  }
  return out;
}

}  // namespace clport
