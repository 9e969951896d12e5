// clport_opencl_version (clport_plugin/opencl_version.h): the one reader of OpenCL version strings,
// for the core's probe and queue set-up and for the plugins' probes.
#include <gtest/gtest.h>

#include "clport_plugin/opencl_version.h"

namespace {

TEST(OpenclVersion, ReadsDeviceAndOpenclCVersions) {
  EXPECT_EQ(clport_opencl_version("OpenCL 3.0 CUDA"), 300);
  EXPECT_EQ(clport_opencl_version("OpenCL 1.2 pocl HSTR: cpu-x86_64"), 102);
  EXPECT_EQ(clport_opencl_version("OpenCL 2.1 "), 201);
  EXPECT_EQ(clport_opencl_version("OpenCL C 1.2 Adreno(TM) 640"), 102);
  EXPECT_EQ(clport_opencl_version("OpenCL C 3.0 v1.r38p1-01eac0"), 300);
  EXPECT_EQ(clport_opencl_version("OpenCL C 2.0"), 200);
  EXPECT_EQ(clport_opencl_version("OpenCL 12.10 future"), 1210);
}

TEST(OpenclVersion, AnythingElseIsZero) {
  EXPECT_EQ(clport_opencl_version(nullptr), 0);
  EXPECT_EQ(clport_opencl_version(""), 0);
  EXPECT_EQ(clport_opencl_version("OpenCL"), 0);
  EXPECT_EQ(clport_opencl_version("OpenCL C"), 0);
  EXPECT_EQ(clport_opencl_version("OpenCL 3"), 0);
  EXPECT_EQ(clport_opencl_version("OpenCL 3."), 0);
  EXPECT_EQ(clport_opencl_version("OpenCL3.0"), 0);
  EXPECT_EQ(clport_opencl_version("2.0 Adreno"), 0);
  EXPECT_EQ(clport_opencl_version("Vulkan 1.3"), 0);
  EXPECT_EQ(clport_opencl_version("OpenCL 1.234"), 0);   // minor of three digits: ambiguous
  EXPECT_EQ(clport_opencl_version("OpenCL 12345.0"), 0);  // major of five digits
}

}  // namespace
