// SILU: dst = src0 * sigmoid(src0). Reference in cpu_elementwise.cpp; the fast CPU backend
// leaves it to the reference.
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {

OpEntry silu() {
  OpEntry e;
  e.kind = CLPORT_OP_SILU;
  e.name = "SILU";
  e.short_name = "silu";
  e.check = [](const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams&) {
    return cpu::detail::check_unary_operands("silu", src, dst);
  };
  e.reference = cpu::detail::silu;
  e.cases = [](std::vector<CaseSpec>& out, bool small) {
    unary(out, {small ? 37 : 4099, 1, 1, 1}, 0.0f, kReduce);
    unary(out, {small ? 20 : 11008, 2, 1, 1}, 0.0f, kReduce);
  };
  return e;
}

}  // namespace clport::ops::registry
