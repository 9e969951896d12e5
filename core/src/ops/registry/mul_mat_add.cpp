// MUL_MAT+ADD: MUL_MAT with a residual add behind it (plugin_abi.h). Its reference composes the
// plain ops (cpu_fused.cpp); a plan takes it only where a plugin claims it, so the fast CPU
// backend leaves it to the reference.
#include "ops/cpu_kernels.h"
#include "ops/registry/entries.h"
#include "ops/registry/fused_mul_mat_cases.h"

namespace clport::ops::registry {

OpEntry mul_mat_add() {
  OpEntry e;
  e.kind = CLPORT_OP_MUL_MAT_ADD;
  e.name = "MUL_MAT+ADD";
  e.short_name = "mul_mat+add";
  e.check = cpu::detail::check_mul_mat_add_operands;
  e.reference = cpu::detail::mul_mat_add;
  e.cases = [](std::vector<CaseSpec>& out, bool small) {
    fused_mul_mat_gemv_cases(out, CLPORT_OP_MUL_MAT_ADD, small);
    fused_mul_mat_gemm_cases(out, CLPORT_OP_MUL_MAT_ADD, small);
  };
  e.weight_sources = 1u << 0;
  e.mat_mul = true;
  e.fused = true;
  return e;
}

}  // namespace clport::ops::registry
