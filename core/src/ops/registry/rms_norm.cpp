// RMS_NORM: each row divided by its root mean square (plus eps), times the optional weight src1.
// Reference in cpu_norm.cpp (sums in double), fast kernel in fast_norm_swiglu.cpp.
#include "cpu_backend/fast_ops.h"
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {
namespace {

void rms_norm_case(std::vector<CaseSpec>& out, Ne ne, bool weight) {
  CaseSpec c;
  c.dtype = weight ? "f32 +w" : "f32";
  c.shape = dims(ne);
  c.src = {f32(ne, 3.0f)};
  if (weight) c.src.push_back(f32({ne[0], 1, 1, 1}));
  c.dst = f32(ne);
  c.params.eps = 1e-5f;
  c.threshold = kReduce;
  out.push_back(c);
}

void rms_norm_cases(std::vector<CaseSpec>& out, bool small) {
  rms_norm_case(out, {small ? 100 : 4096, 1, 1, 1}, true);
  rms_norm_case(out, {small ? 33 : 1000, small ? 3 : 7, 1, 1}, true);
  rms_norm_case(out, {small ? 17 : 333, 3, 1, 1}, false);
}

}  // namespace

OpEntry rms_norm() {
  OpEntry e;
  e.kind = CLPORT_OP_RMS_NORM;
  e.name = "RMS_NORM";
  e.short_name = "rms_norm";
  e.check = cpu::detail::check_rms_norm_operands;
  e.reference = cpu::detail::rms_norm;
  e.fast = FastCpu::Kernel;
  e.fast_kernel = fastcpu::rms_norm;
  e.cases = rms_norm_cases;
  return e;
}

}  // namespace clport::ops::registry
