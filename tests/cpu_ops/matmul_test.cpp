// MUL_MAT against a naive double-precision triple loop over the dequantized weight, for every
// weight dtype, GEMV and GEMM shapes, odd row counts, batch broadcast, and bad shapes.
#include <string>

#include "common/nmse.h"
#include "ops_test_util.h"

namespace clport {
namespace {

using test::OwnedTensor;

// dst[m][n] = sum_k act[m][k] * w[n][k]
std::vector<float> naive_matmul(const std::vector<float>& w, const std::vector<float>& act,
                                int64_t K, int64_t N, int64_t M) {
  std::vector<float> out(static_cast<size_t>(N * M));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += static_cast<double>(w[n * K + k]) * act[m * K + k];
      out[m * N + n] = static_cast<float>(s);
    }
  return out;
}

TEST(MulMat, HandComputedF32) {
  // w rows: [1, 2, 3], [4, 5, 6]; activations rows: [1, 0, -1], [2, 1, 0].
  auto w = test::f32_tensor({3, 2, 1, 1}, {1, 2, 3, 4, 5, 6});
  auto a = test::f32_tensor({3, 2, 1, 1}, {1, 0, -1, 2, 1, 0});
  OwnedTensor d(DType::F32, {2, 2, 1, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_MUL_MAT, {w.view, a.view}, d.view).ok());
  EXPECT_EQ(d.values(), (std::vector<float>{-2, -2, 4, 13}));
}

struct Shape {
  int64_t k, n, m;
};

class MulMatAllDtypes : public ::testing::TestWithParam<DType> {};

TEST_P(MulMatAllDtypes, MatchesNaiveOnDequantizedWeight) {
  const DType dtype = GetParam();
  const int64_t bs = traits(dtype).block_size;
  for (const Shape s : {Shape{bs * 2, 7, 1}, Shape{bs, 13, 5}, Shape{bs * 3, 33, 2}}) {
    const auto wf = test::random_values(static_cast<size_t>(s.k * s.n), 11);
    OwnedTensor w = test::quantized_tensor(dtype, s.k, s.n, wf);
    const auto act = test::random_values(static_cast<size_t>(s.k * s.m), 12);
    auto a = test::f32_tensor({s.k, s.m, 1, 1}, act);
    OwnedTensor d(DType::F32, {s.n, s.m, 1, 1});
    const Status st = test::run(CLPORT_OP_MUL_MAT, {w.view, a.view}, d.view, {}, 3);
    ASSERT_TRUE(st.ok()) << st.to_string();
    const auto ref = naive_matmul(test::dequantized(w), act, s.k, s.n, s.m);
    const auto got = d.values();
    EXPECT_LT(nmse(ref.data(), got.data(), ref.size()), 1e-10)
        << dtype_name(dtype) << " K=" << s.k << " N=" << s.n << " M=" << s.m;
    // And the quantized result is still close to the unquantized product (Q2_K's 2-bit codes
    // alone lose about 0.075 of the signal on random weights).
    const auto exact = naive_matmul(wf, act, s.k, s.n, s.m);
    const double bound = dtype == DType::Q2_K ? 0.12 : 0.05;
    EXPECT_LT(nmse(exact.data(), got.data(), exact.size()), bound) << dtype_name(dtype);
  }
}

INSTANTIATE_TEST_SUITE_P(Weights, MulMatAllDtypes, ::testing::ValuesIn(kWeightDTypes),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(MulMat, ThreadCountDoesNotChangeTheResult) {
  const int64_t K = 512, N = 301, M = 9;
  OwnedTensor w = test::quantized_tensor(DType::Q4_K, K, N, test::random_values(K * N, 5));
  auto a = test::f32_tensor({K, M, 1, 1}, test::random_values(K * M, 6));
  OwnedTensor d1(DType::F32, {N, M, 1, 1}), d4(DType::F32, {N, M, 1, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_MUL_MAT, {w.view, a.view}, d1.view, {}, 1).ok());
  ASSERT_TRUE(test::run(CLPORT_OP_MUL_MAT, {w.view, a.view}, d4.view, {}, 4).ok());
  EXPECT_EQ(d1.values(), d4.values());
}

TEST(MulMat, WeightBroadcastsOverActivationBatches) {
  // Weight has 2 batches, activations 4: activation batch b uses weight batch b / 2.
  const int64_t K = 32, N = 3, M = 2;
  const auto wf = test::random_values(K * N * 2, 7);
  const auto af = test::random_values(K * M * 4, 8);
  auto w = test::f32_tensor({K, N, 2, 1}, wf);
  auto a = test::f32_tensor({K, M, 4, 1}, af);
  OwnedTensor d(DType::F32, {N, M, 4, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_MUL_MAT, {w.view, a.view}, d.view).ok());
  const auto got = d.values();
  for (int64_t b = 0; b < 4; ++b) {
    const std::vector<float> wb(wf.begin() + (b / 2) * K * N, wf.begin() + (b / 2 + 1) * K * N);
    const std::vector<float> ab(af.begin() + b * K * M, af.begin() + (b + 1) * K * M);
    const auto ref = naive_matmul(wb, ab, K, N, M);
    EXPECT_LT(nmse(ref.data(), got.data() + b * N * M, ref.size()), 1e-12) << "batch " << b;
  }
}

TEST(MulMat, StridedActivationAndOutputRows) {
  // Activation rows 2*K floats apart (only the first K used) and output rows padded too.
  const int64_t K = 64, N = 5, M = 3;
  const auto wf = test::random_values(K * N, 9);
  auto w = test::f32_tensor({K, N, 1, 1}, wf);
  std::vector<float> padded(static_cast<size_t>(2 * K * M), 1e30f);
  const auto af = test::random_values(K * M, 10);
  for (int64_t m = 0; m < M; ++m)
    std::copy(af.begin() + m * K, af.begin() + (m + 1) * K, padded.begin() + m * 2 * K);
  cpu::HostTensor a = cpu::HostTensor::contiguous(DType::F32, {K, M, 1, 1}, padded.data());
  a.nb[1] = 2 * K * 4;
  a.nb[2] = a.nb[3] = a.nb[1] * M;
  std::vector<float> out(static_cast<size_t>(8 * M), -7.0f);
  cpu::HostTensor d = cpu::HostTensor::contiguous(DType::F32, {N, M, 1, 1}, out.data());
  d.nb[1] = 8 * 4;
  d.nb[2] = d.nb[3] = d.nb[1] * M;
  ASSERT_TRUE(test::run(CLPORT_OP_MUL_MAT, {w.view, a}, d).ok());
  const auto ref = naive_matmul(wf, af, K, N, M);
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) EXPECT_NEAR(out[m * 8 + n], ref[m * N + n], 1e-4);
    for (int64_t n = N; n < 8; ++n) EXPECT_EQ(out[m * 8 + n], -7.0f) << "padding written";
  }
}

TEST(MulMat, BadShapesAndTypesAreRejected) {
  OwnedTensor w = test::quantized_tensor(DType::Q8_0, 64, 4, test::random_values(256, 1));
  OwnedTensor a(DType::F32, {64, 2, 1, 1});
  OwnedTensor d(DType::F32, {4, 2, 1, 1});
  OwnedTensor a_bad_k(DType::F32, {32, 2, 1, 1});
  OwnedTensor d_bad(DType::F32, {2, 4, 1, 1});
  OwnedTensor i32_w(DType::I32, {64, 4, 1, 1});
  EXPECT_EQ(test::run(CLPORT_OP_MUL_MAT, {w.view, a_bad_k.view}, d.view).stage(),
            Stage::InvalidArgument);
  EXPECT_EQ(test::run(CLPORT_OP_MUL_MAT, {w.view, a.view}, d_bad.view).stage(),
            Stage::InvalidArgument);
  EXPECT_EQ(test::run(CLPORT_OP_MUL_MAT, {i32_w.view, a.view}, d.view).stage(), Stage::Unsupported);
  EXPECT_EQ(test::run(CLPORT_OP_MUL_MAT, {w.view}, d.view).stage(), Stage::InvalidArgument);
  // A Q8_0 weight whose rows are not a whole number of blocks.
  cpu::HostTensor odd = w.view;
  odd.ne[0] = 48;
  OwnedTensor a48(DType::F32, {48, 2, 1, 1});
  const Status s = test::run(CLPORT_OP_MUL_MAT, {odd, a48.view}, d.view);
  EXPECT_EQ(s.stage(), Stage::InvalidArgument);
  EXPECT_NE(s.message().find("block size"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace clport
