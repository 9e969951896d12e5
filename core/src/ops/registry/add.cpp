// ADD: dst = src0 + src1, src1 broadcast (the residual adds). Reference in cpu_elementwise.cpp;
// memory-bound, so the fast CPU backend runs the reference on the calling thread.
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {

OpEntry add() {
  OpEntry e;
  e.kind = CLPORT_OP_ADD;
  e.name = "ADD";
  e.short_name = "add";
  e.check = [](const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams&) {
    return cpu::detail::check_broadcast_operands("add", src, dst);
  };
  e.reference = cpu::detail::add;
  e.fast = FastCpu::ReferenceOnCaller;
  e.cases = [](std::vector<CaseSpec>& out, bool small) {
    binary(out, {small ? 37 : 4097, 3, 1, 1}, {small ? 37 : 4097, 3, 1, 1}, kNearExact);
    binary(out, {small ? 37 : 4096, 5, 1, 1}, {small ? 37 : 4096, 1, 1, 1}, kNearExact);
    binary(out, {small ? 8 : 64, 4, 3, 2}, {small ? 8 : 64, 1, 3, 1}, kNearExact);
    binary(out, {small ? 9 : 63, 6, 1, 1}, {1, 3, 1, 1}, kNearExact);
  };
  return e;
}

}  // namespace clport::ops::registry
