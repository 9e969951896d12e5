// The forwarding stand-in itself: its faults fire exactly when asked, and only then.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "probe/device_info.h"
#include "loader/opencl_loader.h"
#include "scoped_env.h"

namespace clport {
namespace {

using testing_env::ScopedEnv;

class Forwarded : public ::testing::Test {
 protected:
  void SetUp() override {
    LoaderOptions o;
    o.explicit_path = CLPORT_FAKECL_FORWARD;
    auto report = load_opencl(o);
    ASSERT_TRUE(report.library) << report.status.to_string();
    library_ = report.library;
    auto devices = probe_all_devices(cl());
    ASSERT_TRUE(devices.ok()) << devices.status().to_string();
    device_ = devices.value().front();
    cl_int err = CL_SUCCESS;
    context_ = cl().clCreateContext(nullptr, 1, &device_.device, nullptr, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    queue_ = cl().clCreateCommandQueue(context_, device_.device, 0, &err);
    ASSERT_EQ(err, CL_SUCCESS);
  }
  void TearDown() override {
    if (queue_) cl().clReleaseCommandQueue(queue_);
    if (context_) cl().clReleaseContext(context_);
  }
  const clport_cl_api& cl() const { return library_->api(); }
  cl_mem buffer(size_t bytes, cl_int* err) {
    return cl().clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, err);
  }
  cl_program program(const char* source, cl_int* build_err) {
    cl_int err = CL_SUCCESS;
    cl_program p = cl().clCreateProgramWithSource(context_, 1, &source, nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    *build_err = cl().clBuildProgram(p, 1, &device_.device, "", nullptr, nullptr);
    return p;
  }

  std::shared_ptr<OpenClLibrary> library_;
  DeviceInfo device_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
};

const char* kCopy =
    "__kernel void copy(__global float* dst, __global const float* src) {"
    "  dst[get_global_id(0)] = src[get_global_id(0)]; }";

TEST_F(Forwarded, FailsOnlyTheNthCall) {
  ScopedEnv env{{"FAKECL_FAIL", "clCreateBuffer:2:-4"}};
  cl_int e1 = 1, e2 = 1, e3 = 1;
  cl_mem a = buffer(64, &e1), b = buffer(64, &e2), c = buffer(64, &e3);
  EXPECT_EQ(e1, CL_SUCCESS);
  EXPECT_EQ(e2, CL_MEM_OBJECT_ALLOCATION_FAILURE);
  EXPECT_EQ(b, nullptr);
  EXPECT_EQ(e3, CL_SUCCESS);
  cl().clReleaseMemObject(a);
  cl().clReleaseMemObject(c);
}

TEST_F(Forwarded, NthZeroFailsEveryCallAndOtherFunctionsAreUntouched) {
  ScopedEnv env{{"FAKECL_FAIL", "clFinish:0:-36"}};
  EXPECT_EQ(cl().clFinish(queue_), CL_INVALID_COMMAND_QUEUE);
  EXPECT_EQ(cl().clFinish(queue_), CL_INVALID_COMMAND_QUEUE);
  EXPECT_EQ(cl().clFlush(queue_), CL_SUCCESS);
}

TEST_F(Forwarded, AllocationFailsBeyondTheLiveByteLimit) {
  ScopedEnv env{{"FAKECL_ALLOC_FAIL_AFTER_BYTES", "1000"}};
  cl_int err = CL_SUCCESS;
  cl_mem first = buffer(600, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(buffer(600, &err), nullptr);
  EXPECT_EQ(err, CL_MEM_OBJECT_ALLOCATION_FAILURE);
  ASSERT_EQ(cl().clReleaseMemObject(first), CL_SUCCESS);
  cl_mem again = buffer(600, &err);  // released bytes no longer count
  EXPECT_EQ(err, CL_SUCCESS);
  cl().clReleaseMemObject(again);
}

TEST_F(Forwarded, NthPlusFailsThatCallAndEveryLaterOne) {
  ScopedEnv env{{"FAKECL_FAIL", "clFinish:3+:-5"}};
  EXPECT_EQ(cl().clFinish(queue_), CL_SUCCESS);
  EXPECT_EQ(cl().clFinish(queue_), CL_SUCCESS);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(cl().clFinish(queue_), CL_OUT_OF_RESOURCES);
}

TEST_F(Forwarded, OneBufferAboveTheLargestSizeFailsAndSmallerOnesDoNot) {
  ScopedEnv env{{"FAKECL_ALLOC_MAX_BYTES", "1000"}};
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(buffer(1001, &err), nullptr);
  EXPECT_EQ(err, CL_MEM_OBJECT_ALLOCATION_FAILURE);
  cl_mem a = buffer(1000, &err), b = buffer(1000, &err);  // no limit on the total
  EXPECT_EQ(err, CL_SUCCESS);
  cl().clReleaseMemObject(a);
  cl().clReleaseMemObject(b);
}

// The count of live bytes is the caller's view: a retained buffer lives until its last release.
TEST_F(Forwarded, LiveBytesFollowTheCallersReferences) {
  void* self = ::dlopen(CLPORT_FAKECL_FORWARD, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(self, nullptr);
  auto live = reinterpret_cast<size_t (*)()>(::dlsym(self, "fakecl_live_buffer_bytes"));
  ASSERT_NE(live, nullptr);
  const size_t before = live();
  cl_int err = CL_SUCCESS;
  cl_mem a = buffer(4096, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(live(), before + 4096);
  ASSERT_EQ(cl().clRetainMemObject(a), CL_SUCCESS);
  cl().clReleaseMemObject(a);
  EXPECT_EQ(live(), before + 4096);
  cl().clReleaseMemObject(a);
  EXPECT_EQ(live(), before);
  ::dlclose(self);
}

TEST_F(Forwarded, BuildFailureComesWithALog) {
  cl_int err = CL_SUCCESS;
  cl_program good = program(kCopy, &err);
  EXPECT_EQ(err, CL_SUCCESS);  // the same source builds without the fault
  cl().clReleaseProgram(good);

  ScopedEnv env{{"FAKECL_BUILD_FAIL", "1"}};
  cl_program p = program(kCopy, &err);
  EXPECT_EQ(err, CL_BUILD_PROGRAM_FAILURE);
  size_t size = 0;
  ASSERT_EQ(cl().clGetProgramBuildInfo(p, device_.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size),
            CL_SUCCESS);
  std::vector<char> log(size);
  ASSERT_EQ(cl().clGetProgramBuildInfo(p, device_.device, CL_PROGRAM_BUILD_LOG, size, log.data(),
                                       nullptr),
            CL_SUCCESS);
  EXPECT_NE(std::string(log.data()).find("FAKECL_BUILD_FAIL"), std::string::npos);
  cl_build_status status = CL_BUILD_SUCCESS;
  cl().clGetProgramBuildInfo(p, device_.device, CL_PROGRAM_BUILD_STATUS, sizeof(status), &status,
                             nullptr);
  EXPECT_EQ(status, CL_BUILD_ERROR);
  cl().clReleaseProgram(p);
}

// Runs kCopy (dst = src, dst is argument 0) over 64 floats and returns dst.
std::vector<float> run_copy(const clport_cl_api& cl, cl_context context, cl_command_queue queue,
                            cl_device_id device) {
  std::vector<float> in(64), out(64, 0.f);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) + 0.5f;
  cl_int err = CL_SUCCESS;
  cl_program p = cl.clCreateProgramWithSource(context, 1, &kCopy, nullptr, &err);
  EXPECT_EQ(cl.clBuildProgram(p, 1, &device, "", nullptr, nullptr), CL_SUCCESS);
  cl_kernel k = cl.clCreateKernel(p, "copy", &err);
  cl_mem dst = cl.clCreateBuffer(context, CL_MEM_READ_WRITE, 256, nullptr, &err);
  cl_mem src = cl.clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 256, in.data(), &err);
  cl.clSetKernelArg(k, 0, sizeof(cl_mem), &dst);
  cl.clSetKernelArg(k, 1, sizeof(cl_mem), &src);
  const size_t global = 64;
  EXPECT_EQ(cl.clEnqueueNDRangeKernel(queue, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(cl.clEnqueueReadBuffer(queue, dst, CL_TRUE, 0, 256, out.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  cl.clReleaseMemObject(dst);
  cl.clReleaseMemObject(src);
  cl.clReleaseKernel(k);
  cl.clReleaseProgram(p);
  return out;
}

TEST_F(Forwarded, CorruptKernelOverwritesTheFirstBufferArgument) {
  std::vector<float> clean = run_copy(cl(), context_, queue_, device_.device);
  EXPECT_EQ(clean[0], 0.5f);
  EXPECT_EQ(clean[63], 63.5f);

  ScopedEnv env{{"FAKECL_CORRUPT_KERNEL", "copy"}};
  std::vector<float> bad = run_copy(cl(), context_, queue_, device_.device);
  uint32_t bits = 0;
  std::memcpy(&bits, &bad[0], sizeof(bits));
  EXPECT_EQ(bits, 0x7f7f7f7fu);
  std::memcpy(&bits, &bad[3], sizeof(bits));
  EXPECT_EQ(bits, 0x7f7f7f7fu);
  EXPECT_EQ(bad[4], 4.5f);  // only the first 16 bytes
  EXPECT_EQ(bad[63], 63.5f);
}

TEST_F(Forwarded, SpoofedStringsAnswerSizeQueriesAndRejectShortBuffers) {
  ScopedEnv env{{"FAKECL_DEVICE_NAME", "XYZ"}};
  size_t size = 0;
  ASSERT_EQ(cl().clGetDeviceInfo(device_.device, CL_DEVICE_NAME, 0, nullptr, &size), CL_SUCCESS);
  EXPECT_EQ(size, 4u);
  char small[2];
  EXPECT_EQ(cl().clGetDeviceInfo(device_.device, CL_DEVICE_NAME, sizeof(small), small, nullptr),
            CL_INVALID_VALUE);
  char name[8] = {};
  ASSERT_EQ(cl().clGetDeviceInfo(device_.device, CL_DEVICE_NAME, sizeof(name), name, nullptr),
            CL_SUCCESS);
  EXPECT_STREQ(name, "XYZ");
}

TEST_F(Forwarded, SpoofedDeviceTypeDrivesDeviceEnumeration) {
  ScopedEnv env{{"FAKECL_DEVICE_TYPE", "gpu"}};
  cl_uint n = 0;
  EXPECT_EQ(cl().clGetDeviceIDs(device_.platform, CL_DEVICE_TYPE_GPU, 0, nullptr, &n), CL_SUCCESS);
  EXPECT_GE(n, 1u);
  EXPECT_EQ(cl().clGetDeviceIDs(device_.platform, CL_DEVICE_TYPE_CPU, 0, nullptr, &n),
            CL_DEVICE_NOT_FOUND);
  EXPECT_EQ(n, 0u);
}

}  // namespace
}  // namespace clport
