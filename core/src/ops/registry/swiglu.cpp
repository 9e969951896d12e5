// SWIGLU: dst = silu(gate) * up, the gated FFN activation of llama-like models. Reference in
// cpu_elementwise.cpp, fast kernel in fast_norm_swiglu.cpp.
#include "cpu_backend/fast_ops.h"
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {

OpEntry swiglu() {
  OpEntry e;
  e.kind = CLPORT_OP_SWIGLU;
  e.name = "SWIGLU";
  e.short_name = "swiglu";
  e.check = [](const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams&) {
    return cpu::detail::check_gated_operands("swiglu", src, dst);
  };
  e.reference = cpu::detail::swiglu;
  e.fast = FastCpu::Kernel;
  e.fast_kernel = fastcpu::swiglu;
  e.cases = [](std::vector<CaseSpec>& out, bool small) {
    binary(out, {small ? 37 : 11008, 2, 1, 1}, {small ? 37 : 11008, 2, 1, 1}, kReduce);
    binary(out, {small ? 5 : 4099, 1, 1, 1}, {small ? 5 : 4099, 1, 1, 1}, kReduce);
  };
  return e;
}

}  // namespace clport::ops::registry
