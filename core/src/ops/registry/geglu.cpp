// GEGLU: dst = gelu(gate) * up, GELU in its tanh approximation (Gemma's FFN activation).
// Reference in cpu_elementwise.cpp (GELU in double), fast kernel in fast_norm_swiglu.cpp, device
// kernels in the plugins.
#include "cpu_backend/fast_ops.h"
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {

OpEntry geglu() {
  OpEntry e;
  e.kind = CLPORT_OP_GEGLU;
  e.name = "GEGLU";
  e.short_name = "geglu";
  e.check = [](const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams&) {
    return cpu::detail::check_gated_operands("geglu", src, dst);
  };
  e.reference = cpu::detail::geglu;
  e.fast = FastCpu::Kernel;
  e.fast_kernel = fastcpu::geglu;
  e.cases = [](std::vector<CaseSpec>& out, bool small) {
    binary(out, {small ? 37 : 2048, 3, 1, 1}, {small ? 37 : 2048, 3, 1, 1}, kReduce);
    binary(out, {small ? 5 : 4099, 1, 1, 1}, {small ? 5 : 4099, 1, 1, 1}, kReduce);
  };
  return e;
}

}  // namespace clport::ops::registry
