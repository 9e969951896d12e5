#include "engine/device_selection.h"

#include <set>
#include <tuple>

namespace clport {
namespace {

int type_rank(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return 3;
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return 2;
  if (type & CL_DEVICE_TYPE_CPU) return 1;
  return 0;
}

}  // namespace

DeviceInventory discover_devices(const std::string& explicit_library) {
  DeviceInventory inv;
  LoaderOptions options;
  options.explicit_path = explicit_library;
  options.stop_at_first_usable = false;
  inv.load = load_opencl(options);
  if (!inv.load.library) {
    inv.status = inv.load.status;
    return inv;
  }
  std::set<std::tuple<std::string, std::string, std::string, std::string>> seen;
  Status last_failure;
  for (const auto& library : inv.load.all_usable) {
    auto devices = probe_all_devices(library->api());
    if (!devices.ok()) {
      last_failure = devices.status();
      continue;
    }
    for (auto& info : devices.value()) {
      auto key = std::make_tuple(info.platform_name, info.name, info.driver_version,
                                 info.device_version);
      if (!seen.insert(key).second) continue;
      inv.devices.push_back({library, std::move(info)});
    }
  }
  if (inv.devices.empty()) {
    inv.status = last_failure.ok() ? Status(Stage::NoDevice, "no OpenCL device found") : last_failure;
  }
  return inv;
}

int best_device_index(const std::vector<AvailableDevice>& devices) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(devices.size()); ++i) {
    if (best < 0) {
      best = i;
      continue;
    }
    const auto& a = devices[i].info;
    const auto& b = devices[best].info;
    const auto ka = std::make_tuple(type_rank(a.type), uint64_t(a.compute_units) * a.clock_mhz);
    const auto kb = std::make_tuple(type_rank(b.type), uint64_t(b.compute_units) * b.clock_mhz);
    if (ka > kb) best = i;
  }
  return best;
}

}  // namespace clport
