// The ops decode needs besides MUL_MAT, on the fast CPU backend against the CPU reference, with
// SmolLM2's shapes (hidden 576, 9 heads of 64, 3 KV heads) for one token and for a prompt batch:
// element-wise ops and copies bit-exact, reductions within NMSE 1e-10. An op kind the fast
// backend does not run itself still works (it is handed to the reference).
#include <cmath>
#include <string>
#include <tuple>
#include <utility>

#include "fast_cpu_test_util.h"

namespace clport {
namespace {

using test::OwnedTensor;
using test::compare;
using test::random_f32;

class FastOps : public ::testing::TestWithParam<int64_t> {};  // parameter: tokens in the batch

TEST_P(FastOps, RmsNorm) {
  const int64_t T = GetParam();
  auto x = random_f32({576, T, 1, 1}, 1);
  auto w = random_f32({576, 1, 1, 1}, 2);
  OwnedTensor dst(DType::F32, {576, T, 1, 1});
  EXPECT_LT(compare(CLPORT_OP_RMS_NORM, {&x, &w}, dst, test::params_eps(1e-5f)), 1e-12);
  EXPECT_LT(compare(CLPORT_OP_RMS_NORM, {&x}, dst, test::params_eps(1e-5f)), 1e-12);
}

TEST_P(FastOps, RopeBothModes) {
  const int64_t T = GetParam();
  auto x = random_f32({64, 9, T, 1}, 3);
  OwnedTensor dst(DType::F32, {64, 9, T, 1});
  for (const int mode : {0, 2}) {
    cpu::OpParams p;
    p.n_past = 37;
    p.rope = clport_rope_params{mode, 64, 100000.0f, 1.0f};
    EXPECT_EQ(compare(CLPORT_OP_ROPE, {&x}, dst, p), 0.0) << "mode " << mode;
    p.rope.n_rot = 32;  // partial rotation
    EXPECT_EQ(compare(CLPORT_OP_ROPE, {&x}, dst, p), 0.0) << "mode " << mode << " n_rot 32";
  }
}

// Head sizes and groups: 3 query heads of 64 per KV head, and 5 of 88 (the kernel takes query
// heads four at a time and head vectors two at a time: both leave remainders, and 88 values a
// scalar tail on 16-lane targets).
TEST_P(FastOps, AttentionOverF16AndF32Caches) {
  const int64_t T = GetParam();
  const int64_t n_ctx = 160;
  const int n_past = 100;
  for (const auto& [hd, heads, kv_heads] :
       {std::tuple<int64_t, int64_t, int64_t>{64, 9, 3}, {88, 10, 2}}) {
    auto q = random_f32({hd, heads, T, 1}, 4);
    for (const DType cache : {DType::F16, DType::F32}) {
      OwnedTensor k(cache, {hd, kv_heads, n_ctx, 1}), v(cache, {hd, kv_heads, n_ctx, 1});
      const auto kv = test::random_values(static_cast<size_t>(hd * kv_heads * n_ctx), 5);
      const auto vv = test::random_values(static_cast<size_t>(hd * kv_heads * n_ctx), 6);
      ASSERT_TRUE(
          quantize_row(cache, kv.data(), k.bytes.data(), static_cast<int64_t>(kv.size())).ok());
      ASSERT_TRUE(
          quantize_row(cache, vv.data(), v.bytes.data(), static_cast<int64_t>(vv.size())).ok());
      OwnedTensor dst(DType::F32, {hd, heads, T, 1});
      cpu::OpParams p;
      p.n_past = n_past;
      p.attention.scale = 0.125f;
      const std::string where = std::string(dtype_name(cache)) + " head_dim " + std::to_string(hd);
      EXPECT_LT(compare(CLPORT_OP_ATTENTION, {&q, &k, &v}, dst, p), 1e-10) << where;
      p.attention.window = 7;  // a sliding window of the last 7 positions
      EXPECT_LT(compare(CLPORT_OP_ATTENTION, {&q, &k, &v}, dst, p), 1e-10) << where << " window";
    }
  }
}

// Q8_0 / Q4_0 caches, and K and V of different types (the fast backend decodes a quantized
// cache once per call, then runs its float rows): the same numbers as the reference up to float
// summation order.
TEST_P(FastOps, AttentionOverQuantizedAndMixedCaches) {
  const int64_t T = GetParam();
  const int64_t n_ctx = 160;
  auto q = random_f32({64, 9, T, 1}, 14);
  const std::pair<DType, DType> pairs[] = {{DType::Q8_0, DType::Q8_0}, {DType::Q4_0, DType::Q4_0},
                                           {DType::Q8_0, DType::F16},  {DType::F16, DType::Q4_0},
                                           {DType::F32, DType::Q8_0},  {DType::F16, DType::F32}};
  for (const auto& [kt, vt] : pairs) {
    OwnedTensor k(kt, {64, 3, n_ctx, 1}), v(vt, {64, 3, n_ctx, 1});
    const auto kv = test::random_values(static_cast<size_t>(64 * 3 * n_ctx), 15);
    const auto vv = test::random_values(static_cast<size_t>(64 * 3 * n_ctx), 16);
    ASSERT_TRUE(quantize_row(kt, kv.data(), k.bytes.data(), static_cast<int64_t>(kv.size())).ok());
    ASSERT_TRUE(quantize_row(vt, vv.data(), v.bytes.data(), static_cast<int64_t>(vv.size())).ok());
    OwnedTensor dst(DType::F32, {64, 9, T, 1});
    cpu::OpParams p;
    p.n_past = 100;
    p.attention.scale = 0.125f;
    const std::string types = std::string(dtype_name(kt)) + "/" + std::string(dtype_name(vt));
    EXPECT_LT(compare(CLPORT_OP_ATTENTION, {&q, &k, &v}, dst, p), 1e-10) << types;
    p.attention.window = 7;
    EXPECT_LT(compare(CLPORT_OP_ATTENTION, {&q, &k, &v}, dst, p), 1e-10) << types << " window";
  }
}

TEST_P(FastOps, AddSwigluBitExact) {
  const int64_t T = GetParam();
  auto a = random_f32({1536, T, 1, 1}, 7);
  auto b = random_f32({1536, T, 1, 1}, 8);
  auto bias = random_f32({1536, 1, 1, 1}, 9);
  OwnedTensor dst(DType::F32, {1536, T, 1, 1});
  EXPECT_EQ(compare(CLPORT_OP_ADD, {&a, &b}, dst, {}), 0.0);
  EXPECT_EQ(compare(CLPORT_OP_ADD, {&a, &bias}, dst, {}), 0.0);  // broadcast row
  EXPECT_LT(compare(CLPORT_OP_SWIGLU, {&a, &b}, dst, {}), 1e-12);
  EXPECT_LT(compare(CLPORT_OP_GEGLU, {&a, &b}, dst, {}), 1e-12);  // float GELU against double
}

TEST_P(FastOps, CopyIntoAKvCacheSlot) {
  const int64_t T = GetParam();
  auto k = random_f32({64, 3, T, 1}, 10);
  for (const DType cache : {DType::F16, DType::F32}) {
    // The slot for positions 5 .. 5 + T of a [64, 3, 160] cache, as llama_forward views it.
    OwnedTensor whole(cache, {64, 3, 160, 1});
    OwnedTensor slot = whole;
    slot.view.data = slot.bytes.data() + 5 * whole.view.nb[2];
    slot.view.ne = {64, 3, T, 1};
    EXPECT_EQ(compare(CLPORT_OP_COPY, {&k}, slot, {}), 0.0) << dtype_name(cache);
  }
}

TEST_P(FastOps, GetRowsFromAQuantizedTable) {
  const int64_t T = GetParam();
  const auto table_values = test::random_values(576 * 50, 11);
  OwnedTensor table = test::quantized_tensor(DType::Q4_1, 576, 50, table_values);
  OwnedTensor ids(DType::I32, {T, 1, 1, 1});
  for (int64_t i = 0; i < T; ++i) reinterpret_cast<int32_t*>(ids.bytes.data())[i] = (i * 7) % 50;
  OwnedTensor dst(DType::F32, {576, T, 1, 1});
  EXPECT_EQ(compare(CLPORT_OP_GET_ROWS, {&table, &ids}, dst, {}), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Tokens, FastOps, ::testing::Values(1, 13),
                         [](const auto& info) { return std::to_string(info.param) + "_tokens"; });

TEST(FastOpsDelegation, OpsNotAcceleratedRunOnTheReference) {
  auto x = random_f32({100, 3, 1, 1}, 12);
  OwnedTensor dst(DType::F32, {100, 3, 1, 1});
  EXPECT_EQ(compare(CLPORT_OP_SOFTMAX, {&x}, dst, test::params_scale(0.5f)), 0.0);
  EXPECT_EQ(compare(CLPORT_OP_SCALE, {&x}, dst, test::params_scale(3.0f)), 0.0);
}

TEST(FastOpsDelegation, ErrorsAreTheReferenceErrors) {
  auto fast = make_fast_cpu_backend(2);
  auto x = random_f32({576, 2, 1, 1}, 13);
  OwnedTensor wrong(DType::F32, {575, 2, 1, 1});
  EXPECT_EQ(test::run_on(*fast, CLPORT_OP_RMS_NORM, {&x}, wrong, test::params_eps(1e-5f)).stage(),
            Stage::InvalidArgument);
  EXPECT_EQ(test::run_on(*fast, CLPORT_OP_ADD, {&x}, x, {}).stage(), Stage::InvalidArgument);
  const Status unknown = test::run_on(*fast, static_cast<clport_op_kind>(999), {&x}, x, {});
  EXPECT_EQ(unknown.stage(), Stage::Unsupported) << unknown.to_string();
}

}  // namespace
}  // namespace clport
