// Every failure stage of "load OpenCL, find a device, make a context and a queue", produced
// with the stand-in libraries from tests/fakecl, checked by stage and by message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "probe/device_info.h"
#include "loader/opencl_loader.h"
#include "scoped_env.h"

namespace clport {
namespace {

using testing_env::ScopedEnv;

LoaderOptions only(const std::string& path) {
  LoaderOptions o;
  o.explicit_path = path;
  return o;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The forwarding library, loaded and probed; fails the test when that is impossible.
struct Forwarded {
  std::shared_ptr<OpenClLibrary> library;
  DeviceInfo device;
};

Forwarded load_forwarded() {
  Forwarded out;
  auto report = load_opencl(only(CLPORT_FAKECL_FORWARD));
  EXPECT_TRUE(report.library) << report.status.to_string();
  if (!report.library) return out;
  out.library = report.library;
  auto devices = probe_all_devices(out.library->api());
  EXPECT_TRUE(devices.ok()) << devices.status().to_string();
  if (devices.ok()) out.device = devices.value().front();
  return out;
}

TEST(LoaderStages, LibraryNotFoundListsThePathAndTheLoaderError) {
  auto report = load_opencl(only("/nonexistent/dir/libOpenCL.so.1"));
  EXPECT_FALSE(report.library);
  EXPECT_EQ(report.status.stage(), Stage::LibraryNotFound);
  EXPECT_TRUE(contains(report.status.message(), "/nonexistent/dir/libOpenCL.so.1"));
  EXPECT_TRUE(contains(report.status.message(), "No such file")) << report.status.message();
  ASSERT_EQ(report.attempts.size(), 1u);
  EXPECT_EQ(report.attempts[0].source, "explicit");
  EXPECT_FALSE(report.attempts[0].opened);
}

TEST(LoaderStages, ExplicitLibraryFromEnvironmentIsTheOnlyCandidate) {
  ScopedEnv env{{"CLPORT_OPENCL_LIBRARY", "/nonexistent/libFromEnv.so"}};
  auto report = load_opencl();
  EXPECT_EQ(report.status.stage(), Stage::LibraryNotFound);
  ASSERT_EQ(report.attempts.size(), 1u);
  EXPECT_EQ(report.attempts[0].path, "/nonexistent/libFromEnv.so");
  EXPECT_TRUE(contains(report.status.message(), "CLPORT_OPENCL_LIBRARY"));
}

TEST(LoaderStages, LibraryWithoutOpenClSymbolsIsRejectedByName) {
  auto report = load_opencl(only(CLPORT_FAKECL_NOSYMS));
  EXPECT_EQ(report.status.stage(), Stage::SymbolMissing);
  EXPECT_TRUE(contains(report.status.message(), "neither clGetPlatformIDs nor clIcdGetPlatformIDsKHR"))
      << report.status.message();
  EXPECT_TRUE(contains(report.status.message(), CLPORT_FAKECL_NOSYMS));
}

TEST(LoaderStages, MissingRequiredSymbolsAreNamed) {
  auto report = load_opencl(only(CLPORT_FAKECL_PARTIAL));
  EXPECT_EQ(report.status.stage(), Stage::SymbolMissing);
  const auto& msg = report.status.message();
  for (const char* missing : {"clCreateContext", "clBuildProgram", "clEnqueueNDRangeKernel"}) {
    EXPECT_TRUE(contains(msg, missing)) << missing << " not named in: " << msg;
  }
  // Present symbols are not listed as missing.
  EXPECT_FALSE(contains(msg, "clGetDeviceInfo,")) << msg;
  EXPECT_FALSE(contains(msg, "clFinish,")) << msg;
}

TEST(LoaderStages, ZeroPlatformsIsNoPlatform) {
  ScopedEnv env{{"FAKECL_ZERO_PLATFORMS", "1"}};
  auto report = load_opencl(only(CLPORT_FAKECL_FORWARD));
  EXPECT_FALSE(report.library);
  EXPECT_EQ(report.status.stage(), Stage::NoPlatform);
  EXPECT_TRUE(contains(report.status.message(), "CL_PLATFORM_NOT_FOUND_KHR"))
      << report.status.message();
}

TEST(LoaderStages, ZeroDevicesIsNoDevice) {
  ScopedEnv env{{"FAKECL_ZERO_DEVICES", "1"}};
  auto report = load_opencl(only(CLPORT_FAKECL_FORWARD));
  ASSERT_TRUE(report.library) << report.status.to_string();
  auto devices = probe_all_devices(report.library->api());
  ASSERT_FALSE(devices.ok());
  EXPECT_EQ(devices.status().stage(), Stage::NoDevice);
  EXPECT_TRUE(contains(devices.status().message(), "CL_DEVICE_NOT_FOUND"))
      << devices.status().message();
}

TEST(LoaderStages, UnavailableDeviceIsDeviceUnusable) {
  auto forwarded = load_forwarded();
  ASSERT_TRUE(forwarded.library);
  ScopedEnv env{{"FAKECL_DEVICE_UNAVAILABLE", "1"}};
  Status s = check_device_usable(forwarded.library->api(), forwarded.device);
  EXPECT_EQ(s.stage(), Stage::DeviceUnusable);
  EXPECT_TRUE(contains(s.message(), "CL_DEVICE_AVAILABLE")) << s.message();
}

TEST(LoaderStages, ContextFailureIsContextStage) {
  auto forwarded = load_forwarded();
  ASSERT_TRUE(forwarded.library);
  ScopedEnv env{{"FAKECL_FAIL", "clCreateContext:0:-6"}};
  Status s = check_device_usable(forwarded.library->api(), forwarded.device);
  EXPECT_EQ(s.stage(), Stage::Context);
  EXPECT_TRUE(contains(s.message(), "clCreateContext")) << s.message();
  EXPECT_TRUE(contains(s.message(), "CL_OUT_OF_HOST_MEMORY")) << s.message();
}

TEST(LoaderStages, QueueFailureIsQueueStage) {
  auto forwarded = load_forwarded();
  ASSERT_TRUE(forwarded.library);
  ScopedEnv env{
      {"FAKECL_FAIL", "clCreateCommandQueueWithProperties:0:-5,clCreateCommandQueue:0:-5"}};
  Status s = check_device_usable(forwarded.library->api(), forwarded.device);
  EXPECT_EQ(s.stage(), Stage::Queue);
  EXPECT_TRUE(contains(s.message(), "CL_OUT_OF_RESOURCES")) << s.message();
}

TEST(LoaderStages, HealthyForwardedDeviceIsUsable) {
  auto forwarded = load_forwarded();
  ASSERT_TRUE(forwarded.library);
  EXPECT_EQ(forwarded.library->kind(), LibraryKind::DirectExports);
  Status s = check_device_usable(forwarded.library->api(), forwarded.device);
  EXPECT_TRUE(s.ok()) << s.to_string();
}

TEST(LoaderStages, FailedSearchListsEveryCandidateWithItsSource) {
  // Known locations off; an ICD directory naming two libraries that do not exist.
  char dir_template[] = "/tmp/clport-icd-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  for (const char* lib : {"a", "b"}) {
    FILE* f = std::fopen((dir + "/" + lib + ".icd").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fprintf(f, "/nonexistent/libvendor_%s.so\n", lib);
    std::fclose(f);
  }
  ScopedEnv env{{"OCL_ICD_VENDORS", dir.c_str()}, {"CLPORT_OPENCL_LIBRARY", nullptr}};
  LoaderOptions o;
  o.search_known_locations = false;
  auto report = load_opencl(o);
  EXPECT_EQ(report.status.stage(), Stage::LibraryNotFound);
  ASSERT_EQ(report.attempts.size(), 2u);
  EXPECT_TRUE(contains(report.status.message(), "/nonexistent/libvendor_a.so"));
  EXPECT_TRUE(contains(report.status.message(), "/nonexistent/libvendor_b.so"));
  EXPECT_TRUE(contains(report.attempts[1].source, "icd-file " + dir + "/b.icd"));
  std::remove((dir + "/a.icd").c_str());
  std::remove((dir + "/b.icd").c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace clport
