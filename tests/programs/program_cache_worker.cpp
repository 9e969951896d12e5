// Test helper process: builds `n` programs through a program cache in <dir> (several rounds,
// each with a fresh cache object, as separate processes would), runs each, and prints the
// counters. Exit 0 only when every build and run succeeded.
//   program_cache_worker <cache dir> <n programs> <rounds>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../memory/cl_test_device.h"
#include "programs/program_cache.h"

namespace {

const char* kSource = R"(
__kernel void add_k(__global int* x) { x[get_global_id(0)] += VARIANT; }
)";

bool run_once(const clport_cl_api& cl, cl_context context, cl_command_queue queue,
              cl_program program, int variant) {
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = cl.clCreateKernel(program, "add_k", &err);
  if (err != CL_SUCCESS) return false;
  std::vector<int> data(8, 100);
  cl_mem mem = cl.clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                 data.size() * sizeof(int), data.data(), &err);
  bool ok = err == CL_SUCCESS;
  if (ok) {
    size_t global = data.size();
    ok = cl.clSetKernelArg(kernel, 0, sizeof(mem), &mem) == CL_SUCCESS &&
         cl.clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr,
                                   nullptr) == CL_SUCCESS &&
         cl.clEnqueueReadBuffer(queue, mem, CL_TRUE, 0, data.size() * sizeof(int), data.data(), 0,
                                nullptr, nullptr) == CL_SUCCESS;
    for (int v : data) ok = ok && v == 100 + variant;
    cl.clReleaseMemObject(mem);
  }
  cl.clReleaseKernel(kernel);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <cache dir> <n programs> <rounds>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const int n = std::atoi(argv[2]);
  const int rounds = std::atoi(argv[3]);
  auto device = clport::testing::first_test_device();
  if (device.library == nullptr) {
    std::fprintf(stderr, "no device: %s\n", device.why_not.c_str());
    return 3;
  }
  const auto& cl = device.library->api();
  cl_int err = CL_SUCCESS;
  cl_context context = cl.clCreateContext(nullptr, 1, &device.info.device, nullptr, nullptr, &err);
  cl_command_queue queue = cl.clCreateCommandQueue(context, device.info.device, 0, &err);
  if (err != CL_SUCCESS) return 4;
  clport::ProgramCacheCounters total;
  bool ok = true;
  for (int round = 0; round < rounds; ++round) {
    clport::ProgramCacheOptions options;
    options.directory = dir;
    options.memoize = false;
    clport::ProgramCache cache(cl, context, device.info.device,
                               {device.info.name, device.info.driver_version,
                                device.info.platform_version},
                               options);
    ok = ok && cache.enabled();
    for (int i = 1; i <= n; ++i) {
      auto program = cache.build(kSource, "-DVARIANT=" + std::to_string(i));
      if (!program.ok()) {
        std::fprintf(stderr, "build failed: %s\n", program.status().to_string().c_str());
        ok = false;
        continue;
      }
      ok = run_once(cl, context, queue, program.value(), i) && ok;
      cl.clReleaseProgram(program.value());
    }
    const auto c = cache.counters();
    total.hits += c.hits;
    total.misses += c.misses;
    total.saves += c.saves;
    total.rejected += c.rejected;
  }
  std::printf("ok=%d hits=%llu misses=%llu saves=%llu rejected=%llu\n", ok ? 1 : 0,
              static_cast<unsigned long long>(total.hits),
              static_cast<unsigned long long>(total.misses),
              static_cast<unsigned long long>(total.saves),
              static_cast<unsigned long long>(total.rejected));
  cl.clReleaseCommandQueue(queue);
  cl.clReleaseContext(context);
  return ok ? 0 : 1;
}
