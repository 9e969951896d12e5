// Q8_0 / Q4_0 KV caches on the CPU reference: COPY into a cache slot quantizes rows exactly as
// quantize_row does and leaves the rest of the cache alone; ATTENTION over a quantized K and / or
// V reads exactly the values those blocks decode to; KV_STORE_ROPE into a quantized joint cache
// is RoPE then that COPY; and the round trip stays within the quantization error of each type.
#include <cmath>
#include <cstring>

#include "common/nmse.h"
#include "ops_test_util.h"

namespace clport {
namespace {

using test::OwnedTensor;

constexpr int64_t kHd = 64, kHeads = 4, kKvHeads = 2, kCtx = 16;

cpu::OpParams attn_params(int n_past) {
  cpu::OpParams p;
  p.n_past = n_past;
  p.attention.scale = 1.0f / std::sqrt(static_cast<float>(kHd));
  return p;
}

// A [kHd, kKvHeads, kCtx] cache of `dtype` holding `values` (quantized row by row).
OwnedTensor cache_of(DType dtype, const std::vector<float>& values) {
  if (dtype == DType::F32) return test::f32_tensor({kHd, kKvHeads, kCtx, 1}, values);
  OwnedTensor t(dtype, {kHd, kKvHeads, kCtx, 1});
  const int64_t rb = *row_bytes(dtype, kHd);
  for (int64_t r = 0; r < kKvHeads * kCtx; ++r) {
    const Status s = quantize_row(dtype, values.data() + r * kHd, t.bytes.data() + r * rb, kHd);
    EXPECT_TRUE(s.ok()) << s.to_string();
  }
  return t;
}

// The floats a cache of any KV dtype holds, row-major.
std::vector<float> decoded(const OwnedTensor& t) {
  if (t.view.dtype == DType::F32) return t.values();
  return test::dequantized(t);
}

std::vector<float> run_attention(const OwnedTensor& q, const OwnedTensor& k, const OwnedTensor& v, int n_past) {
  OwnedTensor out(DType::F32, q.view.ne);
  const Status s = cpu::run_op(CLPORT_OP_ATTENTION, {q.view, k.view, v.view}, out.view, attn_params(n_past));
  EXPECT_TRUE(s.ok()) << s.to_string();
  return out.values();
}

class KvQuant : public testing::TestWithParam<DType> {};

TEST_P(KvQuant, CopyIntoCacheSlotQuantizesRowsAndTouchesNothingElse) {
  const DType d = GetParam();
  const int64_t rb = *row_bytes(d, kHd), n = 3, pos = 5;
  const std::vector<float> values = test::random_values(static_cast<size_t>(kHd * kKvHeads * n), 7, 2.0f);
  const OwnedTensor src = test::f32_tensor({kHd, kKvHeads, n, 1}, values);
  OwnedTensor cache(d, {kHd, kKvHeads, kCtx, 1});
  std::memset(cache.bytes.data(), 0xA5, cache.bytes.size());
  cpu::HostTensor slot = cache.view;
  slot.ne = {kHd, kKvHeads, n, 1};
  slot.data = cache.bytes.data() + pos * kKvHeads * rb;
  const Status s = cpu::run_op(CLPORT_OP_COPY, {src.view}, slot, cpu::OpParams{});
  ASSERT_TRUE(s.ok()) << s.to_string();
  std::vector<uint8_t> want(static_cast<size_t>(rb));
  for (int64_t r = 0; r < kKvHeads * kCtx; ++r) {
    const uint8_t* got = cache.bytes.data() + r * rb;
    const int64_t p = r / kKvHeads;
    if (p >= pos && p < pos + n) {
      ASSERT_TRUE(quantize_row(d, values.data() + (r - pos * kKvHeads) * kHd, want.data(), kHd).ok());
      EXPECT_EQ(0, std::memcmp(got, want.data(), want.size())) << "row " << r;
    } else {
      for (int64_t b = 0; b < rb; ++b) ASSERT_EQ(got[b], 0xA5) << "row " << r << " outside the slot was written";
    }
  }
}

TEST_P(KvQuant, AttentionReadsTheDecodedBlocks) {
  // The same keys and values as an F32 cache of the decoded numbers: identical results, for K,
  // V or both quantized (the reference decodes a row to exactly those floats first).
  const DType d = GetParam();
  const std::vector<float> qv = test::random_values(kHd * kHeads * 3, 1);
  const OwnedTensor q = test::f32_tensor({kHd, kHeads, 3, 1}, qv);
  const OwnedTensor kq = cache_of(d, test::random_values(kHd * kKvHeads * kCtx, 2));
  const OwnedTensor vq = cache_of(d, test::random_values(kHd * kKvHeads * kCtx, 3));
  const OwnedTensor kf = test::f32_tensor({kHd, kKvHeads, kCtx, 1}, decoded(kq));
  const OwnedTensor vf = test::f32_tensor({kHd, kKvHeads, kCtx, 1}, decoded(vq));
  const std::vector<float> want = run_attention(q, kf, vf, 6);
  EXPECT_EQ(run_attention(q, kq, vq, 6), want);
  EXPECT_EQ(run_attention(q, kq, vf, 6), want) << "K quantized, V F32";
  EXPECT_EQ(run_attention(q, kf, vq, 6), want) << "K F32, V quantized";
}

TEST_P(KvQuant, RoundTripStaysWithinTheQuantizationError) {
  // Attention over the quantized cache against the same attention over the unrounded floats.
  // Measured NMSE on these values: Q8_0 5.6e-5, Q4_0 1.2e-2 (each type's per-element error,
  // ~5e-5 and ~1e-2, passed through); the bounds are 4-5x that, and a decode bug (wrong nibble
  // order, a scale off) gives NMSE near 1.
  const DType d = GetParam();
  const std::vector<float> kv = test::random_values(kHd * kKvHeads * kCtx, 4), vv = test::random_values(kHd * kKvHeads * kCtx, 5);
  const OwnedTensor q = test::f32_tensor({kHd, kHeads, 4, 1}, test::random_values(kHd * kHeads * 4, 6));
  const std::vector<float> exact =
      run_attention(q, test::f32_tensor({kHd, kKvHeads, kCtx, 1}, kv), test::f32_tensor({kHd, kKvHeads, kCtx, 1}, vv), 8);
  const std::vector<float> got = run_attention(q, cache_of(d, kv), cache_of(d, vv), 8);
  const double e = nmse(exact.data(), got.data(), exact.size());
  EXPECT_LT(e, d == DType::Q8_0 ? 3e-4 : 5e-2);
  EXPECT_GT(e, 0.0) << "a quantized cache that rounds nothing was not quantized";
}

TEST_P(KvQuant, KvStoreRopeIsRopeThenQuantizedCopy) {
  const DType d = GetParam();
  const int64_t n = 2, pos = 3;
  const OwnedTensor k = test::f32_tensor({kHd, kKvHeads, n, 1}, test::random_values(kHd * kKvHeads * n, 8));
  const OwnedTensor v = test::f32_tensor({kHd, kKvHeads, n, 1}, test::random_values(kHd * kKvHeads * n, 9));
  cpu::OpParams p;
  p.n_past = pos;
  p.rope.mode = 2;
  p.rope.n_rot = kHd;
  p.rope.freq_base = 10000.0f;
  p.rope.freq_scale = 1.0f;
  OwnedTensor cache(d, {kHd, kKvHeads, kCtx, 2});
  ASSERT_TRUE(cpu::run_op(CLPORT_OP_KV_STORE_ROPE, {k.view, v.view}, cache.view, p).ok());
  OwnedTensor k_rope(DType::F32, {kHd, kKvHeads, n, 1});
  ASSERT_TRUE(cpu::run_op(CLPORT_OP_ROPE, {k.view}, k_rope.view, p).ok());
  const int64_t rb = *row_bytes(d, kHd);
  std::vector<uint8_t> want(static_cast<size_t>(rb));
  for (int64_t r = 0; r < kKvHeads * n; ++r) {
    const int64_t at = (pos * kKvHeads + r) * rb;
    ASSERT_TRUE(quantize_row(d, k_rope.f32() + r * kHd, want.data(), kHd).ok());
    EXPECT_EQ(0, std::memcmp(cache.bytes.data() + at, want.data(), want.size())) << "K row " << r;
    ASSERT_TRUE(quantize_row(d, v.values().data() + r * kHd, want.data(), kHd).ok());
    EXPECT_EQ(0, std::memcmp(cache.bytes.data() + kKvHeads * kCtx * rb + at, want.data(), want.size())) << "V row " << r;
  }
}

TEST_P(KvQuant, PartialBlockRowsAreRefused) {
  const DType d = GetParam();
  const OwnedTensor src = test::f32_tensor({48, 1, 1, 1}, test::random_values(48, 10));
  OwnedTensor dst(d, {64, 1, 1, 1});
  cpu::HostTensor bad = dst.view;
  bad.ne = {48, 1, 1, 1};
  EXPECT_FALSE(cpu::run_op(CLPORT_OP_COPY, {src.view}, bad, cpu::OpParams{}).ok());
}

INSTANTIATE_TEST_SUITE_P(Types, KvQuant, testing::Values(DType::Q8_0, DType::Q4_0),
                         [](const testing::TestParamInfo<DType>& i) { return std::string(dtype_name(i.param)); });

}  // namespace
}  // namespace clport
