// Internal to `clport bench ops`: CLBlast's SGEMM, loaded at run time (libclblast.so.1) as the
// reference F32 GEMM. CLBlast calls OpenCL through the ICD loader it links, so it can only be
// handed our context's objects when they belong to a platform that ICD loader knows (clport
// using the ICD loader itself, or the same vendor ICD library it dispatches to).
#pragma once

#include <memory>

#include "clport_devtools/bench_ops.h"
#include "runtime/device_context.h"

namespace clport::bench::detail {

class ClblastSgemm {
 public:
  // nullptr with info->reason set when CLBlast is absent or cannot share our objects.
  static std::unique_ptr<ClblastSgemm> open(DeviceContext& ctx, ClblastInfo* info);

  // dst[M, N] = x[M, K] . w[N, K]^T (row-major, the layout of clport's mat-mul), on the
  // context's queue. *event is the last kernel CLBlast enqueued (owned by the caller).
  Status enqueue(cl_mem w, cl_mem x, cl_mem dst, size_t M, size_t N, size_t K, cl_event* event);

 private:
  using SgemmFn = int (*)(int layout, int a_transpose, int b_transpose, size_t m, size_t n,
                          size_t k, float alpha, cl_mem a, size_t a_offset, size_t a_ld, cl_mem b,
                          size_t b_offset, size_t b_ld, float beta, cl_mem c, size_t c_offset,
                          size_t c_ld, cl_command_queue* queue, cl_event* event);
  ClblastSgemm(DeviceContext& ctx, SgemmFn fn) : ctx_(ctx), sgemm_(fn) {}
  DeviceContext& ctx_;
  SgemmFn sgemm_;
};

}  // namespace clport::bench::detail
