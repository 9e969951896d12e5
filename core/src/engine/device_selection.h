// Which OpenCL devices this machine has (over every usable library, without duplicates) and
// which one the engine should use.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "probe/device_info.h"
#include "clport/export.h"
#include "loader/opencl_loader.h"
#include "clport/status.h"

namespace clport {

struct AvailableDevice {
  std::shared_ptr<OpenClLibrary> library;
  DeviceInfo info;
};

struct DeviceInventory {
  LoadReport load;                       // every library tried
  std::vector<AvailableDevice> devices;  // in discovery order, duplicates removed
  Status status;                         // why there is no device, when there is none
};

// Loads every usable OpenCL library (or only `explicit_library` when not empty) and lists their
// devices. The same device seen through two libraries (ICD loader and the vendor library
// directly) is listed once, from the first library.
CLPORT_API DeviceInventory discover_devices(const std::string& explicit_library = "");

// Index of the device to use: GPUs first, then accelerators, then CPUs; among equals, more
// compute units x clock, then discovery order. -1 when the list is empty.
CLPORT_API int best_device_index(const std::vector<AvailableDevice>& devices);

}  // namespace clport
