// Internal: what makes a (device, driver, clport, plugins, kernels) combination, and its key. The
// self-test verdict and the record of a device that failed during a run are stored under it, so
// both are forgotten together when any part changes (a driver update above all).
#pragma once

#include <string>

#include "selftest/verdict_file.h"

namespace clport {
class DeviceBinding;
class DeviceContext;
}  // namespace clport

namespace clport::selftest::detail {

VerdictIdentity identity_of(const DeviceContext& context, const DeviceBinding& binding);
// 64 hex digits.
std::string key_of(const VerdictIdentity& id);

}  // namespace clport::selftest::detail
