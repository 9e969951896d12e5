// How far an integer mat-mul may honestly land from the quantized-activation reference. The
// reference rounds each activation to d * round(x / d); a kernel that computes x itself (the
// fused RMSNorm in front) gets it a few float ulps away, which changes nothing unless x / d sits
// on a rounding tie (k + 1/2): there the kernel's code may be the neighbouring one, and the
// output moves by d |w| for that activation. Such near-ties are rare (a few per million
// activations) but one is enough to put a 37-output case above the reference's 1e-6 bound, so
// the judge forgives exactly the movement they can explain and nothing else.
#pragma once

#include <vector>

#include "clport/status.h"
#include "conformance_cases.h"
#include "conformance_operands.h"

namespace clport::conformance::detail {

// An activation is on a tie when x / d is within this many float ulps (relative to |x / d|) of
// k + 1/2. The kernel's x differs from the reference's by the rounding of a product or two and
// its block scale by the same (a common factor such as the norm's 1 / rms cancels in x / d):
// about 4 ulps, doubled twice for margin.
inline constexpr double kTieUlps = 16.0;

// Per element of dst (in gather_values order), the most a kernel's output may move by rounding
// the case's near-tie activations the other way: sum over them of d |w| for a mat-mul (plus
// residual: the same), through silu(gate) * up for the SwiGLU pattern. Zero everywhere when no
// activation is near a tie. For cases takes_quantized_activations accepts.
Result<std::vector<float>> rounding_tie_allowance(const CaseSpec& spec, const std::vector<Operand>& src,
                                                  const Operand& dst);

}  // namespace clport::conformance::detail
