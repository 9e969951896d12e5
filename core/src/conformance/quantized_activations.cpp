#include "quantized_activations.h"

#include "clport/nmse.h"
#include "cpu_backend/activation_blocks.h"

namespace clport::conformance::detail {

bool takes_quantized_activations(const CaseSpec& spec, const std::vector<Operand>& src) {
  const bool mat_mul = spec.kind == CLPORT_OP_MUL_MAT || spec.kind == CLPORT_OP_RMS_NORM_MUL_MAT ||
                       spec.kind == CLPORT_OP_MUL_MAT_ADD || spec.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU;
  return mat_mul && !src.empty() &&
         fastcpu::activation_layout(src[0].spec.dtype) != fastcpu::ActivationLayout::kNone;
}

Result<std::vector<float>> quantized_activation_reference(const CaseSpec& spec, const std::vector<Operand>& src,
                                                          const Operand& dst) {
  HostReference ref;
  Status st = run_host_reference(spec, src, dst, true, &ref);
  if (!st.ok()) return Status(Stage::Internal, "CPU reference (quantized activations) failed: " + st.to_string());
  return gather_values(dst, ref.dst);
}

std::string judge_quantized_activations(const CaseSpec& spec, double nmse_float, const std::vector<float>& have,
                                        const std::vector<float>& want_quantized, double* nmse_quantized,
                                        bool* float_bounded) {
  *nmse_quantized = nmse(want_quantized.data(), have.data(), have.size());
  *float_bounded = spec.kind == CLPORT_OP_MUL_MAT && have.size() >= kQuantizedActivationMinOutputs;
  if (!(*nmse_quantized <= spec.threshold))
    return "NMSE " + std::to_string(nmse_float) + " against the float reference and " +
           std::to_string(*nmse_quantized) + " against the quantized-activation reference (threshold " +
           std::to_string(spec.threshold) + ")";
  if (*float_bounded && !(nmse_float <= kQuantizedActivationNmse))
    return "quantized activations: NMSE " + std::to_string(nmse_float) + " against the float reference, above " +
           std::to_string(kQuantizedActivationNmse);
  return "";
}

}  // namespace clport::conformance::detail
