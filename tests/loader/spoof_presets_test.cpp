// The forwarding library poses as foreign GPUs; the probe and the classifier must see exactly
// what such a driver would report.
#include <gtest/gtest.h>

#include "probe/device_info.h"
#include "loader/opencl_loader.h"
#include "scoped_env.h"

namespace clport {
namespace {

using testing_env::ScopedEnv;

DeviceInfo probe_forwarded() {
  LoaderOptions o;
  o.explicit_path = CLPORT_FAKECL_FORWARD;
  auto report = load_opencl(o);
  EXPECT_TRUE(report.library) << report.status.to_string();
  if (!report.library) return {};
  auto devices = probe_all_devices(report.library->api());
  EXPECT_TRUE(devices.ok()) << devices.status().to_string();
  return devices.ok() ? devices.value().front() : DeviceInfo{};
}

TEST(SpoofPresets, Adreno740) {
  ScopedEnv env{{"FAKECL_PRESET", "adreno740"}};
  const DeviceInfo d = probe_forwarded();
  EXPECT_EQ(d.name, "QUALCOMM Adreno(TM) 740");
  EXPECT_EQ(d.vendor, "QUALCOMM");
  EXPECT_EQ(d.device_version, "OpenCL 3.0 Adreno(TM) 740");
  EXPECT_NE(d.driver_version.find("Compiler E031.42.23.01"), std::string::npos);
  EXPECT_EQ(d.platform_name, "QUALCOMM Snapdragon(TM)");
  EXPECT_EQ(d.type, static_cast<cl_device_type>(CL_DEVICE_TYPE_GPU));
  EXPECT_TRUE(d.has_extension("cl_qcom_dot_product8"));
  EXPECT_TRUE(d.has_fp16);
  EXPECT_TRUE(d.has_subgroups);
  EXPECT_TRUE(d.has_int_dot);
  EXPECT_EQ(d.klass.family, "adreno");
  EXPECT_EQ(d.klass.generation, "a7xx");
  EXPECT_EQ(d.klass.generation_number, 740);
}

TEST(SpoofPresets, AdrenoNamedOnlyQualcommIsFoundByItsVersionString) {
  ScopedEnv env{{"FAKECL_PRESET", "adreno740"}, {"FAKECL_DEVICE_NAME", "QUALCOMM "}};
  const DeviceInfo d = probe_forwarded();
  EXPECT_EQ(d.name, "QUALCOMM ");
  EXPECT_EQ(d.klass.family, "adreno");
  EXPECT_EQ(d.klass.generation_number, 740);
}

TEST(SpoofPresets, MaliG78) {
  ScopedEnv env{{"FAKECL_PRESET", "mali-g78"}};
  const DeviceInfo d = probe_forwarded();
  EXPECT_EQ(d.name, "Mali-G78 r0p0");
  EXPECT_EQ(d.vendor, "ARM");
  EXPECT_TRUE(d.has_extension("cl_arm_integer_dot_product_int8"));
  EXPECT_TRUE(d.has_int_dot);
  EXPECT_EQ(d.klass.family, "mali");
  EXPECT_EQ(d.klass.generation, "valhall");
  EXPECT_EQ(d.klass.generation_number, 78);
}

TEST(SpoofPresets, IntelUhd770) {
  ScopedEnv env{{"FAKECL_PRESET", "intel-uhd770"}};
  const DeviceInfo d = probe_forwarded();
  EXPECT_EQ(d.name, "Intel(R) UHD Graphics 770");
  EXPECT_TRUE(d.has_extension("cl_intel_required_subgroup_size"));
  EXPECT_TRUE(d.has_subgroups);
  EXPECT_EQ(d.klass.family, "intel");
  EXPECT_EQ(d.klass.generation, "xe");
  EXPECT_EQ(d.klass.generation_number, 770);
}

TEST(SpoofPresets, UnknownGpuFallsBackToDefault) {
  ScopedEnv env{{"FAKECL_PRESET", "unknown-gpu"}};
  const DeviceInfo d = probe_forwarded();
  EXPECT_EQ(d.klass.family, "unknown");
  EXPECT_EQ(d.klass.rule, "default");
  EXPECT_FALSE(d.has_fp16);
}

TEST(SpoofPresets, IndividualVariablesOverrideAndExtensionsAppend) {
  ScopedEnv env{{"FAKECL_PRESET", "mali-g78"},
                {"FAKECL_DEVICE_NAME", "Mali-G710"},
                {"FAKECL_EXTENSIONS", "+cl_clport_test_marker"},
                {"FAKECL_PLATFORM_NAME", "Spoofed Platform"}};
  const DeviceInfo d = probe_forwarded();
  EXPECT_EQ(d.name, "Mali-G710");
  EXPECT_EQ(d.platform_name, "Spoofed Platform");
  EXPECT_TRUE(d.has_extension("cl_clport_test_marker"));
  EXPECT_TRUE(d.has_extension("cl_arm_printf"));  // the preset's list is kept
  EXPECT_EQ(d.klass.generation_number, 710);
}

TEST(SpoofPresets, ExtensionsReplaceWithoutPlus) {
  ScopedEnv env{{"FAKECL_EXTENSIONS", "cl_khr_fp16 cl_only_this"}};
  const DeviceInfo d = probe_forwarded();
  EXPECT_EQ(d.extensions.size(), 2u);
  EXPECT_TRUE(d.has_fp16);
  EXPECT_FALSE(d.has_extension("cl_khr_byte_addressable_store"));
}

TEST(SpoofPresets, WithoutSpoofingTheRealPoclDeviceShows) {
  ScopedEnv env{{"FAKECL_PRESET", nullptr}};
  const DeviceInfo d = probe_forwarded();
  EXPECT_EQ(d.klass.family, "cpu");
  EXPECT_EQ(d.type, static_cast<cl_device_type>(CL_DEVICE_TYPE_CPU));
}

}  // namespace
}  // namespace clport
