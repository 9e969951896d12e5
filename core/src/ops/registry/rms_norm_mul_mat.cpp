// RMS_NORM+MUL_MAT: the RMSNorm of RMS_NORM feeding MUL_MAT (plugin_abi.h). Its reference
// composes the plain ops (cpu_fused.cpp); a plan takes it only where a plugin claims it, so the
// fast CPU backend leaves it to the reference.
#include "ops/cpu_kernels.h"
#include "ops/registry/entries.h"
#include "ops/registry/fused_mul_mat_cases.h"

namespace clport::ops::registry {

OpEntry rms_norm_mul_mat() {
  OpEntry e;
  e.kind = CLPORT_OP_RMS_NORM_MUL_MAT;
  e.name = "RMS_NORM+MUL_MAT";
  e.short_name = "rms_norm+mul_mat";
  e.check = cpu::detail::check_rms_norm_mul_mat_operands;
  e.reference = cpu::detail::rms_norm_mul_mat;
  e.cases = [](std::vector<CaseSpec>& out, bool small) {
    fused_mul_mat_gemv_cases(out, CLPORT_OP_RMS_NORM_MUL_MAT, small);
    fused_mul_mat_gemm_cases(out, CLPORT_OP_RMS_NORM_MUL_MAT, small);
  };
  e.weight_sources = 1u << 0;
  e.mat_mul = true;
  e.fused = true;
  return e;
}

}  // namespace clport::ops::registry
