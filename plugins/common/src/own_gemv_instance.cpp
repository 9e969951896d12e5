#include "clport_common/own_gemv_instance.hpp"

#include <algorithm>
#include <utility>

#include "clport_common/op_checks.hpp"

namespace clport::plugin_common {

OwnGemvInstance::OwnGemvInstance(const clport_host& host, const clport_device_desc& device, Tuning tuning,
                                 std::string plugin, std::vector<int32_t> mul_mat_dtypes)
    : runner_(host, device, std::move(tuning)), plugin_(std::move(plugin)), mul_mat_dtypes_(std::move(mul_mat_dtypes)) {}

bool OwnGemvInstance::supports(const clport_op& op) { return in_served_subset(op) && runner_.supports(op); }

void OwnGemvInstance::enqueue(const clport_op& op) {
  if (!in_served_subset(op)) throw sdk::unsupported(plugin_ + ": op not served by this plugin");
  if (!takes_own_gemv(op)) return runner_.enqueue(op);
  if (std::string why = check_op(op, runner_.tuning()); !why.empty()) throw sdk::unsupported(why);
  for (const clport_tensor* t : {op.src[0], op.src[1], op.dst}) {
    if (t->buffer == nullptr) throw sdk::Failure(plugin_ + ": operand without a buffer");
    if (t->offset % offset_alignment(t->dtype) != 0)
      throw sdk::Failure(plugin_ + ": operand offset " + std::to_string(t->offset) + " is misaligned");
  }
  gemv_enqueue(op);
}

bool OwnGemvInstance::in_served_subset(const clport_op& op) const {
  if (op.kind == CLPORT_OP_RMS_NORM) return true;
  if (op.kind != CLPORT_OP_MUL_MAT || op.n_src < 2 || op.src[0] == nullptr) return false;
  return std::find(mul_mat_dtypes_.begin(), mul_mat_dtypes_.end(), op.src[0]->dtype) != mul_mat_dtypes_.end();
}

bool OwnGemvInstance::takes_own_gemv(const clport_op& op) const {
  return op.kind == CLPORT_OP_MUL_MAT && op.src[1] != nullptr && op.src[1]->ne[1] <= runner_.tuning().gemv_max_m &&
         gemv_has_kernel(op.src[0]->dtype);
}

}  // namespace clport::plugin_common
