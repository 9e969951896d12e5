// ROPE+KV_STORE+ATTENTION: ROPE+KV_STORE followed by ROPE+ATTENTION over the cache it stored into
// (src3). Its reference composes the two (cpu_fused.cpp); a plan takes it only where a plugin
// claims it. Its variants are told apart by the cache's dtype.
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {
namespace {

// One decode token's RoPE + KV store + attention: its K and V are slices of the projection, the
// cache (src3) holds the earlier positions.
void rope_kv_store_attention_case(std::vector<CaseSpec>& out, DType kv, int mode, int64_t hd, int64_t nh,
                                  int64_t nkv, int64_t n_past, int64_t n_ctx, int32_t window = 0) {
  CaseSpec c;
  c.dtype = "kv " + tname(kv) + (mode == 2 ? " neox" : " normal");
  c.shape = "hd=" + std::to_string(hd) + " h=" + std::to_string(nh) + "/" + std::to_string(nkv) +
            " past=" + std::to_string(n_past) + " ctx=" + std::to_string(n_ctx) + window_suffix(window);
  const int64_t row = hd * (nh + 2 * nkv);
  c.src = {projection_slice(hd, nh, 1, row, 0), projection_slice(hd, nkv, 1, row, hd * nh),
           projection_slice(hd, nkv, 1, row, hd * (nh + nkv)), typed(kv, {hd, nkv, n_ctx, 2})};
  c.dst = f32({hd, nh, 1, 1});
  c.inout_src = 3;  // the cache: slot n_past gets this token's K and V
  set_rope_attention_params(c, mode, n_past, hd);
  c.params.attention.window = window;
  c.threshold = kAttention;
  out.push_back(c);
}

void rope_kv_store_attention_cases(std::vector<CaseSpec>& out, bool small) {
  const bool big = !small;
  for (DType kv : {DType::F16, DType::F32}) {
    for (int mode : {0, 2})
      rope_kv_store_attention_case(out, kv, mode, small ? 16 : 64, small ? 4 : 8, 2, small ? 2 : 37, small ? 8 : 64);
    rope_kv_store_attention_case(out, kv, 2, small ? 16 : 64, 4, 1, small ? 5 : 90, small ? 8 : 128, small ? 3 : 40);
    if (big) rope_kv_store_attention_case(out, kv, 0, 64, 9, 3, 130, 256);  // more keys than a work-group
    if (big) rope_kv_store_attention_case(out, kv, 2, 64, 4, 1, 301, 512, 150);  // hundreds of keys, window
    // Long caches with few heads: the GPU decode attention splits the keys into ranges (4 on a
    // 2-unit device; one range ends mid-chunk, one head group shares its new key).
    if (big) rope_kv_store_attention_case(out, kv, 0, 64, 2, 1, 477, 512);
    if (big) rope_kv_store_attention_case(out, kv, 2, 128, 2, 2, 1000, 1024);
  }
  // A quantized cache (one type for K and V: the joint cache).
  for (DType kv : {DType::Q8_0, DType::Q4_0}) {
    for (int mode : {0, 2})
      rope_kv_store_attention_case(out, kv, mode, small ? 32 : 64, small ? 4 : 8, 2, small ? 2 : 37, small ? 8 : 64);
    if (big) rope_kv_store_attention_case(out, kv, 0, 256, 4, 1, 130, 256);  // Gemma 3 270M's head size
    if (big) rope_kv_store_attention_case(out, kv, 0, 64, 2, 1, 477, 512);   // split into key ranges
    if (big) rope_kv_store_attention_case(out, kv, 2, 64, 4, 1, 1000, 1024);  // CPU ranges are longer
  }
}

}  // namespace

OpEntry rope_kv_store_attention() {
  OpEntry e;
  e.kind = CLPORT_OP_ROPE_KV_STORE_ATTENTION;
  e.name = "ROPE+KV_STORE+ATTENTION";
  e.short_name = "rope+kv_store+attention";
  e.check = cpu::detail::check_rope_kv_store_attention_operands;
  e.reference = cpu::detail::rope_kv_store_attention;
  e.cases = rope_kv_store_attention_cases;
  e.key_source = 3;
  e.key_kind = KeyKind::KvCache;
  e.fused = true;
  return e;
}

}  // namespace clport::ops::registry
