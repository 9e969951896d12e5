// SCALE: dst = src0 * params.scale. Reference in cpu_elementwise.cpp; memory-bound, so the fast
// CPU backend runs the reference on the calling thread.
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {

OpEntry scale() {
  OpEntry e;
  e.kind = CLPORT_OP_SCALE;
  e.name = "SCALE";
  e.short_name = "scale";
  e.check = cpu::detail::check_scale_operands;
  e.reference = cpu::detail::scale;
  e.fast = FastCpu::ReferenceOnCaller;
  e.cases = [](std::vector<CaseSpec>& out, bool small) {
    unary(out, {small ? 37 : 1001, 3, 1, 1}, 0.37f, kNearExact);
  };
  return e;
}

}  // namespace clport::ops::registry
