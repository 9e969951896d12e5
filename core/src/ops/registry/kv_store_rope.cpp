// ROPE+KV_STORE (KV_STORE_ROPE): K rotated and K, V stored at positions n_past.. of one layer's
// cache [head_dim, n_kv_head, n_ctx, 2]. Its reference composes ROPE and COPY (cpu_fused.cpp); a
// plan takes it only where a plugin claims it. Its variants are told apart by the cache's dtype.
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {
namespace {

// K rotated and K, V stored at positions pos.. of a [hd, nkv, n_ctx, 2] cache (the rest of the
// cache holds values that must survive), from slices of one fused Q/K/V row.
void kv_store_rope_case(std::vector<CaseSpec>& out, DType kv, int mode, int64_t hd, int64_t nh, int64_t nkv,
                        int64_t n, int64_t pos, int64_t n_ctx, bool factors = false) {
  CaseSpec c;
  c.dtype = "kv " + tname(kv) + (mode == 2 ? " neox" : " normal");
  c.shape = "hd=" + std::to_string(hd) + " kv=" + std::to_string(nkv) + " n=" + std::to_string(n) +
            " pos=" + std::to_string(pos) + " ctx=" + std::to_string(n_ctx) + (factors ? " ff" : "");
  const int64_t row = hd * (nh + 2 * nkv);
  c.src = {projection_slice(hd, nkv, n, row, hd * nh), projection_slice(hd, nkv, n, row, hd * (nh + nkv))};
  if (factors) c.src.push_back(rope_factors(hd));
  c.dst = typed(kv, {hd, nkv, n_ctx, 2});
  c.dst.prefilled = true;
  c.params.n_past = static_cast<int32_t>(pos);
  c.params.rope = clport_rope_params{mode, static_cast<int32_t>(hd), 10000.0f, 1.0f};
  c.threshold = traits(kv).block_size > 1 ? kKvQuant : kRope;
  out.push_back(c);
}

void kv_store_rope_cases(std::vector<CaseSpec>& out, bool small) {
  for (DType kv : {DType::F16, DType::F32}) {
    for (int mode : {0, 2})
      kv_store_rope_case(out, kv, mode, small ? 8 : 64, 4, 2, small ? 1 : 3, small ? 2 : 5, small ? 4 : 16);
    kv_store_rope_case(out, kv, 0, small ? 8 : 64, 4, 2, small ? 1 : 3, small ? 2 : 5, small ? 4 : 16, true);
  }
  // A quantized cache (one type for K and V: the joint cache).
  for (DType kv : {DType::Q8_0, DType::Q4_0}) {
    for (int mode : {0, 2})
      kv_store_rope_case(out, kv, mode, small ? 32 : 64, 4, 2, small ? 1 : 3, small ? 2 : 5, small ? 4 : 16);
    kv_store_rope_case(out, kv, 0, small ? 32 : 64, 4, 2, small ? 1 : 3, small ? 2 : 5, small ? 4 : 16, true);
  }
}

}  // namespace

OpEntry kv_store_rope() {
  OpEntry e;
  e.kind = CLPORT_OP_KV_STORE_ROPE;
  e.name = "ROPE+KV_STORE";
  e.short_name = "rope+kv_store";
  e.check = cpu::detail::check_kv_store_rope_operands;
  e.reference = cpu::detail::kv_store_rope;
  e.cases = kv_store_rope_cases;
  e.key_source = kKeyDst;
  e.key_kind = KeyKind::KvCache;
  e.fused = true;
  return e;
}

}  // namespace clport::ops::registry
