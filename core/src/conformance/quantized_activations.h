// Judging a mat-mul that multiplies 8-bit activations (an integer kernel) rather than float
// ones: against the CPU reference that rounds the activations the same way
// (cpu::OpParams::quantized_activations) as tightly as a float kernel against the float
// reference, and against the float reference within the bound the rounding costs. Shared by the
// conformance runner and the tuner, which check kernels the same way (exported from libclport for
// the tuner in devtools/, though this header is not installed).
#pragma once

#include <string>
#include <vector>

#include "clport/export.h"
#include "clport/status.h"
#include "conformance_cases.h"
#include "conformance_operands.h"

namespace clport::conformance::detail {

// Largest NMSE against the float reference (the bound llama.cpp's backend tests give mat-muls).
// It is a property of the rounding, not of a kernel (the quantized reference checks the kernel),
// and it is judged where it is defined: on plain MUL_MAT cases of at least
// kQuantizedActivationMinOutputs outputs. Over fewer outputs it measures how close to zero one
// dot product happened to be (a single output is within 5e-4 only ~83% of the time for random
// data, at any correct rounding). The fused patterns put that same mat-mul behind a norm (whose
// random weights make heavy-tailed activations: 1.6e-4 .. 2.9e-4 over 10 seeds for K-quant
// blocks of 256) or in front of SwiGLU (a product of two mat-muls: 3e-4 .. 1.3e-3); they are
// judged by the quantized reference, their float NMSE reported.
constexpr double kQuantizedActivationNmse = 5e-4;
constexpr size_t kQuantizedActivationMinOutputs = 32;

// A mat-mul (plain or fused) whose weight dtype has an 8-bit activation layout.
CLPORT_API bool takes_quantized_activations(const CaseSpec& spec, const std::vector<Operand>& src);

// The case's expected output with the activations rounded as an integer mat-mul sees them, and
// per output how far a kernel may move from it by rounding near-tie activations the other way
// (rounding_ties.h).
struct QuantizedReference {
  std::vector<float> values;
  std::vector<float> tie_allowance;
};
CLPORT_API Result<QuantizedReference> quantized_activation_reference(const CaseSpec& spec,
                                                                     const std::vector<Operand>& src,
                                                                     const Operand& dst);

// "" when `have` passes as a mat-mul on quantized activations, else why not. nmse_float is its
// NMSE against the float reference; *nmse_quantized receives the one against want.values, of the
// error beyond want.tie_allowance; *float_bounded whether kQuantizedActivationNmse was applied to
// nmse_float.
CLPORT_API std::string judge_quantized_activations(const CaseSpec& spec, double nmse_float,
                                                   const std::vector<float>& have, const QuantizedReference& want,
                                                   double* nmse_quantized, bool* float_bounded);

}  // namespace clport::conformance::detail
