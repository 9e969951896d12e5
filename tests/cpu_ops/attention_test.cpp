// ATTENTION against a naive double-precision reference: causal mask with n_past > 0, grouped-
// query heads, F32 and F16 caches, large scores, and rejected shapes.
#include <cmath>

#include "common/nmse.h"
#include "ops_test_util.h"

namespace clport {
namespace {

using test::OwnedTensor;

cpu::OpParams attn_params(int n_past, float scale) {
  cpu::OpParams p;
  p.n_past = n_past;
  p.attention.scale = scale;
  return p;
}

// q [hd, H, T], k/v [hd, Hkv, C] as float vectors in ne order.
std::vector<float> naive_attention(const std::vector<float>& q, const std::vector<float>& k,
                                   const std::vector<float>& v, int64_t hd, int64_t H, int64_t T,
                                   int64_t Hkv, int64_t C, int n_past, double scale) {
  std::vector<float> out(static_cast<size_t>(hd * H * T));
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t kv = h / (H / Hkv);
      const int64_t n_keys = n_past + t + 1;
      std::vector<double> s(static_cast<size_t>(n_keys));
      double mx = -1e300;
      for (int64_t j = 0; j < n_keys; ++j) {
        double d = 0;
        for (int64_t i = 0; i < hd; ++i)
          d += double(q[(t * H + h) * hd + i]) * k[(j * Hkv + kv) * hd + i];
        s[j] = d * scale;
        mx = std::max(mx, s[j]);
      }
      double z = 0;
      for (auto& e : s) z += (e = std::exp(e - mx));
      for (int64_t i = 0; i < hd; ++i) {
        double o = 0;
        for (int64_t j = 0; j < n_keys; ++j) o += s[j] / z * v[(j * Hkv + kv) * hd + i];
        out[(t * H + h) * hd + i] = static_cast<float>(o);
      }
      (void)C;
    }
  return out;
}

OwnedTensor cache_tensor(DType dtype, std::array<int64_t, 4> ne, const std::vector<float>& values) {
  OwnedTensor t(dtype, ne);
  EXPECT_TRUE(
      quantize_row(dtype, values.data(), t.bytes.data(), static_cast<int64_t>(values.size())).ok());
  return t;
}

TEST(Attention, FirstQueryReturnsFirstValue) {
  // With n_past = 0 the first token sees only key 0, so the output is exactly V[0].
  auto q = test::f32_tensor({2, 1, 1, 1}, {5, -3});
  auto k = test::f32_tensor({2, 1, 3, 1}, {1, 2, 3, 4, 5, 6});
  auto v = test::f32_tensor({2, 1, 3, 1}, {7, 8, 9, 10, 11, 12});
  OwnedTensor d(DType::F32, {2, 1, 1, 1});
  ASSERT_TRUE(
      test::run(CLPORT_OP_ATTENTION, {q.view, k.view, v.view}, d.view, attn_params(0, 1.0f)).ok());
  EXPECT_EQ(d.values(), (std::vector<float>{7, 8}));
}

TEST(Attention, TwoKeysHandComputed) {
  // q . k0 = 0, q . k1 = ln 3 -> weights 1/4, 3/4.
  const float l3 = std::log(3.0f);
  auto q = test::f32_tensor({2, 1, 1, 1}, {1, 0});
  auto k = test::f32_tensor({2, 1, 2, 1}, {0, 5, l3, 7});
  auto v = test::f32_tensor({2, 1, 2, 1}, {4, 0, 0, 8});
  OwnedTensor d(DType::F32, {2, 1, 1, 1});
  ASSERT_TRUE(
      test::run(CLPORT_OP_ATTENTION, {q.view, k.view, v.view}, d.view, attn_params(1, 1.0f)).ok());
  EXPECT_NEAR(d.values()[0], 1.0f, 1e-6);
  EXPECT_NEAR(d.values()[1], 6.0f, 1e-6);
}

struct Case {
  DType cache;
  int64_t hd, H, Hkv, T, C;
  int n_past;
};

class AttentionVsNaive : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionVsNaive, Matches) {
  const Case c = GetParam();
  const auto qv = test::random_values(c.hd * c.H * c.T, 21);
  auto kv_vals = test::random_values(c.hd * c.Hkv * c.C, 22);
  auto vv_vals = test::random_values(c.hd * c.Hkv * c.C, 23);
  auto q = test::f32_tensor({c.hd, c.H, c.T, 1}, qv);
  OwnedTensor k = cache_tensor(c.cache, {c.hd, c.Hkv, c.C, 1}, kv_vals);
  OwnedTensor v = cache_tensor(c.cache, {c.hd, c.Hkv, c.C, 1}, vv_vals);
  OwnedTensor d(DType::F32, {c.hd, c.H, c.T, 1});
  const float scale = 1.0f / std::sqrt(static_cast<float>(c.hd));
  const Status s = test::run(CLPORT_OP_ATTENTION, {q.view, k.view, v.view}, d.view,
                             attn_params(c.n_past, scale), 3);
  ASSERT_TRUE(s.ok()) << s.to_string();
  // The reference reads the values the cache really holds (F16-rounded for an F16 cache).
  std::vector<float> kr(kv_vals.size()), vr(vv_vals.size());
  ASSERT_TRUE(
      dequantize_row(c.cache, k.bytes.data(), kr.data(), static_cast<int64_t>(kr.size())).ok());
  ASSERT_TRUE(
      dequantize_row(c.cache, v.bytes.data(), vr.data(), static_cast<int64_t>(vr.size())).ok());
  const auto ref = naive_attention(qv, kr, vr, c.hd, c.H, c.T, c.Hkv, c.C, c.n_past, scale);
  const auto got = d.values();
  EXPECT_LT(nmse(ref.data(), got.data(), ref.size()), 1e-11);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, AttentionVsNaive,
    ::testing::Values(Case{DType::F32, 8, 4, 2, 3, 10, 4},    // GQA 2:1, n_past 4
                      Case{DType::F16, 8, 4, 2, 3, 10, 4},    // same over an F16 cache
                      Case{DType::F32, 16, 6, 1, 1, 40, 39},  // decode: one token at the end
                      Case{DType::F16, 5, 3, 3, 7, 7, 0},     // prefill, odd head_dim, MHA
                      Case{DType::F32, 64, 9, 3, 17, 64, 20}));

TEST(Attention, FutureKeysAreIgnored) {
  // Changing cache rows beyond n_past + t must not change query t's output.
  const int64_t hd = 4, C = 8;
  const int n_past = 2;
  auto q = test::f32_tensor({hd, 1, 2, 1}, test::random_values(hd * 2, 31));
  auto kv = test::random_values(hd * C, 32);
  auto vv = test::random_values(hd * C, 33);
  auto k = test::f32_tensor({hd, 1, C, 1}, kv);
  auto v = test::f32_tensor({hd, 1, C, 1}, vv);
  OwnedTensor d1(DType::F32, {hd, 1, 2, 1}), d2(DType::F32, {hd, 1, 2, 1});
  ASSERT_TRUE(
      test::run(CLPORT_OP_ATTENTION, {q.view, k.view, v.view}, d1.view, attn_params(n_past, 0.5f))
          .ok());
  for (int64_t j = n_past + 2; j < C; ++j)
    for (int64_t i = 0; i < hd; ++i) {
      k.f32()[j * hd + i] = 100.0f;
      v.f32()[j * hd + i] = -100.0f;
    }
  ASSERT_TRUE(
      test::run(CLPORT_OP_ATTENTION, {q.view, k.view, v.view}, d2.view, attn_params(n_past, 0.5f))
          .ok());
  EXPECT_EQ(d1.values(), d2.values());
}

TEST(Attention, LargeScoresStayFinite) {
  const int64_t hd = 4, C = 6;
  auto q = test::f32_tensor({hd, 1, 1, 1}, {300, 300, 300, 300});
  auto kv = test::random_values(hd * C, 41, 10.0f);
  auto k = test::f32_tensor({hd, 1, C, 1}, kv);
  auto v = test::f32_tensor({hd, 1, C, 1}, test::random_values(hd * C, 42));
  OwnedTensor d(DType::F32, {hd, 1, 1, 1});
  ASSERT_TRUE(
      test::run(CLPORT_OP_ATTENTION, {q.view, k.view, v.view}, d.view, attn_params(C - 1, 1.0f))
          .ok());
  for (float x : d.values()) EXPECT_TRUE(std::isfinite(x));
}

TEST(Attention, BadShapesAreRejected) {
  OwnedTensor q(DType::F32, {8, 4, 2, 1});
  OwnedTensor k(DType::F32, {8, 2, 6, 1});
  OwnedTensor v(DType::F32, {8, 2, 6, 1});
  OwnedTensor d(DType::F32, {8, 4, 2, 1});
  OwnedTensor k3(DType::F32, {8, 3, 6, 1}), v3(DType::F32, {8, 3, 6, 1});
  OwnedTensor k_hd(DType::F32, {4, 2, 6, 1}), v_hd(DType::F32, {4, 2, 6, 1});
  OwnedTensor v16(DType::F16, {8, 2, 6, 1});
  OwnedTensor kq(DType::Q4_1, {32, 2, 6, 1});  // a block type that is no KV cache type
  auto run = [&](const OwnedTensor& kk, const OwnedTensor& vv, int n_past) {
    return test::run(CLPORT_OP_ATTENTION, {q.view, kk.view, vv.view}, d.view,
                     attn_params(n_past, 1.0f))
        .stage();
  };
  EXPECT_EQ(run(k, v, 4), Stage::Ok);
  EXPECT_EQ(run(k, v, 5), Stage::InvalidArgument);  // 5 + 2 tokens > 6 cache slots
  EXPECT_EQ(run(k, v, -1), Stage::InvalidArgument);
  EXPECT_EQ(run(k3, v3, 0), Stage::InvalidArgument);  // 4 heads over 3 kv heads
  EXPECT_EQ(run(k_hd, v_hd, 0), Stage::InvalidArgument);
  EXPECT_EQ(run(k, v16, 0), Stage::Ok);  // K and V types may differ
  EXPECT_EQ(run(kq, kq, 0), Stage::Unsupported);
}

}  // namespace
}  // namespace clport
