// Classifies a device into family / generation / model number with the device-family table.
#pragma once

#include <string>

#include "probe/device_info.h"
#include "probe/family_table.h"

namespace clport::probe {

// First rule (in table order) whose conditions all hold; the table's default family otherwise
// (rule "default", logged as a warning so that a new GPU is noticed).
DeviceClass classify(const DeviceIdentity& identity, const FamilyTable& table);

// The identity strings of a probed device.
DeviceIdentity identity_of(const DeviceInfo& info);

// The table clport ships (configs/device_families.yaml, embedded at build time), parsed once.
// CLPORT_DEVICE_FAMILIES=<file> replaces it (for trying a new rule without rebuilding).
const Result<FamilyTable>& default_family_table();

// classify() with default_family_table(); a broken table gives family "unknown" with the
// reason in `rule` (probing never fails because of the table).
DeviceClass classify_with_default_table(const DeviceInfo& info);

}  // namespace clport::probe
