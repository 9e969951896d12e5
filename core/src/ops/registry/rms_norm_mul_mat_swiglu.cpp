// RMS_NORM+MUL_MAT+SWIGLU: the gate (src0) and up (src3) projections of a SwiGLU FFN behind
// their norm (plugin_abi.h). Its reference composes the plain ops (cpu_fused.cpp); a plan takes
// it only where a plugin claims it, so the fast CPU backend leaves it to the reference.
#include "ops/cpu_kernels.h"
#include "ops/registry/entries.h"
#include "ops/registry/fused_mul_mat_cases.h"

namespace clport::ops::registry {

OpEntry rms_norm_mul_mat_swiglu() {
  OpEntry e;
  e.kind = CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU;
  e.name = "RMS_NORM+MUL_MAT+SWIGLU";
  e.short_name = "rms_norm+mul_mat+swiglu";
  e.check = cpu::detail::check_rms_norm_mul_mat_swiglu_operands;
  e.reference = cpu::detail::rms_norm_mul_mat_swiglu;
  e.cases = [](std::vector<CaseSpec>& out, bool small) {
    fused_mul_mat_gemv_cases(out, CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU, small);
    // SmolLM2-135M's FFN shape.
    if (!small) fused_mul_mat_case(out, CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU, DType::Q4_1, 576, 1536, 1);
    fused_mul_mat_gemm_cases(out, CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU, small);
  };
  e.weight_sources = (1u << 0) | (1u << 3);
  e.mat_mul = true;
  e.fused = true;
  return e;
}

}  // namespace clport::ops::registry
