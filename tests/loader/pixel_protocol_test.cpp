// The Pixel protocol: a library that exports only enableOpenCL / loadOpenCLPointer. The first
// test must run before anything calls enableOpenCL in this process (tests run in file order).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "probe/device_info.h"
#include "loader/opencl_loader.h"

namespace clport {
namespace {

TEST(PixelProtocol, StandInRefusesPointersBeforeEnableOpenCL) {
  void* handle = dlopen(CLPORT_FAKECL_PIXEL, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  EXPECT_EQ(dlsym(handle, "clGetPlatformIDs"), nullptr);  // no cl* exports at all
  auto load = reinterpret_cast<void* (*)(const char*)>(dlsym(handle, "loadOpenCLPointer"));
  auto enable = reinterpret_cast<void (*)()>(dlsym(handle, "enableOpenCL"));
  ASSERT_NE(load, nullptr);
  ASSERT_NE(enable, nullptr);
  EXPECT_EQ(load("clGetPlatformIDs"), nullptr);
  enable();
  EXPECT_NE(load("clGetPlatformIDs"), nullptr);
  EXPECT_EQ(load("clNoSuchFunction"), nullptr);
}

TEST(PixelProtocol, LoaderUsesEnableAndLoadPointer) {
  LoaderOptions o;
  o.explicit_path = CLPORT_FAKECL_PIXEL;
  auto report = load_opencl(o);
  ASSERT_TRUE(report.library) << report.status.to_string();
  EXPECT_EQ(report.library->kind(), LibraryKind::PixelProtocol);
  auto devices = probe_all_devices(report.library->api());
  ASSERT_TRUE(devices.ok()) << devices.status().to_string();
  EXPECT_TRUE(check_device_usable(report.library->api(), devices.value().front()).ok());
}

}  // namespace
}  // namespace clport
