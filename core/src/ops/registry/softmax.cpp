// SOFTMAX: row-wise softmax of src0 * params.scale. Reference in cpu_norm.cpp (sums in double);
// no model's forward pass issues it, so the fast CPU backend leaves it to the reference.
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {

OpEntry softmax() {
  OpEntry e;
  e.kind = CLPORT_OP_SOFTMAX;
  e.name = "SOFTMAX";
  e.short_name = "softmax";
  e.check = cpu::detail::check_softmax_operands;
  e.reference = cpu::detail::softmax;
  e.cases = [](std::vector<CaseSpec>& out, bool small) {
    unary(out, {small ? 33 : 1000, small ? 2 : 3, 1, 1}, 1.0f, kReduce);
    unary(out, {small ? 7 : 32000, 1, 1, 1}, 0.125f, kReduce);
  };
  return e;
}

}  // namespace clport::ops::registry
