#include "rounding_ties.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "ops/cpu_ops.h"
#include "quant/quant.h"
#include "cpu_backend/activation_blocks.h"

namespace clport::conformance::detail {
namespace {

using cpu::HostTensor;

// silu(g) = g / (1 + e^-g), its slope, and where the slope peaks (1.0998 at g = 2.3994) and
// bottoms out (-0.0998 at g = -2.3994).
double silu(double g) { return g / (1.0 + std::exp(-g)); }
double silu_slope(double g) {
  const double s = 1.0 / (1.0 + std::exp(-g));
  return s * (1.0 + g * (1.0 - s));
}
constexpr double kSiluSlopeTurn = 2.3994;

// The largest |silu'| over [g - a, g + a].
double silu_slope_bound(double g, double a) {
  double most = std::max(std::fabs(silu_slope(g - a)), std::fabs(silu_slope(g + a)));
  for (double turn : {kSiluSlopeTurn, -kSiluSlopeTurn})
    if (g - a <= turn && turn <= g + a) most = std::max(most, std::fabs(silu_slope(turn)));
  return most;
}

const uint8_t* element_at(const HostTensor& t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  return static_cast<const uint8_t*>(t.data) + i0 * t.nb[0] + i1 * t.nb[1] + i2 * t.nb[2] + i3 * t.nb[3];
}

// The activations as the reference's mat-mul takes them, contiguous: src1 itself, or src1
// through the RMSNorm with weight src2 for the patterns that put one in front.
Status reference_activations(const CaseSpec& spec, const std::vector<HostTensor>& views, std::vector<float>& out) {
  const HostTensor& a = views[1];
  out.assign(static_cast<size_t>(a.elements()), 0.0f);
  const HostTensor x = HostTensor::contiguous(DType::F32, a.ne, out.data());
  if (spec.kind == CLPORT_OP_RMS_NORM_MUL_MAT || spec.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU) {
    cpu::OpParams p;
    p.eps = spec.params.eps;
    return cpu::run_op(CLPORT_OP_RMS_NORM, {a, views[2]}, x, p);
  }
  float* o = out.data();
  for (int64_t i3 = 0; i3 < a.ne[3]; ++i3)
    for (int64_t i2 = 0; i2 < a.ne[2]; ++i2)
      for (int64_t i1 = 0; i1 < a.ne[1]; ++i1)
        for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) std::memcpy(o++, element_at(a, i0, i1, i2, i3), sizeof(float));
  return Status();
}

// d for every activation on a rounding tie of its block, 0 for the others.
std::vector<float> tie_steps(const std::vector<float>& x, int64_t K, int64_t block) {
  std::vector<float> steps(x.size(), 0.0f);
  for (size_t row = 0; row < x.size(); row += static_cast<size_t>(K))
    for (int64_t b = 0; b < K; b += block) {
      const float* v = x.data() + row + b;
      float amax = 0.0f;
      for (int64_t i = 0; i < block; ++i) amax = std::max(amax, std::fabs(v[i]));
      const float d = amax / 127.0f, inv = d != 0.0f ? 1.0f / d : 0.0f;
      for (int64_t i = 0; i < block; ++i) {
        const double t = static_cast<double>(v[i]) * inv;
        const double from_tie = std::fabs(t - std::floor(t) - 0.5);
        if (from_tie <= kTieUlps * FLT_EPSILON * std::max(1.0, std::fabs(t))) steps[row + b + i] = d;
      }
    }
  return steps;
}

// |w| of a weight view, dequantized, contiguous.
std::vector<float> absolute_weights(const HostTensor& w) {
  std::vector<float> out(static_cast<size_t>(w.elements()));
  float* o = out.data();
  for (int64_t i3 = 0; i3 < w.ne[3]; ++i3)
    for (int64_t i2 = 0; i2 < w.ne[2]; ++i2)
      for (int64_t i1 = 0; i1 < w.ne[1]; ++i1, o += w.ne[0]) {
        // Whole blocks by construction (the case passed the reference's own checks).
        (void)dequantize_row(w.dtype, element_at(w, 0, i1, i2, i3), o, w.ne[0]);
        for (int64_t i = 0; i < w.ne[0]; ++i) o[i] = std::fabs(o[i]);
      }
  return out;
}

// dst[N, M, ...] = x[K, M, ...] times w[K, N, ...]^T on the CPU reference (float or on rounded
// activations).
Status reference_mat_mul(const HostTensor& w, std::vector<float>& x, const HostTensor& a, const std::array<int64_t, 4>& dst_ne,
               bool quantized, std::vector<float>& out) {
  out.assign(static_cast<size_t>(dst_ne[0] * dst_ne[1] * dst_ne[2] * dst_ne[3]), 0.0f);
  cpu::OpParams p;
  p.quantized_activations = quantized;
  return cpu::run_op(CLPORT_OP_MUL_MAT, {w, HostTensor::contiguous(DType::F32, a.ne, x.data())},
                     HostTensor::contiguous(DType::F32, dst_ne, out.data()), p);
}

// The movement of w . x when the tie activations each move by their step: |w| . steps.
Status tie_movement(const HostTensor& w, std::vector<float>& steps, const HostTensor& a,
                const std::array<int64_t, 4>& dst_ne, std::vector<float>& out) {
  std::vector<float> magnitudes = absolute_weights(w);
  return reference_mat_mul(HostTensor::contiguous(DType::F32, w.ne, magnitudes.data()), steps, a, dst_ne, false, out);
}

}  // namespace

Result<std::vector<float>> rounding_tie_allowance(const CaseSpec& spec, const std::vector<Operand>& src,
                                                  const Operand& dst) {
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<HostTensor> views;
  for (const auto& s : src) bytes.push_back(s.initial);
  for (size_t i = 0; i < src.size(); ++i) views.push_back(src[i].host_view(bytes[i]));
  const HostTensor& w = views[0];
  const HostTensor& a = views[1];
  const int64_t block = fastcpu::activation_block_values(fastcpu::activation_layout(w.dtype));
  if (block == 0 || a.ne[0] % block != 0)
    return Status(Stage::Internal, "rounding ties: the case's weights take no 8-bit activations");
  std::vector<float> x;
  CLPORT_RETURN_IF_ERROR(reference_activations(spec, views, x));
  std::vector<float> steps = tie_steps(x, a.ne[0], block);
  const std::array<int64_t, 4> dst_ne = dst.spec.ne;
  std::vector<float> allowance;
  if (std::all_of(steps.begin(), steps.end(), [](float s) { return s == 0.0f; })) {
    allowance.assign(static_cast<size_t>(dst_ne[0] * dst_ne[1] * dst_ne[2] * dst_ne[3]), 0.0f);
    return allowance;
  }
  CLPORT_RETURN_IF_ERROR(tie_movement(w, steps, a, dst_ne, allowance));
  if (spec.kind != CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU) return allowance;

  // silu(g) u with g and u each moved by up to their allowance A_g, A_u:
  // |silu(g') u' - silu(g) u| <= max|silu'| A_g (|u| + A_u) + |silu(g)| A_u, the slope's largest
  // magnitude taken over g +- A_g.
  const HostTensor& w_up = views[3];
  std::vector<float> up_allowance, gate, up;
  CLPORT_RETURN_IF_ERROR(tie_movement(w_up, steps, a, dst_ne, up_allowance));
  CLPORT_RETURN_IF_ERROR(reference_mat_mul(w, x, a, dst_ne, true, gate));
  CLPORT_RETURN_IF_ERROR(reference_mat_mul(w_up, x, a, dst_ne, true, up));
  for (size_t i = 0; i < allowance.size(); ++i) {
    const double a_gate = allowance[i], a_up = up_allowance[i];
    allowance[i] = static_cast<float>(silu_slope_bound(gate[i], a_gate) * a_gate * (std::fabs(up[i]) + a_up) +
                                      std::fabs(silu(gate[i])) * a_up);
  }
  return allowance;
}

}  // namespace clport::conformance::detail
