// Devices that failed during a run. When an enqueue or finish fails in the middle of a
// generation, the engine moves the run to the CPU path and records the device here, under the
// driver self-test's key (device, driver, platform, clport version, bound plugins, shared
// kernels): later starts do not bind it again until one of those changes, a driver update
// above all. The record is avoid-<key>.json in the cache directory (programs/cache_location.h);
// with the cache off nothing is remembered. Deleting the file lets the device be tried again.
#pragma once

#include <optional>
#include <string>

#include "clport/export.h"
#include "clport/status.h"

namespace clport {

class DeviceBinding;
class DeviceContext;

struct DeviceFailureRecord {
  std::string file;  // where it is recorded
  std::string what;  // what failed (the status the run stopped on)
  std::string when;  // UTC, ISO 8601
};

// Records that this device (as bound) failed. Returns the file, "" when the cache is off.
CLPORT_API Result<std::string> record_device_failure(const DeviceContext& context,
                                                     const DeviceBinding& binding,
                                                     const std::string& what);

// The record for this device as bound, if there is one. A file that cannot be read or is for
// another key counts as none (and is left for the next record to replace).
CLPORT_API std::optional<DeviceFailureRecord> find_device_failure(const DeviceContext& context,
                                                                  const DeviceBinding& binding);

}  // namespace clport
