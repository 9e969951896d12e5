// ROPE: rotary embedding of [head_dim, n_head, n_tokens] at positions n_past.., normal or NeoX
// pairs, optional frequency factors (src1). Reference in cpu_rope.cpp (angles in double), fast
// kernel in fast_rope.cpp (the same table, kept between calls).
#include "cpu_backend/fast_ops.h"
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {
namespace {

void rope_case(std::vector<CaseSpec>& out, int mode, Ne ne, int n_rot, int pos0, float scale, bool factors = false) {
  CaseSpec c;
  c.dtype = mode == 2 ? "f32 neox" : "f32 normal";
  c.shape = dims(ne) + " rot=" + std::to_string(n_rot) + " pos=" + std::to_string(pos0) +
            (scale != 1.0f ? " fs=0.5" : "") + (factors ? " ff" : "");
  c.src = {f32(ne)};
  if (factors) c.src.push_back(rope_factors(n_rot));
  c.dst = f32(ne);
  c.params.n_past = pos0;
  c.params.rope = clport_rope_params{mode, n_rot, 10000.0f, scale};
  c.threshold = kRope;
  out.push_back(c);
}

void rope_cases(std::vector<CaseSpec>& out, bool small) {
  for (int mode : {0, 2}) {
    rope_case(out, mode, {small ? 16 : 64, small ? 2 : 4, small ? 2 : 3, 1}, small ? 16 : 64, 0, 1.0f);
    rope_case(out, mode, {small ? 16 : 128, small ? 3 : 8, small ? 2 : 5, 1}, small ? 8 : 64,
              small ? 7 : 500, 1.0f);
    rope_case(out, mode, {6, 1, 1, 1}, 4, 3, 0.5f);
    rope_case(out, mode, {small ? 16 : 128, small ? 3 : 8, small ? 2 : 5, 1}, small ? 8 : 64, small ? 7 : 500,
              1.0f, true);
  }
}

}  // namespace

OpEntry rope() {
  OpEntry e;
  e.kind = CLPORT_OP_ROPE;
  e.name = "ROPE";
  e.short_name = "rope";
  e.check = cpu::detail::check_rope_operands;
  e.reference = cpu::detail::rope;
  e.fast = FastCpu::Kernel;
  e.fast_kernel = fastcpu::rope;
  e.cases = rope_cases;
  return e;
}

}  // namespace clport::ops::registry
