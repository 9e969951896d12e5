// CLBlast SGEMM through dlopen. Values of the C API's enums and status codes are CLBlast's
// published constants (clblast_c.h): row-major layout 101, no transpose 111, transpose 112,
// success 0.
#include "clblast_sgemm.h"

#include <dlfcn.h>

#include <algorithm>
#include <string>
#include <vector>

namespace clport::bench::detail {
namespace {

constexpr int kLayoutRowMajor = 101;
constexpr int kTransposeNo = 111;
constexpr int kTransposeYes = 112;
constexpr const char* kLibrary = "libclblast.so.1";
constexpr const char* kIcdLoader = "libOpenCL.so.1";

using GetPlatformIdsFn = cl_int (*)(cl_uint, cl_platform_id*, cl_uint*);

// The platforms the ICD loader that libclblast linked reports (already mapped as its
// dependency, so RTLD_NOLOAD finds exactly that one).
Result<std::vector<cl_platform_id>> icd_loader_platforms() {
  void* loader = dlopen(kIcdLoader, RTLD_NOW | RTLD_NOLOAD);
  if (loader == nullptr)
    return Status(Stage::LibraryNotFound, std::string(kLibrary) + " is loaded but " + kIcdLoader +
                                              " is not mapped: CLBlast was not built against the "
                                              "ICD loader");
  auto get_ids = reinterpret_cast<GetPlatformIdsFn>(dlsym(loader, "clGetPlatformIDs"));
  dlclose(loader);  // drops only the reference RTLD_NOLOAD added
  if (get_ids == nullptr) return Status(Stage::SymbolMissing, std::string(kIcdLoader) + " has no clGetPlatformIDs");
  cl_uint count = 0;
  if (get_ids(0, nullptr, &count) != CL_SUCCESS || count == 0)
    return Status(Stage::NoPlatform, std::string("the ICD loader ") + kIcdLoader + " lists no platform");
  std::vector<cl_platform_id> ids(count);
  if (get_ids(count, ids.data(), nullptr) != CL_SUCCESS)
    return Status(Stage::NoPlatform, std::string("clGetPlatformIDs failed in ") + kIcdLoader);
  return ids;
}

}  // namespace

std::unique_ptr<ClblastSgemm> ClblastSgemm::open(DeviceContext& ctx, ClblastInfo* info) {
  info->library = kLibrary;
  // Kept loaded for the rest of the process: CLBlast caches compiled programs in globals.
  void* handle = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    info->reason = std::string("CLBlast not available (") + (err ? err : "dlopen failed") +
                   "); install Debian's libclblast1 to compare F32 GEMM with it";
    return nullptr;
  }
  auto fn = reinterpret_cast<SgemmFn>(dlsym(handle, "CLBlastSgemm"));
  if (fn == nullptr) {
    info->reason = std::string(kLibrary) + " has no CLBlastSgemm";
    return nullptr;
  }
  auto platforms = icd_loader_platforms();
  if (!platforms.ok()) {
    info->reason = platforms.status().message();
    return nullptr;
  }
  const cl_platform_id ours = ctx.info().platform;
  if (std::find(platforms->begin(), platforms->end(), ours) == platforms->end()) {
    info->reason = "CLBlast calls OpenCL through the ICD loader " + std::string(kIcdLoader) +
                   ", which does not know the platform of clport's objects (clport uses a "
                   "different OpenCL library; objects of one implementation cannot be handed to "
                   "another). Run with CLPORT_OPENCL_LIBRARY=" + kIcdLoader + " to compare";
    return nullptr;
  }
  info->usable = true;
  return std::unique_ptr<ClblastSgemm>(new ClblastSgemm(ctx, fn));
}

Status ClblastSgemm::enqueue(cl_mem w, cl_mem x, cl_mem dst, size_t M, size_t N, size_t K,
                             cl_event* event) {
  cl_command_queue queue = ctx_.queue();
  // Row-major C[M, N] = A[M, K] . B[N, K]^T with A = x, B = w.
  const int rc = sgemm_(kLayoutRowMajor, kTransposeNo, kTransposeYes, M, N, K, 1.0f, x, 0, K, w,
                        0, K, 0.0f, dst, 0, N, &queue, event);
  if (rc != 0) return Status(Stage::Device, "CLBlastSgemm returned status " + std::to_string(rc));
  return Status();
}

}  // namespace clport::bench::detail
