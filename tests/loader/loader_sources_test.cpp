// The kinds of library the loader accepts (direct exports, ICD-only through the dispatch table,
// registered through an .icd file) and the de-duplication of one file seen under several names.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <set>

#include "probe/device_info.h"
#include "loader/opencl_loader.h"
#include "scoped_env.h"

namespace clport {
namespace {

using testing_env::ScopedEnv;

void expect_usable_pocl(const std::shared_ptr<OpenClLibrary>& library) {
  ASSERT_TRUE(library);
  EXPECT_FALSE(library->platforms().empty());
  auto devices = probe_all_devices(library->api());
  ASSERT_TRUE(devices.ok()) << devices.status().to_string();
  const DeviceInfo& d = devices.value().front();
  EXPECT_EQ(d.klass.family, "cpu") << d.name;
  EXPECT_EQ(d.klass.generation, "pocl") << d.device_version;
  EXPECT_GT(d.compute_units, 0u);
  EXPECT_GT(d.max_work_group_size, 0u);
  EXPECT_GT(d.global_mem_bytes, 0u);
  EXPECT_GE(d.mem_base_addr_align_bytes, 4u);
  EXPECT_FALSE(d.extensions.empty());
  // Capabilities follow the extension string (this PoCL build reports cl_khr_fp64 and no
  // sub-group extension, with "Max sub-groups per work group 0").
  EXPECT_EQ(d.has_fp64, d.has_extension("cl_khr_fp64"));
  EXPECT_EQ(d.has_subgroups,
            d.has_extension("cl_intel_subgroups") || d.has_extension("cl_khr_subgroups"));
  const clport_device_desc desc = d.to_desc();
  EXPECT_EQ(desc.struct_size, sizeof(clport_device_desc));
  EXPECT_STREQ(desc.name, d.name.c_str());
  EXPECT_STREQ(desc.family, "cpu");
  EXPECT_EQ(desc.device, d.device);
  EXPECT_TRUE(check_device_usable(library->api(), d).ok());
}

TEST(LoaderSources, IcdLoaderWithDirectExports) {
  LoaderOptions o;
  o.explicit_path = "libOpenCL.so.1";
  auto report = load_opencl(o);
  ASSERT_TRUE(report.library) << report.status.to_string();
  EXPECT_EQ(report.library->kind(), LibraryKind::DirectExports);
  expect_usable_pocl(report.library);
}

TEST(LoaderSources, IcdOnlyVendorLibraryThroughDispatchTable) {
  LoaderOptions o;
  o.explicit_path = "libpocl.so.2";
  auto report = load_opencl(o);
  ASSERT_TRUE(report.library) << report.status.to_string();
  EXPECT_EQ(report.library->kind(), LibraryKind::IcdDispatch);
  // The dispatch table filled the required entry points.
  EXPECT_NE(report.library->api().clCreateContext, nullptr);
  EXPECT_NE(report.library->api().clEnqueueNDRangeKernel, nullptr);
  expect_usable_pocl(report.library);
}

TEST(LoaderSources, ForwardingLibraryCanTargetAnIcdOnlyLibrary) {
  ScopedEnv env{{"FAKECL_TARGET", "libpocl.so.2"}};
  LoaderOptions o;
  o.explicit_path = CLPORT_FAKECL_FORWARD;
  auto report = load_opencl(o);
  ASSERT_TRUE(report.library) << report.status.to_string();
  EXPECT_EQ(report.library->kind(), LibraryKind::DirectExports);
  expect_usable_pocl(report.library);
}

TEST(LoaderSources, VendorLibraryRegisteredInOclIcdVendorsDirectory) {
  char dir_template[] = "/tmp/clport-icd-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::string icd = dir + "/pocl.icd";
  FILE* f = std::fopen(icd.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("libpocl.so.2\n", f);
  std::fclose(f);
  ScopedEnv env{{"OCL_ICD_VENDORS", dir.c_str()}, {"CLPORT_OPENCL_LIBRARY", nullptr}};
  LoaderOptions o;
  o.search_known_locations = false;
  auto report = load_opencl(o);
  std::remove(icd.c_str());
  rmdir(dir.c_str());
  ASSERT_TRUE(report.library) << report.status.to_string();
  ASSERT_EQ(report.attempts.size(), 1u);
  EXPECT_EQ(report.attempts[0].source, "icd-file " + icd);
  EXPECT_EQ(report.library->path(), "libpocl.so.2");
  expect_usable_pocl(report.library);
}

TEST(LoaderSources, EachFileIsTriedOnceUnderAllItsNames) {
  ScopedEnv env{{"CLPORT_OPENCL_LIBRARY", nullptr}, {"OCL_ICD_VENDORS", nullptr}};
  LoaderOptions o;
  o.stop_at_first_usable = false;
  auto report = load_opencl(o);
  ASSERT_TRUE(report.library) << report.status.to_string();
  std::set<std::string> files;
  for (const auto& a : report.attempts) {
    if (a.resolved_path.empty()) continue;
    EXPECT_TRUE(files.insert(a.resolved_path).second) << a.path << " is " << a.resolved_path
                                                      << ", which was already tried";
  }
  // This machine has the ICD loader and PoCL: two different usable files, each once.
  EXPECT_EQ(report.all_usable.size(), files.size());
  EXPECT_GE(report.all_usable.size(), 2u);
}

}  // namespace
}  // namespace clport
