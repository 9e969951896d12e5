// The judge of integer mat-muls (quantized_activations.h, rounding_ties.h): a kernel that rounds
// an activation sitting on a rounding tie the other way passes; the same step anywhere else, two
// steps on the tie, or a NaN fail. Activations are written so that element 1 of each block is
// exactly on a tie (x / d = 2.5) and element 2 is far from one (x / d = 5.2); the "kernel" output
// is the CPU reference's own, computed on activations rounded with one code moved.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "ops/cpu_ops.h"
#include "common/nmse.h"
#include "conformance/conformance_operands.h"
#include "conformance/quantized_activations.h"

namespace clport::conformance::detail {
namespace {

constexpr int64_t kK = 64, kN = 40;
constexpr int64_t kTieIndex = 1, kFarIndex = 2;

OperandSpec tensor(DType dtype, std::array<int64_t, 4> ne) {
  OperandSpec o;
  o.dtype = dtype;
  o.ne = ne;
  o.scale = 0.5f;
  return o;
}

CaseSpec mat_mul_case(clport_op_kind kind) {
  CaseSpec c;
  c.op = "judge";
  c.kind = kind;
  c.src = {tensor(DType::Q8_0, {kK, kN, 1, 1}), tensor(DType::F32, {kK, 1, 1, 1})};
  if (kind != CLPORT_OP_MUL_MAT) {
    c.src.push_back(tensor(DType::F32, {kK, 1, 1, 1}));  // the norm's weight: all ones below
    c.params.eps = 1e-5f;
  }
  if (kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU) c.src.push_back(tensor(DType::Q8_0, {kK, kN, 1, 1}));
  c.dst = tensor(DType::F32, {kN, 1, 1, 1});
  c.threshold = 1e-6;
  return c;
}

void write_f32(Operand& op, const std::vector<float>& values) {
  const std::vector<int64_t> offsets = op.element_offsets();
  ASSERT_EQ(offsets.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) std::memcpy(op.initial.data() + offsets[i], &values[i], sizeof(float));
}

// Per 32-value block 127 (so d = 127 / 127 = 1 before any norm) and values whose x / d is at least
// 0.04 away from any k + 1/2; the first block's element 1 is 2.5 (on a tie; 2.3 without_tie), its
// element 2 5.2.
std::vector<float> tie_activations(bool with_tie = true) {
  std::vector<float> x(kK);
  for (int64_t i = 0; i < kK; ++i) x[i] = 0.21f * static_cast<float>(i % 7) + 0.03f;
  for (int64_t b = 0; b < kK; b += 32) x[b] = 127.0f;
  x[kTieIndex] = with_tie ? 2.5f : 2.3f;
  x[kFarIndex] = 5.2f;
  return x;
}

struct Fixture {
  CaseSpec spec;
  std::vector<Operand> src;
  Operand dst;
};

Fixture make_fixture(clport_op_kind kind, bool with_tie = true) {
  std::mt19937_64 rng(7);
  Fixture f{mat_mul_case(kind), {}, {}};
  for (const auto& s : f.spec.src) f.src.push_back(make_operand(s, false, rng));
  f.dst = make_operand(f.spec.dst, true, rng);
  write_f32(f.src[1], tie_activations(with_tie));
  if (kind != CLPORT_OP_MUL_MAT) write_f32(f.src[2], std::vector<float>(kK, 1.0f));
  return f;
}

// The case's output when activation `index` of the first block takes the code `steps` away from
// the reference's rounding (0: the reference itself), everything else rounded as the reference
// rounds it: what an integer kernel that rounded that one activation differently would give.
std::vector<float> kernel_output(Fixture& f, int64_t index, int steps) {
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<cpu::HostTensor> views;
  for (const auto& s : f.src) bytes.push_back(s.initial);
  for (size_t i = 0; i < f.src.size(); ++i) views.push_back(f.src[i].host_view(bytes[i]));
  std::vector<float> x(kK);
  const cpu::HostTensor xv = cpu::HostTensor::contiguous(DType::F32, {kK, 1, 1, 1}, x.data());
  if (f.spec.kind == CLPORT_OP_MUL_MAT) {
    const std::vector<float> given = gather_values(f.src[1], f.src[1].initial);
    std::copy(given.begin(), given.end(), x.begin());  // in place: xv views x's storage
  } else {
    cpu::OpParams p;
    p.eps = f.spec.params.eps;
    EXPECT_TRUE(cpu::run_op(CLPORT_OP_RMS_NORM, {views[1], views[2]}, xv, p).ok());
  }
  for (int64_t b = 0; b < kK; b += 32) {
    float amax = 0.0f;
    for (int64_t i = b; i < b + 32; ++i) amax = std::max(amax, std::fabs(x[i]));
    const float d = amax / 127.0f, inv = 1.0f / d;
    const float moved = b == 0 ? x[index] * inv : 0.0f;
    for (int64_t i = b; i < b + 32; ++i) x[i] = d * std::nearbyint(x[i] * inv);
    if (b == 0) {  // away from the reference's code: up when the exact value lies above it
      const float code = std::nearbyint(moved);
      x[index] = d * (code + static_cast<float>(steps) * (moved >= code ? 1.0f : -1.0f));
    }
  }
  auto mat_mul = [&](const cpu::HostTensor& w) {
    std::vector<float> out(kN);
    EXPECT_TRUE(cpu::run_op(CLPORT_OP_MUL_MAT, {w, xv}, cpu::HostTensor::contiguous(DType::F32, {kN, 1, 1, 1}, out.data()),
                            cpu::OpParams{})
                    .ok());
    return out;
  };
  std::vector<float> y = mat_mul(views[0]);
  if (f.spec.kind != CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU) return y;
  std::vector<float> up = mat_mul(views[3]), out(kN);
  const auto t = [](std::vector<float>& v) { return cpu::HostTensor::contiguous(DType::F32, {kN, 1, 1, 1}, v.data()); };
  EXPECT_TRUE(cpu::run_op(CLPORT_OP_SWIGLU, {t(y), t(up)}, t(out), cpu::OpParams{}).ok());
  return out;
}

// "" when the judge passes `have`; *nmse_quantized its measure.
std::string judge(Fixture& f, const std::vector<float>& have, double* nmse_quantized) {
  auto want = quantized_activation_reference(f.spec, f.src, f.dst);
  EXPECT_TRUE(want.ok()) << want.status().to_string();
  if (!want.ok()) return "no reference";
  bool float_bounded = false;
  return judge_quantized_activations(f.spec, 0.0, have, want.value(), nmse_quantized, &float_bounded);
}

class QuantizedJudge : public ::testing::TestWithParam<clport_op_kind> {};

TEST_P(QuantizedJudge, TheReferenceItselfPasses) {
  Fixture f = make_fixture(GetParam());
  double q = -1.0;
  EXPECT_EQ(judge(f, kernel_output(f, kTieIndex, 0), &q), "");
  EXPECT_LE(q, 1e-12);
}

TEST_P(QuantizedJudge, TheOtherCodeOnATiePasses) {
  Fixture f = make_fixture(GetParam());
  const std::vector<float> have = kernel_output(f, kTieIndex, 1);
  auto want = quantized_activation_reference(f.spec, f.src, f.dst);
  ASSERT_TRUE(want.ok());
  // The flip alone is above the bound, so the case exercises the allowance.
  EXPECT_GT(nmse(want->values.data(), have.data(), have.size()), f.spec.threshold);
  double q = -1.0;
  EXPECT_EQ(judge(f, have, &q), "");
  EXPECT_LE(q, 1e-12);
}

TEST_P(QuantizedJudge, TwoStepsOnATieFail) {
  Fixture f = make_fixture(GetParam());
  double q = -1.0;
  EXPECT_NE(judge(f, kernel_output(f, kTieIndex, 2), &q), "");
  EXPECT_GT(q, f.spec.threshold);
}

// Without a tie nothing is forgiven: one step off the reference's code fails.
TEST_P(QuantizedJudge, AStepWithNoTieNearFails) {
  Fixture f = make_fixture(GetParam(), false);
  auto want = quantized_activation_reference(f.spec, f.src, f.dst);
  ASSERT_TRUE(want.ok());
  for (float a : want->tie_allowance) EXPECT_EQ(a, 0.0f);
  double q = -1.0;
  EXPECT_NE(judge(f, kernel_output(f, kFarIndex, 1), &q), "");
  EXPECT_GT(q, f.spec.threshold);
}

// With a tie in the block, a step on another activation is forgiven only as far as the tie's
// movement would explain: part of its error still counts.
TEST_P(QuantizedJudge, AStepOffATieCountsBeyondTheAllowance) {
  Fixture f = make_fixture(GetParam());
  double q = -1.0;
  (void)judge(f, kernel_output(f, kFarIndex, 1), &q);
  EXPECT_GT(q, 1e-8);
}

TEST_P(QuantizedJudge, ANanFails) {
  Fixture f = make_fixture(GetParam());
  std::vector<float> have = kernel_output(f, kTieIndex, 1);
  have[3] = std::nanf("");
  double q = -1.0;
  EXPECT_NE(judge(f, have, &q), "");
}

INSTANTIATE_TEST_SUITE_P(Patterns, QuantizedJudge,
                         ::testing::Values(CLPORT_OP_MUL_MAT, CLPORT_OP_RMS_NORM_MUL_MAT,
                                           CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU),
                         [](const ::testing::TestParamInfo<clport_op_kind>& info) {
                           switch (info.param) {
                             case CLPORT_OP_MUL_MAT: return std::string("MulMat");
                             case CLPORT_OP_RMS_NORM_MUL_MAT: return std::string("RmsNormMulMat");
                             default: return std::string("RmsNormMulMatSwiglu");
                           }
                         });

}  // namespace
}  // namespace clport::conformance::detail
