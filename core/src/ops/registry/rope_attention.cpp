// ROPE+ATTENTION: ATTENTION whose query is rotated first. Its reference composes ROPE and
// ATTENTION (cpu_fused.cpp); a plan takes it only where a plugin claims it. Its variants are told
// apart by the cache's dtype (src1).
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {
namespace {

// Attention whose query (a slice of a fused projection) is rotated first.
void rope_attention_case(std::vector<CaseSpec>& out, DType kv, int mode, int64_t hd, int64_t nh, int64_t nkv,
                         int64_t nt, int64_t n_past, int64_t n_ctx, int32_t window = 0, bool factors = false) {
  CaseSpec c;
  c.dtype = "kv " + tname(kv) + (mode == 2 ? " neox" : " normal");
  c.shape = "hd=" + std::to_string(hd) + " h=" + std::to_string(nh) + "/" + std::to_string(nkv) +
            " t=" + std::to_string(nt) + " past=" + std::to_string(n_past) + " ctx=" + std::to_string(n_ctx) +
            window_suffix(window) + (factors ? " ff" : "");
  c.src = {projection_slice(hd, nh, nt, hd * (nh + 2 * nkv), 0), typed(kv, {hd, nkv, n_ctx, 1}),
           typed(kv, {hd, nkv, n_ctx, 1})};
  if (factors) c.src.push_back(rope_factors(hd));
  c.dst = f32({hd, nh, nt, 1});
  set_rope_attention_params(c, mode, n_past, hd);
  c.params.attention.window = window;
  c.threshold = kAttention;
  out.push_back(c);
}

void rope_attention_cases(std::vector<CaseSpec>& out, bool small) {
  for (DType kv : {DType::F16, DType::F32}) {
    for (int mode : {0, 2})
      rope_attention_case(out, kv, mode, small ? 16 : 64, 4, 2, small ? 2 : 3, small ? 2 : 37, small ? 8 : 64);
    rope_attention_case(out, kv, 2, small ? 16 : 64, 4, 2, small ? 2 : 3, small ? 2 : 37, small ? 8 : 64, 0, true);
    if (!small) rope_attention_case(out, kv, 0, 64, 9, 3, 1, 100, 128);
    // A prompt's batch of queries (a plugin's tiled prompt kernel): more tokens than one block
    // of them, a window shorter than the batch, head sizes 64 and 128.
    rope_attention_case(out, kv, 2, small ? 16 : 64, 4, 2, small ? 9 : 70, small ? 1 : 5, small ? 16 : 128);
    if (!small) {
      rope_attention_case(out, kv, 2, 64, 4, 1, 70, 20, 128, 24);
      rope_attention_case(out, kv, 0, 128, 4, 2, 40, 3, 64, 0, true);
      // Several blocks of 128 queries, the last one partial, over a cache of 16 tiles of 32 keys
      // and more, with and without a window.
      rope_attention_case(out, kv, 2, 128, 8, 2, 300, 211, 512);
      rope_attention_case(out, kv, 0, 128, 4, 1, 260, 40, 320, 100);
    }
    rope_attention_case(out, kv, 2, small ? 16 : 64, 4, 1, small ? 2 : 4, small ? 5 : 60, small ? 8 : 64,
                        small ? 3 : 20);
  }
  // A quantized cache (one type for K and V: the joint cache).
  for (DType kv : {DType::Q8_0, DType::Q4_0})
    rope_attention_case(out, kv, 2, small ? 32 : 64, 4, 2, small ? 2 : 3, small ? 2 : 37, small ? 8 : 64);
}

}  // namespace

OpEntry rope_attention() {
  OpEntry e;
  e.kind = CLPORT_OP_ROPE_ATTENTION;
  e.name = "ROPE+ATTENTION";
  e.short_name = "rope+attention";
  e.check = cpu::detail::check_rope_attention_operands;
  e.reference = cpu::detail::rope_attention;
  e.cases = rope_attention_cases;
  e.key_source = 1;
  e.key_kind = KeyKind::KvCache;
  e.fused = true;
  return e;
}

}  // namespace clport::ops::registry
