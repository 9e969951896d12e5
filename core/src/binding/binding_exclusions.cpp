// Ops taken out of service per plugin (the driver self-test's verdicts): select() skips them.
#include <algorithm>

#include "binding/binding.h"
#include "clport/log.h"
#include "ops/op_registry.h"

namespace clport {

int32_t op_exclusion_dtype(const clport_op& op) {
  const ops::OpEntry* entry = ops::find(op.kind);
  const int key = entry != nullptr ? entry->key_source : 0;
  const clport_tensor* t = key == ops::kKeyDst ? op.dst : (op.n_src > key ? op.src[key] : nullptr);
  return t != nullptr ? static_cast<int32_t>(t->dtype) : -1;
}

void DeviceBinding::exclude(const std::string& plugin, int32_t op_kind, int32_t dtype, std::string reason) {
  std::lock_guard<std::mutex> lock(exclusions_mutex_);
  for (const auto& e : exclusions_) {
    if (e.plugin == plugin && e.op_kind == op_kind && (e.dtype == -1 || e.dtype == dtype)) return;
  }
  log_.push_back("plugin '" + plugin + "': " + op_kind_name(op_kind) + (dtype >= 0 ? " dtype " + std::to_string(dtype) : "") +
                 " taken out of service: " + reason);
  exclusions_.push_back({plugin, op_kind, dtype, std::move(reason)});
}

std::vector<DeviceBinding::Exclusion> DeviceBinding::exclusions() const {
  std::lock_guard<std::mutex> lock(exclusions_mutex_);
  return exclusions_;
}

bool DeviceBinding::excluded(const std::string& plugin, const clport_op& op) const {
  std::lock_guard<std::mutex> lock(exclusions_mutex_);
  if (exclusions_.empty()) return false;
  const int32_t dtype = op_exclusion_dtype(op);
  return std::any_of(exclusions_.begin(), exclusions_.end(), [&](const Exclusion& e) {
    return e.plugin == plugin && e.op_kind == op.kind && (e.dtype == -1 || e.dtype == dtype);
  });
}

}  // namespace clport
