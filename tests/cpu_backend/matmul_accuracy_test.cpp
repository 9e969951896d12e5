// MUL_MAT on the fast CPU backend, for every weight dtype, GEMV and multi-row shapes (K not a
// multiple of 256 for the 32-value formats), on every SIMD target this CPU supports:
//  - within NMSE 5e-4 of the exact F32 reference (what 8-bit activations may cost),
//  - within NMSE 1e-6 of the plain scalar product over the same 8-bit activations (anything more
//    is a kernel bug, not rounding),
//  - precision fp32 (float activations) as exact as the reference.
#include <hwy/targets.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <string>

#include "common/nmse.h"
#include "cpu_backend/scalar_reference.h"
#include "cpu_backend/simd_kernels.h"
#include "fast_cpu_test_util.h"

namespace clport {
namespace {

using test::OwnedTensor;

struct Shape {
  int64_t k, n, m;
};

std::vector<Shape> shapes_for(DType dtype) {
  if (traits(dtype).block_size == 256) {
    return {{256, 7, 1}, {768, 33, 1}, {512, 19, 5}, {256, 40, 9}};
  }
  // 576 and 1536 are SmolLM2's hidden and FFN sizes; 576 is not a multiple of 256.
  return {{32, 5, 1}, {576, 33, 1}, {96, 17, 6}, {576, 20, 9}, {1536, 9, 2}, {576, 37, 4}};
}

// The activation rows quantized as the fast backend quantizes them.
std::vector<uint8_t> quantize_rows(DType weight, const std::vector<float>& x, int64_t k, int64_t m,
                                   int64_t* row_bytes) {
  const auto layout = fastcpu::activation_layout(weight);
  *row_bytes = fastcpu::activation_row_bytes(layout, k);
  std::vector<uint8_t> out(static_cast<size_t>(*row_bytes * m));
  for (int64_t r = 0; r < m; ++r) {
    uint8_t* row = out.data() + r * *row_bytes;
    if (layout == fastcpu::ActivationLayout::kQ8BlockK) {
      fastcpu::quantize_row_q8_block_k(x.data() + r * k, k,
                                       reinterpret_cast<fastcpu::Q8BlockK*>(row));
    } else {
      fastcpu::quantize_row_q8_block32(x.data() + r * k, k,
                                       reinterpret_cast<fastcpu::Q8Block32*>(row));
    }
  }
  return out;
}

struct Case {
  OwnedTensor w, a, want_f32;
  std::vector<float> act;
  Shape s;
};

// outliers: every 97th activation 8x larger, as real hidden states have a few large channels.
Case make_case(DType dtype, Shape s, unsigned seed, bool outliers) {
  Case c{test::quantized_tensor(dtype, s.k, s.n,
                                test::random_values(static_cast<size_t>(s.k * s.n), seed)),
         OwnedTensor(DType::F32, {s.k, s.m, 1, 1}), OwnedTensor(DType::F32, {s.n, s.m, 1, 1}),
         test::random_values(static_cast<size_t>(s.k * s.m), seed + 1), s};
  if (outliers) {
    for (size_t i = 0; i < c.act.size(); i += 97) c.act[i] *= 8.0f;
  }
  std::copy(c.act.begin(), c.act.end(), c.a.f32());
  auto reference = make_cpu_backend(1);
  const Status st = test::run_on(*reference, CLPORT_OP_MUL_MAT, {&c.w, &c.a}, c.want_f32);
  EXPECT_TRUE(st.ok()) << st.to_string();
  return c;
}

std::string label(DType dtype, Shape s) {
  return std::string(dtype_name(dtype)) + " K=" + std::to_string(s.k) +
         " N=" + std::to_string(s.n) + " M=" + std::to_string(s.m);
}

class FastMulMat : public ::testing::TestWithParam<DType> {
 protected:
  void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

TEST_P(FastMulMat, QuantizedActivationsOnEveryTarget) {
  const DType dtype = GetParam();
  // Dtypes with an integer kernel quantize the activations; the rest keep float activations.
  const bool quantized = fastcpu::activation_layout(dtype) != fastcpu::ActivationLayout::kNone;
  unsigned seed = 100;
  for (const bool outliers : {false, true}) {
    for (const Shape s : shapes_for(dtype)) {
      const Case c = make_case(dtype, s, seed += 2, outliers);
      int64_t act_row_bytes = 0;
      std::vector<float> want_q8(static_cast<size_t>(s.n * s.m));
      if (quantized) {
        const auto q = quantize_rows(dtype, c.act, s.k, s.m, &act_row_bytes);
        fastcpu::scalar_dot_tile_quantized(dtype, s.k, static_cast<const uint8_t*>(c.w.view.data),
                                           c.w.view.nb[1], s.n, q.data(), act_row_bytes, s.m,
                                           want_q8.data(), s.n);
      }
      const auto targets = fastcpu::simd_targets_available();
      ASSERT_FALSE(targets.empty());
      for (const int64_t target : targets) {
        hwy::SetSupportedTargetsForTest(target);
        ASSERT_EQ(fastcpu::simd_target_name(), hwy::TargetName(target));
        for (const int threads : {1, 2}) {
          auto fast = make_fast_cpu_backend(threads);
          OwnedTensor got(DType::F32, {s.n, s.m, 1, 1});
          const Status st = test::run_on(*fast, CLPORT_OP_MUL_MAT, {&c.w, &c.a}, got);
          ASSERT_TRUE(st.ok()) << st.to_string();
          const auto values = got.values();
          const std::string where = label(dtype, s) + (outliers ? " with outliers" : "") + " on " +
                                    hwy::TargetName(target) + ", " + std::to_string(threads) +
                                    " threads";
          const double vs_f32 = nmse(c.want_f32.values().data(), values.data(), values.size());
          if (quantized) {
            // An 8x outlier coarsens its whole block's scale: that costs accuracy by design (as
            // in llama.cpp), so the 5e-4 bound is for plain random activations.
            EXPECT_LT(vs_f32, outliers ? 5e-3 : 5e-4) << where;
            EXPECT_LT(nmse(want_q8.data(), values.data(), values.size()), 1e-6) << where;
          } else {
            EXPECT_LT(vs_f32, 1e-10) << where;  // float activations: the reference's products
          }
        }
      }
      hwy::SetSupportedTargetsForTest(0);
    }
  }
}

TEST_P(FastMulMat, FloatActivationsMatchTheReference) {
  const DType dtype = GetParam();
  unsigned seed = 300;
  for (const Shape s : shapes_for(dtype)) {
    const Case c = make_case(dtype, s, seed += 2, true);
    FastCpuOptions options;
    options.n_threads = 2;
    options.float_activations = true;
    auto fast = make_fast_cpu_backend(options);
    OwnedTensor got(DType::F32, {s.n, s.m, 1, 1});
    const Status st = test::run_on(*fast, CLPORT_OP_MUL_MAT, {&c.w, &c.a}, got);
    ASSERT_TRUE(st.ok()) << st.to_string();
    const auto values = got.values();
    EXPECT_LT(nmse(c.want_f32.values().data(), values.data(), values.size()), 1e-10)
        << label(dtype, s);
  }
}

INSTANTIATE_TEST_SUITE_P(Weights, FastMulMat, ::testing::ValuesIn(kWeightDTypes),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// The prompt kernels (16 weight rows per AVX-512 vector), called directly on every target that
// has them, with and without AVX512-VNNI's multiply-add, against the scalar product over the
// same 8-bit activations: tail tiles of fewer than 16 weight rows, activation row counts that
// are not multiples of 4.
TEST(FastMulMatPrompt, KernelsMatchTheScalarProduct) {
  int tested = 0;
  for (const int64_t target : fastcpu::simd_targets_available()) {
    hwy::SetSupportedTargetsForTest(target);
    for (const DType dtype : kWeightDTypes) {
      const int64_t sub = fastcpu::prompt_sub_values(dtype);
      if (sub == 0) continue;
      const bool k_quant = traits(dtype).block_size == 256;
      for (const Shape s : {Shape{k_quant ? 512 : 96, 37, 11}, Shape{k_quant ? 256 : 640, 16, 4}}) {
        const Case c = make_case(dtype, s, 500 + static_cast<unsigned>(s.m), true);
        int64_t act_row_bytes = 0;
        const auto q = quantize_rows(dtype, c.act, s.k, s.m, &act_row_bytes);
        const auto* w = static_cast<const uint8_t*>(c.w.view.data);
        std::vector<float> want(static_cast<size_t>(s.n * s.m)), got(want.size());
        fastcpu::scalar_dot_tile_quantized(dtype, s.k, w, c.w.view.nb[1], s.n, q.data(), act_row_bytes,
                                           s.m, want.data(), s.n);
        std::vector<float> sums(static_cast<size_t>(s.m * (s.k / sub)));
        fastcpu::prompt_activation_sums(dtype, s.k, q.data(), act_row_bytes, s.m, sums.data());
        for (const bool vnni : {true, false}) {
          fastcpu::set_prompt_vnni_allowed(vnni);
          std::fill(got.begin(), got.end(), 0.0f);
          fastcpu::dot_tile_quantized_prompt(dtype, s.k, w, c.w.view.nb[1], s.n, q.data(), act_row_bytes,
                                             s.m, k_quant ? sums.data() : nullptr, got.data(), s.n);
          EXPECT_LT(nmse(want.data(), got.data(), want.size()), 1e-6)
              << label(dtype, s) << " on " << hwy::TargetName(target) << (vnni ? "" : " without VNNI");
          ++tested;
        }
        fastcpu::set_prompt_vnni_allowed(true);
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  std::cout << "prompt kernel cases: " << tested << "\n";
}

// The four-row decode kernels against the scalar product over the same 8-bit activations: one
// block (no even / odd pair), an odd block count, a tail tile of fewer than 16 weight rows, row
// counts that are not multiples of four; with and without AVX512-VNNI. The integer sums are
// exact, so only float summation order differs from the scalar product, and none between a row
// run alone, in a group, or through the prompt kernels.
TEST(FastMulMatRows4, KernelsMatchTheScalarProduct) {
  int tested = 0;
  for (const int64_t target : fastcpu::simd_targets_available()) {
    hwy::SetSupportedTargetsForTest(target);
    for (const DType dtype : kWeightDTypes) {
      if (!fastcpu::rows4_supported(dtype)) continue;
      for (const Shape s :
           {Shape{32, 5, 4}, Shape{576, 16, 4}, Shape{1504, 11, 7}, Shape{96, 9, 1}, Shape{64, 3, 2}, Shape{160, 21, 13}}) {
        const Case c = make_case(dtype, s, 700 + static_cast<unsigned>(s.k), true);
        int64_t act_row_bytes = 0;
        const auto q = quantize_rows(dtype, c.act, s.k, s.m, &act_row_bytes);
        const auto* w = static_cast<const uint8_t*>(c.w.view.data);
        std::vector<float> want(static_cast<size_t>(s.n * s.m)), got(want.size());
        fastcpu::scalar_dot_tile_quantized(dtype, s.k, w, c.w.view.nb[1], s.n, q.data(), act_row_bytes,
                                           s.m, want.data(), s.n);
        for (const bool vnni : {true, false}) {
          fastcpu::set_rows4_vnni_allowed(vnni);
          std::fill(got.begin(), got.end(), 0.0f);
          fastcpu::dot_tile_quantized_rows4(dtype, s.k, w, c.w.view.nb[1], s.n, q.data(), act_row_bytes, s.m,
                                            got.data(), s.n);
          const std::string where = label(dtype, s) + " on " + hwy::TargetName(target) + (vnni ? "" : " without VNNI");
          EXPECT_LT(nmse(want.data(), got.data(), want.size()), 1e-10) << where;
          // Each row alone gives the same bits as in the group (what keeps a sequence's logits
          // independent of the others in its decode step).
          for (int64_t r = 0; r < s.m; ++r) {
            std::vector<float> alone(static_cast<size_t>(s.n));
            fastcpu::dot_tile_quantized_rows4(dtype, s.k, w, c.w.view.nb[1], s.n, q.data() + r * act_row_bytes,
                                              act_row_bytes, 1, alone.data(), s.n);
            EXPECT_EQ(std::memcmp(alone.data(), got.data() + r * s.n, alone.size() * sizeof(float)), 0)
                << where << " row " << r;
          }
          // The prompt kernels' rows are the same bits too, where the target has them.
          if (fastcpu::prompt_sub_values(dtype) == 32) {
            std::vector<float> prompt(got.size());
            fastcpu::set_prompt_vnni_allowed(vnni);
            fastcpu::dot_tile_quantized_prompt(dtype, s.k, w, c.w.view.nb[1], s.n, q.data(), act_row_bytes, s.m,
                                               nullptr, prompt.data(), s.n);
            fastcpu::set_prompt_vnni_allowed(true);
            EXPECT_EQ(std::memcmp(prompt.data(), got.data(), got.size() * sizeof(float)), 0) << where << " vs prompt";
          }
          ++tested;
        }
        fastcpu::set_rows4_vnni_allowed(true);
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  std::cout << "four-row kernel cases: " << tested << "\n";
}

// The 8-bit activation blocks: codes within [-127, 127], every value within half a step of
// d * q, the block sums as documented.
TEST(ActivationQuantization, BlocksHoldTheRoundedValues) {
  const int64_t k = 512;
  auto x = test::random_values(k, 7);
  x[3] = 40.0f;  // one outlier sets its block's scale
  for (int i = 256; i < 288; ++i) x[static_cast<size_t>(i)] = 0.0f;  // an all-zero 32-block
  std::vector<fastcpu::Q8Block32> b32(k / 32);
  std::vector<fastcpu::Q8BlockK> bk(k / 256);
  for (const int64_t target : fastcpu::simd_targets_available()) {
    hwy::SetSupportedTargetsForTest(target);
    fastcpu::quantize_row_q8_block32(x.data(), k, b32.data());
    fastcpu::quantize_row_q8_block_k(x.data(), k, bk.data());
    for (int64_t i = 0; i < k; ++i) {
      const auto& b = b32[static_cast<size_t>(i / 32)];
      const int q = b.qs[i % 32];
      ASSERT_LE(std::abs(q), 127);
      EXPECT_LE(std::fabs(x[static_cast<size_t>(i)] - b.d * q), 0.5f * b.d * 1.0001f + 1e-30f)
          << "value " << i << " on " << hwy::TargetName(target);
      const auto& kb = bk[static_cast<size_t>(i / 256)];
      EXPECT_LE(std::fabs(x[static_cast<size_t>(i)] - kb.d * kb.qs[i % 256]), 0.5f * kb.d * 1.0001f)
          << "value " << i << " on " << hwy::TargetName(target);
    }
    for (const auto& b : b32) {
      int sum = 0;
      for (int8_t q : b.qs) sum += q;
      EXPECT_FLOAT_EQ(b.s, b.d * static_cast<float>(sum));
    }
    EXPECT_EQ(b32[8].d, 0.0f);  // the all-zero block
    for (const auto& b : bk) {
      for (int j = 0; j < 16; ++j) {
        int sum = 0;
        for (int l = 0; l < 16; ++l) sum += b.qs[16 * j + l];
        EXPECT_EQ(b.bsums[j], sum);
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(FastMulMatShapes, StridedRowsAndBatchesMatchTheReference) {
  // Weight with 2 batches broadcast over 4 activation batches; activation and output rows
  // padded, as views of larger buffers are.
  const int64_t K = 64, N = 5, M = 3;
  OwnedTensor w = test::quantized_tensor(DType::Q8_0, K, N * 2, test::random_values(K * N * 2, 3));
  w.view.ne = {K, N, 2, 1};
  w.view.nb[2] = w.view.nb[1] * N;
  w.view.nb[3] = w.view.nb[2] * 2;
  OwnedTensor a(DType::F32, {2 * K, M, 4, 1});
  const auto af = test::random_values(static_cast<size_t>(2 * K * M * 4), 4);
  std::copy(af.begin(), af.end(), a.f32());
  a.view.ne = {K, M, 4, 1};  // rows 2K floats apart
  OwnedTensor want(DType::F32, {8, M, 4, 1}), got(DType::F32, {8, M, 4, 1});
  want.view.ne = got.view.ne = {N, M, 4, 1};  // output rows padded to 8
  auto reference = make_cpu_backend(1);
  auto fast = make_fast_cpu_backend(2);
  ASSERT_TRUE(test::run_on(*reference, CLPORT_OP_MUL_MAT, {&w, &a}, want).ok());
  const Status st = test::run_on(*fast, CLPORT_OP_MUL_MAT, {&w, &a}, got);
  ASSERT_TRUE(st.ok()) << st.to_string();
  const auto g = got.values(), r = want.values();
  EXPECT_LT(nmse(r.data(), g.data(), r.size()), 5e-4);
  for (size_t i = 0; i < g.size(); ++i) {
    if (i % 8 >= static_cast<size_t>(N)) {
      EXPECT_EQ(g[i], 0.0f) << "padding written at " << i;
    }
  }
}

TEST(FastMulMatShapes, BadOperandsGetTheReferenceErrors) {
  auto fast = make_fast_cpu_backend(2);
  OwnedTensor w = test::quantized_tensor(DType::Q4_0, 64, 4, test::random_values(256, 1));
  OwnedTensor a(DType::F32, {64, 2, 1, 1}), d(DType::F32, {4, 2, 1, 1});
  OwnedTensor a_bad(DType::F32, {32, 2, 1, 1}), d_bad(DType::F32, {2, 4, 1, 1});
  OwnedTensor i32_w(DType::I32, {64, 4, 1, 1});
  EXPECT_EQ(test::run_on(*fast, CLPORT_OP_MUL_MAT, {&w, &a_bad}, d).stage(),
            Stage::InvalidArgument);
  EXPECT_EQ(test::run_on(*fast, CLPORT_OP_MUL_MAT, {&w, &a}, d_bad).stage(),
            Stage::InvalidArgument);
  EXPECT_EQ(test::run_on(*fast, CLPORT_OP_MUL_MAT, {&i32_w, &a}, d).stage(), Stage::Unsupported);
  EXPECT_EQ(test::run_on(*fast, CLPORT_OP_MUL_MAT, {&w}, d).stage(), Stage::InvalidArgument);
}

// The start-up check (kernel_self_check.cpp) finds this CPU's kernels correct, so the backend
// keeps the best instruction set the CPU has.
TEST(FastMulMatSelfCheck, KeepsTheBestTarget) {
  hwy::SetSupportedTargetsForTest(0);
  const auto targets = fastcpu::simd_targets_available();
  ASSERT_FALSE(targets.empty());
  auto fast = make_fast_cpu_backend(1);
  EXPECT_EQ(fastcpu::simd_target_name(), hwy::TargetName(targets.front()));
  EXPECT_EQ(fastcpu::simd_targets_available(), targets);
}

// Which instruction sets run here, printed for the log (the aarch64 CI run under qemu shows which
// of NEON / SVE / SVE2 it covered). On 64-bit ARM the mat-mul kernels must be the NEON ones
// (SVE is left out of them, and the EMU128 fallback would mean no SIMD was tested).
TEST(FastCpuTargets, NamesTheInstructionSetsInUse) {
  hwy::SetSupportedTargetsForTest(0);
  const std::string matmul = fastcpu::simd_target_name();
  const std::string ops = fastcpu::simd_op_target_name();
  std::cout << "SIMD targets: mat-mul kernels " << matmul << ", op kernels " << ops << "\n";
  EXPECT_FALSE(ops.empty());
#if HWY_ARCH_ARM_A64
  EXPECT_EQ(matmul, "NEON");
#endif
}

}  // namespace
}  // namespace clport
