// ROPE+KV_STORE by cells (KV_STORE_ROPE_CELLS): a step over several sequences, each token's K and
// V stored at its own sequence's cell. Its reference runs ROPE+KV_STORE token by token
// (cpu_cells.cpp); a plan asks for it where a plugin claims it, or on the fast CPU backend, whose
// kernel (fast_cells.cpp) takes F16 and F32 caches. Its variants are told apart by the cache's
// dtype.
#include "cpu_backend/fast_ops.h"
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {
namespace {

// K and V of n tokens (slices of one fused projection) stored at their own cells of a cache of
// n_seq sequences, the rest of which must survive.
void kv_store_rope_cells_case(std::vector<CaseSpec>& out, DType kv, int mode, int64_t hd, int64_t nh, int64_t nkv,
                              int64_t n, int64_t n_seq, int64_t n_ctx, bool factors = false) {
  CaseSpec c;
  c.dtype = "kv " + tname(kv) + (mode == 2 ? " neox" : " normal");
  c.shape = "hd=" + std::to_string(hd) + " kv=" + std::to_string(nkv) + " n=" + std::to_string(n) +
            " seqs=" + std::to_string(n_seq) + " ctx=" + std::to_string(n_ctx) + (factors ? " ff" : "");
  const int64_t row = hd * (nh + 2 * nkv);
  c.src = {projection_slice(hd, nkv, n, row, hd * nh), projection_slice(hd, nkv, n, row, hd * (nh + nkv)),
           cells_of(n, n_seq, n_ctx)};
  if (factors) c.src.push_back(rope_factors(hd));
  c.dst = typed(kv, {hd, nkv, n_ctx, 2 * n_seq});
  c.dst.prefilled = true;
  c.params.rope = clport_rope_params{mode, static_cast<int32_t>(hd), 10000.0f, 1.0f};
  c.threshold = kRope;
  out.push_back(c);
}

void kv_store_rope_cells_cases(std::vector<CaseSpec>& out, bool small) {
  // Steps over several sequences of different lengths.
  for (DType kv : {DType::F16, DType::F32}) {
    for (int mode : {0, 2})
      kv_store_rope_cells_case(out, kv, mode, small ? 16 : 64, 4, 2, small ? 3 : 9, small ? 2 : 4, small ? 8 : 64);
    kv_store_rope_cells_case(out, kv, 0, small ? 16 : 64, 4, 2, small ? 2 : 5, 3, small ? 8 : 16, true);
  }
}

}  // namespace

OpEntry kv_store_rope_cells() {
  OpEntry e;
  e.kind = CLPORT_OP_KV_STORE_ROPE_CELLS;
  e.name = "ROPE+KV_STORE (cells)";
  e.short_name = "rope+kv_store cells";
  e.check = cpu::detail::check_kv_store_rope_cells_operands;
  e.reference = cpu::detail::kv_store_rope_cells;
  e.cases = kv_store_rope_cells_cases;
  e.key_source = kKeyDst;
  e.key_kind = KeyKind::KvCache;
  e.fast = FastCpu::Kernel;
  e.fast_kernel = fastcpu::kv_store_rope_cells;
  e.fast_takes = fastcpu::fast_takes_cache;
  return e;
}

}  // namespace clport::ops::registry
