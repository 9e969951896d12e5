// run_op's own checks: unknown op kinds, source counts, missing data, default strides.
#include "ops_test_util.h"

namespace clport {
namespace {

using test::OwnedTensor;

TEST(Dispatch, UnknownKindIsUnsupported) {
  OwnedTensor x(DType::F32, {4, 1, 1, 1});
  const Status s = test::run(static_cast<clport_op_kind>(99), {x.view}, x.view);
  EXPECT_EQ(s.stage(), Stage::Unsupported);
  EXPECT_FALSE(s.message().empty());
}

TEST(Dispatch, WrongSourceCountIsInvalid) {
  OwnedTensor x(DType::F32, {4, 1, 1, 1});
  EXPECT_EQ(test::run(CLPORT_OP_SILU, {}, x.view).stage(), Stage::InvalidArgument);
  EXPECT_EQ(test::run(CLPORT_OP_ADD, {x.view}, x.view).stage(), Stage::InvalidArgument);
  EXPECT_EQ(test::run(CLPORT_OP_ATTENTION, {x.view, x.view}, x.view).stage(),
            Stage::InvalidArgument);
}

TEST(Dispatch, MissingDataAndEmptyShapesAreInvalid) {
  OwnedTensor x(DType::F32, {4, 1, 1, 1});
  cpu::HostTensor null_dst = x.view;
  null_dst.data = nullptr;
  EXPECT_EQ(test::run(CLPORT_OP_SILU, {x.view}, null_dst).stage(), Stage::InvalidArgument);
  cpu::HostTensor empty = x.view;
  empty.ne[1] = 0;
  EXPECT_EQ(test::run(CLPORT_OP_SILU, {empty}, empty).stage(), Stage::InvalidArgument);
  cpu::HostTensor unknown = x.view;
  unknown.dtype = static_cast<DType>(77);
  EXPECT_EQ(test::run(CLPORT_OP_SILU, {unknown}, x.view).stage(), Stage::InvalidArgument);
}

TEST(Dispatch, NonContiguousRowsRejectedWhereUnsupported) {
  OwnedTensor x(DType::F32, {4, 1, 1, 1});
  cpu::HostTensor strided = x.view;
  strided.nb[0] = 8;
  EXPECT_EQ(test::run(CLPORT_OP_SILU, {strided}, x.view).stage(), Stage::Unsupported);
}

TEST(Dispatch, ZeroStridesMeanContiguous) {
  std::vector<float> v = {1, 2, 3, 4};
  cpu::HostTensor t;
  t.ne = {2, 2, 1, 1};
  t.data = v.data();
  ASSERT_TRUE(test::run(CLPORT_OP_SCALE, {t}, t, test::params_scale(3.0f)).ok());
  EXPECT_EQ(v, (std::vector<float>{3, 6, 9, 12}));
}

TEST(Dispatch, NegativeThreadCountIsInvalid) {
  OwnedTensor x(DType::F32, {4, 1, 1, 1});
  EXPECT_EQ(test::run(CLPORT_OP_SILU, {x.view}, x.view, {}, -1).stage(), Stage::InvalidArgument);
}

}  // namespace
}  // namespace clport
