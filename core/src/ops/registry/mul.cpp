// MUL: dst = src0 * src1, src1 broadcast as for ADD. Reference in cpu_elementwise.cpp; the fast
// CPU backend leaves it to the reference.
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {

OpEntry mul() {
  OpEntry e;
  e.kind = CLPORT_OP_MUL;
  e.name = "MUL";
  e.short_name = "mul";
  e.check = [](const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams&) {
    return cpu::detail::check_broadcast_operands("mul", src, dst);
  };
  e.reference = cpu::detail::mul;
  e.cases = [](std::vector<CaseSpec>& out, bool small) {
    binary(out, {small ? 37 : 4097, 3, 1, 1}, {small ? 37 : 4097, 3, 1, 1}, kNearExact);
    binary(out, {small ? 37 : 4096, 5, 1, 1}, {small ? 37 : 4096, 1, 1, 1}, kNearExact);
    binary(out, {small ? 8 : 64, 4, 3, 2}, {small ? 8 : 64, 1, 3, 1}, kNearExact);
    binary(out, {small ? 9 : 63, 6, 1, 1}, {1, 3, 1, 1}, kNearExact);
  };
  return e;
}

}  // namespace clport::ops::registry
