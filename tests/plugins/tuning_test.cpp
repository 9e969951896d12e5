// The shared kernels' tuning (plugins/common): which shapes a CPU and a GPU get by default, what
// validate() accepts, and that policy values stand over the device-type defaults.
#include <gtest/gtest.h>

#include "clport_common/tuning.hpp"

namespace clport::plugin_common {
namespace {

clport_device_desc device(cl_device_type type, size_t max_wg) {
  clport_device_desc d{};
  d.device_type = type;
  d.max_work_group_size = max_wg;
  return d;
}

TEST(Tuning, CpuKeepsTheReductionFreeGemvAndRowMajorGemmTiles) {
  Tuning t = default_tuning(4096);
  apply_device_defaults(t, device(CL_DEVICE_TYPE_CPU, 4096));
  EXPECT_EQ(t.gemv_split, 1u);
  EXPECT_EQ(t.gemv_wg, 1u);
  EXPECT_EQ(t.gemv_rows, 8u);
  EXPECT_EQ(t.att_wg, 64u);
  EXPECT_EQ(t.int_dot, 1u);  // 8-bit activations for the quantized mat-muls
  EXPECT_EQ(t.rope_attention, 1u);
  EXPECT_EQ(t.gemm_kmajor, 0u);
  EXPECT_EQ(t.gemm_rn, 8u);
  EXPECT_EQ(t.gemm_rm, 16u);
  EXPECT_GE(t.gemv_max_m_q4q8, 4096);  // Q4_0/Q4_1/Q8_0 take the GEMV kernel at every M
  EXPECT_EQ(t.validate(4096), "");
}

TEST(Tuning, GpuGetsQuarterSplitWideGemvAndKMajorTiles) {
  Tuning t = default_tuning(1024);
  apply_device_defaults(t, device(CL_DEVICE_TYPE_GPU, 1024));
  EXPECT_EQ(t.gemv_split, 4u);
  EXPECT_EQ(t.gemv_wg, 128u);
  EXPECT_EQ(t.gemv_rows, 4u);
  EXPECT_EQ(t.int_dot, 0u);  // float activations: the integer GEMV is CPU-shaped
  EXPECT_EQ(t.gemm_kmajor, 1u);
  EXPECT_EQ(t.gemm_tn, 64u);
  EXPECT_EQ(t.gemm_tm, 32u);
  EXPECT_EQ(t.gemv_max_m_q4q8, 0);  // same limit as every other dtype
  EXPECT_EQ(t.att_wg, 128u);  // a GPU at the stock attention shape
  EXPECT_EQ(t.rope_attention, 1u);
  EXPECT_EQ(t.validate(1024), "");
}

TEST(Tuning, SmallWorkGroupGpuNeverRunsOneItemGemv) {
  // One work-item per row group is a CPU shape; a GPU with a 64-item limit gets 64.
  Tuning t = default_tuning(64);
  apply_device_defaults(t, device(CL_DEVICE_TYPE_GPU, 64));
  EXPECT_EQ(t.gemv_wg, 64u);
  EXPECT_EQ(t.gemv_rows, 4u);
  EXPECT_EQ(t.validate(64), "");
}

TEST(Tuning, PolicyValuesStandOverDeviceDefaults) {
  Tuning t = default_tuning(1024);
  EXPECT_EQ(t.apply_overrides("gemv_wg: 64\ngemv_rows: 8\ngemm_tn: 32\ngemm_tm: 32\ngemm_rn: 4\n"
                              "gemm_rm: 4\ngemm_kmajor: 0\natt_wg: 32\n"),
            "");
  apply_device_defaults(t, device(CL_DEVICE_TYPE_GPU, 1024));
  EXPECT_EQ(t.gemv_wg, 64u);
  EXPECT_EQ(t.gemv_rows, 8u);
  EXPECT_EQ(t.gemm_tn, 32u);
  EXPECT_EQ(t.gemm_kmajor, 0u);
  EXPECT_EQ(t.att_wg, 32u);
}

TEST(Tuning, ValidateNamesWhatIsWrong) {
  Tuning t;
  t.gemv_wg = 1;
  t.gemv_rows = 100;
  EXPECT_NE(t.validate(1024).find("gemv_rows"), std::string::npos);
  t.gemv_rows = 8;
  t.gemm_kmajor = 3;
  EXPECT_NE(t.validate(1024).find("gemm_kmajor"), std::string::npos);
  t.gemm_kmajor = 1;
  t.gemv_wg = 2;  // neither 1 nor >= 4
  EXPECT_NE(t.validate(1024).find("gemv_rows"), std::string::npos);
  EXPECT_EQ(t.apply_overrides("gemm_kmajor: yes\n"), "gemm_kmajor: 'yes' is not a number; ");
}

TEST(Tuning, PackedGemvLayoutIsOptInOnEveryDevice) {
  // It doubles the memory of the weights it covers, so no device type turns it on by itself.
  for (cl_device_type type : {CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU}) {
    Tuning t = default_tuning(1024);
    apply_device_defaults(t, device(type, 1024));
    EXPECT_EQ(t.gemv_packed, 0u);
  }
  Tuning t = default_tuning(1024);
  EXPECT_EQ(t.apply_overrides("gemv_packed: 1\ngemv_packed_wg: 32\ngemv_packed_rows: 16\n"), "");
  apply_device_defaults(t, device(CL_DEVICE_TYPE_GPU, 1024));
  EXPECT_EQ(t.gemv_packed, 1u);
  EXPECT_EQ(t.gemv_packed_wg, 32u);
  EXPECT_EQ(t.gemv_packed_rows, 16u);
  EXPECT_EQ(t.validate(1024), "");
}

TEST(Tuning, ValidateChecksThePackedGemvShape) {
  Tuning t;
  t.gemv_packed = 2;
  EXPECT_NE(t.validate(1024).find("gemv_packed must be"), std::string::npos);
  t.gemv_packed = 1;
  t.gemv_packed_wg = 48;  // not a power of two
  EXPECT_NE(t.validate(1024).find("gemv_packed_wg"), std::string::npos);
  t.gemv_packed_wg = 8;
  t.gemv_packed_rows = 16;  // more rows than work-items
  EXPECT_NE(t.validate(1024).find("gemv_packed_rows"), std::string::npos);
  // A small device scales the packed work-group down with the others.
  Tuning small = default_tuning(16);
  EXPECT_EQ(small.gemv_packed_wg, 16u);
  EXPECT_LE(small.gemv_packed_rows, 16u);
  EXPECT_EQ(small.validate(16), "");
}

}  // namespace
}  // namespace clport::plugin_common
