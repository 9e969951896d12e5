// ROPE+ATTENTION by cells (ROPE_ATTENTION_CELLS): a step over several sequences, each token
// rotated at its own position and attending over its own sequence. Its reference runs
// ROPE+ATTENTION token by token (cpu_cells.cpp); a plan asks for it where a plugin claims it, or on
// the fast CPU backend, whose kernel (fast_cells.cpp) takes F16 and F32 caches. Its variants are
// told apart by the cache's dtype (src1).
#include "cpu_backend/fast_ops.h"
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {
namespace {

// n tokens, each at its own cell, attending over its own sequence of a cache of n_seq.
void rope_attention_cells_case(std::vector<CaseSpec>& out, DType kv, int mode, int64_t hd, int64_t nh,
                               int64_t nkv, int64_t n, int64_t n_seq, int64_t n_ctx, int32_t window = 0,
                               bool factors = false) {
  CaseSpec c;
  c.dtype = "kv " + tname(kv) + (mode == 2 ? " neox" : " normal");
  c.shape = "hd=" + std::to_string(hd) + " h=" + std::to_string(nh) + "/" + std::to_string(nkv) + " n=" +
            std::to_string(n) + " seqs=" + std::to_string(n_seq) + " ctx=" + std::to_string(n_ctx) +
            window_suffix(window) + (factors ? " ff" : "");
  c.src = {projection_slice(hd, nh, n, hd * (nh + 2 * nkv), 0), typed(kv, {hd, nkv, n_ctx, 2 * n_seq}),
           cells_of(n, n_seq, n_ctx)};
  if (factors) c.src.push_back(rope_factors(hd));
  c.dst = f32({hd, nh, n, 1});
  set_rope_attention_params(c, mode, 0, hd);
  c.params.attention.window = window;
  c.threshold = kAttention;
  out.push_back(c);
}

void rope_attention_cells_cases(std::vector<CaseSpec>& out, bool small) {
  // Steps over several sequences of different lengths.
  for (DType kv : {DType::F16, DType::F32}) {
    for (int mode : {0, 2}) {
      rope_attention_cells_case(out, kv, mode, small ? 16 : 64, small ? 4 : 8, 2, small ? 3 : 9, small ? 2 : 4,
                                small ? 8 : 64);
    }
    rope_attention_cells_case(out, kv, 2, small ? 16 : 64, 4, 1, small ? 3 : 6, 3, small ? 8 : 128, small ? 3 : 20,
                              true);
    if (small) continue;
    rope_attention_cells_case(out, kv, 0, 128, 8, 2, 64, 16, 640);  // a decode step of 64 sequences
    // Gemma 3's head size over a sliding window, a group of 7 query heads (Qwen2), a head size
    // of 96 without grouping (Phi-3), and caches long enough for several chunks per key range.
    rope_attention_cells_case(out, kv, 2, 256, 8, 2, 8, 4, 1000, 300);
    rope_attention_cells_case(out, kv, 2, 64, 14, 2, 5, 5, 300);
    rope_attention_cells_case(out, kv, 2, 96, 6, 6, 4, 2, 200);
    rope_attention_cells_case(out, kv, 0, 128, 32, 8, 4, 4, 3000);
    // The largest group (8 query heads a KV head) and none at the tensor-core kernel's head sizes.
    rope_attention_cells_case(out, kv, 0, 128, 16, 2, 6, 3, 500, 100);
    rope_attention_cells_case(out, kv, 2, 64, 4, 4, 7, 7, 150);
  }
}

}  // namespace

OpEntry rope_attention_cells() {
  OpEntry e;
  e.kind = CLPORT_OP_ROPE_ATTENTION_CELLS;
  e.name = "ROPE+ATTENTION (cells)";
  e.short_name = "rope+attention cells";
  e.check = cpu::detail::check_rope_attention_cells_operands;
  e.reference = cpu::detail::rope_attention_cells;
  e.cases = rope_attention_cells_cases;
  e.key_source = 1;
  e.key_kind = KeyKind::KvCache;
  e.fast = FastCpu::Kernel;
  e.fast_kernel = fastcpu::rope_attention_cells;
  e.fast_takes = fastcpu::fast_takes_cache;
  return e;
}

}  // namespace clport::ops::registry
