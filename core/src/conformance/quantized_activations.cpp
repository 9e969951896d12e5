#include "quantized_activations.h"

#include <algorithm>
#include <cmath>

#include "common/nmse.h"
#include "cpu_backend/activation_blocks.h"
#include "ops/op_registry.h"
#include "rounding_ties.h"

namespace clport::conformance::detail {

bool takes_quantized_activations(const CaseSpec& spec, const std::vector<Operand>& src) {
  const ops::OpEntry* op = ops::find(spec.kind);
  return op != nullptr && op->mat_mul && !src.empty() &&
         fastcpu::activation_layout(src[0].spec.dtype) != fastcpu::ActivationLayout::kNone;
}

namespace {

// `have` with each finite error shrunk toward zero by its allowance (a non-finite value stays
// as it is, so nmse still fails it).
std::vector<float> beyond_allowance(const std::vector<float>& want, const std::vector<float>& have,
                                    const std::vector<float>& allowance) {
  std::vector<float> out = have;
  for (size_t i = 0; i < out.size() && i < allowance.size(); ++i) {
    const double error = static_cast<double>(have[i]) - want[i];
    if (!std::isfinite(error)) continue;
    const double left = std::max(0.0, std::fabs(error) - allowance[i]);
    out[i] = static_cast<float>(want[i] + std::copysign(left, error));
  }
  return out;
}

}  // namespace

Result<QuantizedReference> quantized_activation_reference(const CaseSpec& spec, const std::vector<Operand>& src,
                                                          const Operand& dst) {
  HostReference ref;
  Status st = run_host_reference(spec, src, dst, true, &ref);
  if (!st.ok()) return Status(Stage::Internal, "CPU reference (quantized activations) failed: " + st.to_string());
  auto allowance = rounding_tie_allowance(spec, src, dst);
  if (!allowance.ok()) return allowance.status();
  return QuantizedReference{gather_values(dst, ref.dst), std::move(allowance.value())};
}

std::string judge_quantized_activations(const CaseSpec& spec, double nmse_float, const std::vector<float>& have,
                                        const QuantizedReference& want, double* nmse_quantized, bool* float_bounded) {
  const std::vector<float> judged = beyond_allowance(want.values, have, want.tie_allowance);
  *nmse_quantized = nmse(want.values.data(), judged.data(), judged.size());
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
