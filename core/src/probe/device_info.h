// Device probe: a snapshot of what one OpenCL device is and can do, plus its classification
// into a family and generation (data-driven: configs/device_families.yaml).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clport_plugin/cl_api.h"
#include "clport/export.h"
#include "clport_plugin/plugin_abi.h"
#include "clport/status.h"

namespace clport {

struct DeviceClass {
  std::string family = "unknown";  // adreno, mali, intel, nvidia, amd, apple, powervr, cpu, unknown
  std::string generation;          // e.g. "a7xx", "valhall", "xe", "" when unknown
  int32_t generation_number = 0;   // e.g. 740 (Adreno 740), 78 (Mali-G78), 0 when unknown
  std::string rule;                // which table rule matched (for `clport devices`)
};

struct DeviceInfo {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string platform_name, platform_vendor, platform_version;
  std::string name, vendor, device_version, driver_version, opencl_c_version;
  std::vector<std::string> extensions;
  std::string extensions_string;
  cl_device_type type = 0;
  bool has_fp16 = false, has_fp64 = false, has_subgroups = false, has_int_dot = false;
  bool has_images = false;
  // The device reads host memory directly (CL_DEVICE_HOST_UNIFIED_MEMORY; CPU devices always):
  // its buffers are the app's memory, and a weight in the file's layout can be used in place
  // from the mapped file instead of being copied.
  bool host_unified_memory = false;
  uint64_t global_mem_bytes = 0, local_mem_bytes = 0, max_alloc_bytes = 0;
  uint32_t compute_units = 0, max_work_group_size = 0, mem_base_addr_align_bytes = 0;
  uint32_t clock_mhz = 0;
  DeviceClass klass;

  CLPORT_API bool has_extension(const std::string& ext) const;
  // A C view for the plugin ABI; pointers refer into this DeviceInfo (keep it alive).
  CLPORT_API clport_device_desc to_desc() const;
};

// Queries one device (never throws; missing queries leave defaults) and classifies it.
CLPORT_API Result<DeviceInfo> probe_device(const clport_cl_api& cl, cl_platform_id platform,
                                           cl_device_id device);

// Every device of every platform the library exposes. Status NoPlatform / NoDevice when empty.
CLPORT_API Result<std::vector<DeviceInfo>> probe_all_devices(const clport_cl_api& cl);

// Proves the device can be used: it is available and has a compiler (else DeviceUnusable), a
// context can be created on it (else Context) and an in-order queue in that context (else
// Queue). Everything created is released again. The last step of `clport check`.
CLPORT_API Status check_device_usable(const clport_cl_api& cl, const DeviceInfo& info);

}  // namespace clport
