// COPY (F32 <-> F16, strided destination, reshaping) and GET_ROWS (every table dtype, bad ids).
#include <cstring>

#include "ops_test_util.h"

namespace clport {
namespace {

using test::OwnedTensor;

TEST(Copy, F32ToF16AndBack) {
  const std::vector<float> v = {1.0f, -2.5f, 65504.0f, 1e-8f, 0.1f, 70000.0f};
  auto x = test::f32_tensor({3, 2, 1, 1}, v);
  OwnedTensor h(DType::F16, {3, 2, 1, 1});
  OwnedTensor back(DType::F32, {3, 2, 1, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_COPY, {x.view}, h.view).ok());
  ASSERT_TRUE(test::run(CLPORT_OP_COPY, {h.view}, back.view).ok());
  const auto y = back.values();
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(y[i], half_to_float(float_to_half(v[i]))) << i;
  EXPECT_TRUE(std::isinf(y[5]));  // 70000 is past the half range
}

TEST(Copy, IntoAStridedCacheSlot) {
  // A KV cache [hd=4, kv_heads=2, ctx=5] in F16; write 2 tokens at positions 1..2.
  const int64_t hd = 4, kvh = 2, ctx = 5;
  std::vector<uint16_t> cache(static_cast<size_t>(hd * kvh * ctx), 0xffff);  // NaN pattern guard
  cpu::HostTensor slot =
      cpu::HostTensor::contiguous(DType::F16, {hd, kvh, 2, 1}, cache.data() + 1 * hd * kvh);
  slot.nb[2] = hd * kvh * 2;  // token stride of the full cache (same here, but set explicitly)
  const auto vals = test::random_values(static_cast<size_t>(hd * kvh * 2), 5);
  auto src = test::f32_tensor({hd, kvh, 2, 1}, vals);
  ASSERT_TRUE(test::run(CLPORT_OP_COPY, {src.view}, slot).ok());
  for (int64_t pos = 0; pos < ctx; ++pos)
    for (int64_t i = 0; i < hd * kvh; ++i) {
      const uint16_t got = cache[static_cast<size_t>(pos * hd * kvh + i)];
      if (pos == 1 || pos == 2) {
        EXPECT_EQ(got, float_to_half(vals[static_cast<size_t>((pos - 1) * hd * kvh + i)]));
      } else {
        EXPECT_EQ(got, 0xffff) << "untouched slot written at pos " << pos;
      }
    }
}

TEST(Copy, TransposedViewWithElementStride) {
  // dst is a transposed view: element (i0, i1) lands at i0 * 2 + i1 of a 3x2 buffer.
  auto src = test::f32_tensor({3, 2, 1, 1}, {1, 2, 3, 4, 5, 6});
  std::vector<float> out(6, 0.0f);
  cpu::HostTensor dst = cpu::HostTensor::contiguous(DType::F32, {3, 2, 1, 1}, out.data());
  dst.nb[0] = 2 * sizeof(float);
  dst.nb[1] = sizeof(float);
  ASSERT_TRUE(test::run(CLPORT_OP_COPY, {src.view}, dst).ok());
  EXPECT_EQ(out, (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(Copy, ReshapeKeepsLogicalOrder) {
  auto src = test::f32_tensor({6, 1, 1, 1}, {1, 2, 3, 4, 5, 6});
  OwnedTensor dst(DType::F32, {2, 3, 1, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_COPY, {src.view}, dst.view).ok());
  EXPECT_EQ(dst.values(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(Copy, BadOperandsRejected) {
  OwnedTensor a(DType::F32, {6, 1, 1, 1});
  OwnedTensor b(DType::F32, {5, 1, 1, 1});
  OwnedTensor q(DType::Q4_1, {32, 1, 1, 1});  // Q8_0 / Q4_0 are KV cache types, Q4_1 is not
  OwnedTensor q8(DType::Q8_0, {32, 1, 1, 1});
  OwnedTensor a32(DType::F32, {32, 1, 1, 1});
  EXPECT_EQ(test::run(CLPORT_OP_COPY, {a.view}, b.view).stage(), Stage::InvalidArgument);
  EXPECT_EQ(test::run(CLPORT_OP_COPY, {a32.view}, q.view).stage(), Stage::Unsupported);
  EXPECT_EQ(test::run(CLPORT_OP_COPY, {q8.view}, a32.view).stage(), Stage::Unsupported);  // no dequantizing copy
}

class GetRowsAllDtypes : public ::testing::TestWithParam<DType> {};

TEST_P(GetRowsAllDtypes, RowsEqualTheirDequantization) {
  const DType dtype = GetParam();
  const int64_t D = traits(dtype).block_size * 2, R = 5;
  OwnedTensor table =
      test::quantized_tensor(dtype, D, R, test::random_values(static_cast<size_t>(D * R), 8));
  const auto all = test::dequantized(table);
  OwnedTensor ids(DType::I32, {3, 1, 1, 1});
  const int32_t id_values[3] = {4, 0, 4};
  std::memcpy(ids.bytes.data(), id_values, sizeof id_values);
  OwnedTensor d(DType::F32, {D, 3, 1, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_GET_ROWS, {table.view, ids.view}, d.view).ok());
  const auto y = d.values();
  for (int i = 0; i < 3; ++i)
    for (int64_t j = 0; j < D; ++j)
      ASSERT_EQ(y[i * D + j], all[id_values[i] * D + j]) << dtype_name(dtype);
}

INSTANTIATE_TEST_SUITE_P(Tables, GetRowsAllDtypes, ::testing::ValuesIn(kWeightDTypes),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(GetRows, F32HandCase) {
  auto table = test::f32_tensor({2, 3, 1, 1}, {1, 2, 3, 4, 5, 6});
  OwnedTensor ids(DType::I32, {2, 1, 1, 1});
  const int32_t id_values[2] = {2, 1};
  std::memcpy(ids.bytes.data(), id_values, sizeof id_values);
  OwnedTensor d(DType::F32, {2, 2, 1, 1});
  ASSERT_TRUE(test::run(CLPORT_OP_GET_ROWS, {table.view, ids.view}, d.view).ok());
  EXPECT_EQ(d.values(), (std::vector<float>{5, 6, 3, 4}));
}

TEST(GetRows, OutOfRangeIdRejectedAndDstUntouched) {
  auto table = test::f32_tensor({2, 3, 1, 1}, {1, 2, 3, 4, 5, 6});
  OwnedTensor ids(DType::I32, {2, 1, 1, 1});
  OwnedTensor d(DType::F32, {2, 2, 1, 1});
  std::fill(d.f32(), d.f32() + 4, -1.0f);
  for (int32_t bad : {3, -1}) {
    const int32_t id_values[2] = {0, bad};
    std::memcpy(ids.bytes.data(), id_values, sizeof id_values);
    const Status s = test::run(CLPORT_OP_GET_ROWS, {table.view, ids.view}, d.view);
    EXPECT_EQ(s.stage(), Stage::InvalidArgument) << bad;
    EXPECT_EQ(d.values(), (std::vector<float>{-1, -1, -1, -1}));
  }
  OwnedTensor f_ids(DType::F32, {2, 1, 1, 1});
  EXPECT_EQ(test::run(CLPORT_OP_GET_ROWS, {table.view, f_ids.view}, d.view).stage(),
            Stage::Unsupported);
  OwnedTensor d_bad(DType::F32, {3, 2, 1, 1});
  EXPECT_EQ(test::run(CLPORT_OP_GET_ROWS, {table.view, ids.view}, d_bad.view).stage(),
            Stage::InvalidArgument);
}

}  // namespace
}  // namespace clport
