// Internal: what the ops' conformance cases (each op's file beside this one) are built from:
// the NMSE thresholds, operand specs and the shapes several ops share. Shapes are chosen to hit
// the awkward paths of any implementation: a single row or token, sizes that are odd or not a
// multiple of any work-group or tile, a large GEMV, several GEMM tile edges, attention with
// n_past > 0, grouped-query heads, long contexts (more keys than one work-group) and strided
// destinations, while the whole catalogue runs within a couple of minutes on a 2-core PoCL
// machine.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "conformance/conformance_cases.h"

namespace clport::ops::registry {

using conformance::detail::CaseSpec;
using conformance::detail::Fill;
using conformance::detail::OperandSpec;

// NMSE thresholds. Exact ops must match bit for bit (value-wise); ops whose only difference to
// the reference is float summation order or a libm ulp get tight bounds; trigonometry of large
// angles (rope) and long dot products a little more room.
inline constexpr double kExact = 0.0;
inline constexpr double kNearExact = 1e-12;  // single multiply per element (dequant, add, mul, scale)
inline constexpr double kReduce = 1e-10;     // reductions / exp: rms_norm, softmax, silu, swiglu
inline constexpr double kMatMul = 1e-6;  // dot products of up to 14k terms; GPU FMA and reduction order
inline constexpr double kAttention = 1e-6;
inline constexpr double kRope = 1e-6;        // float pow/sin/cos of angles up to ~1e3 rad
// A store into a Q8_0 / Q4_0 KV cache, compared decoded. The device quantizes as the reference
// does (same scale, same rounding), so the blocks match; the bound leaves room for a code that a
// ulp of RoPE or of a non-IEEE float division puts on the other side of a rounding tie (one such
// code in a case is ~1e-8), while any rounding or layout that differs (truncation, nibble order)
// costs at least the quantization error itself, ~5e-5 for Q8_0 and ~1e-2 for Q4_0.
inline constexpr double kKvQuant = 1e-6;

using Ne = std::array<int64_t, 4>;

OperandSpec f32(Ne ne, float scale = 1.0f);
OperandSpec typed(DType d, Ne ne, float scale = 1.0f);
// "4096x3" (trailing dimensions of 1 left out).
std::string dims(Ne ne);
std::string tname(DType d);

// One F32 source of shape ne filled with scale 2, dst alike, params.scale = f0 (SILU, SCALE,
// SOFTMAX).
void unary(std::vector<CaseSpec>& out, Ne ne, float f0, double threshold);
// Two F32 sources, the second broadcast when its shape differs, dst of the first's shape.
void binary(std::vector<CaseSpec>& out, Ne a, Ne b, double threshold);

// RoPE frequency factors [n_rot / 2] appended as an op's last source.
OperandSpec rope_factors(int64_t n_rot);
// window > 0: a sliding window of that many keys (Gemma 3's local layers).
std::string window_suffix(int32_t window);
// [hd, heads, n] slice of a fused projection of `row` floats per token, starting at float `at`.
OperandSpec projection_slice(int64_t hd, int64_t heads, int64_t n, int64_t row, int64_t at);
// RoPE over the whole head at position n_past, base 10000, and attention's 1/sqrt(hd) scale.
void set_rope_attention_params(CaseSpec& c, int mode, int64_t n_past, int64_t hd);
// The cells of n tokens over n_seq sequences of n_ctx positions (each token's own cell).
OperandSpec cells_of(int64_t n, int64_t n_seq, int64_t n_ctx);

}  // namespace clport::ops::registry
