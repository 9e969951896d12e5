// ATTENTION: causal attention of q over a KV cache (K and V each F16, F32, Q8_0 or Q4_0), grouped
// query heads, an optional sliding window. Reference in cpu_attention.cpp, fast kernel in
// fast_attention.cpp. Its variants are told apart by the cache's dtype (src1).
#include <cmath>
#include <optional>

#include "cpu_backend/fast_ops.h"
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {
namespace {

// K and V of types kv and v_type (kv for both unless given). A quantized cache is compared with a
// reference that reads the same quantized bytes (operands are filled once and both sides decode
// them alike), so only summation order differs: the float bound of an F16 cache holds.
void attention_case(std::vector<CaseSpec>& out, DType kv, int64_t hd, int64_t nh, int64_t nkv, int64_t nt,
                    int64_t n_past, int64_t n_ctx, int32_t window = 0, std::optional<DType> v = std::nullopt) {
  const DType v_type = v.value_or(kv);
  CaseSpec c;
  c.dtype = "kv " + tname(kv) + (v_type != kv ? "/" + tname(v_type) : "");
  c.shape = "hd=" + std::to_string(hd) + " h=" + std::to_string(nh) + "/" + std::to_string(nkv) +
            " t=" + std::to_string(nt) + " past=" + std::to_string(n_past) +
            " ctx=" + std::to_string(n_ctx) + window_suffix(window);
  c.src = {f32({hd, nh, nt, 1}), typed(kv, {hd, nkv, n_ctx, 1}), typed(v_type, {hd, nkv, n_ctx, 1})};
  c.dst = f32({hd, nh, nt, 1});
  c.params.n_past = static_cast<int32_t>(n_past);
  c.params.attention = clport_attention_params{1.0f / std::sqrt(static_cast<float>(hd)), window};
  c.threshold = kAttention;
  out.push_back(c);
}

void attention_cases(std::vector<CaseSpec>& out, bool small) {
  for (DType kv : {DType::F16, DType::F32}) {
    if (small) {
      attention_case(out, kv, 16, 4, 2, 3, 2, 8);
      attention_case(out, kv, 10, 2, 1, 1, 0, 3);
      attention_case(out, kv, 16, 2, 1, 3, 4, 8, 3);  // sliding window shorter than the keys
      continue;
    }
    attention_case(out, kv, 64, 4, 1, 5, 90, 128, 32);  // sliding window, prefill past its edge
    attention_case(out, kv, 256, 4, 1, 1, 200, 256, 100);  // Gemma 3 270M's head size, decode
    attention_case(out, kv, 64, 8, 2, 1, 37, 64);      // decode step, GQA 4:1
    attention_case(out, kv, 64, 4, 4, 7, 0, 16);       // prefill from empty, causal mask
    attention_case(out, kv, 128, 4, 2, 3, 200, 256);   // more keys than one work-group
    attention_case(out, kv, 80, 2, 1, 2, 5, 9);        // head_dim not a multiple of 64, MQA
    // Decode over hundreds of keys (the serial kernel's blocks of four keys and its remainder),
    // and a sliding window whose first key is not 0.
    attention_case(out, kv, 64, 6, 2, 1, 301, 512);
    attention_case(out, kv, 96, 4, 1, 1, 400, 512, 200);
  }
  // Quantized KV caches (head_dim a multiple of their 32-element blocks), alone and with K and V
  // of different types (the mixed kernels).
  for (DType kv : {DType::Q8_0, DType::Q4_0}) {
    attention_case(out, kv, 32, 4, 2, 3, 2, 8);
    attention_case(out, kv, 32, 2, 1, 3, 4, 8, 3);
    if (small) continue;
    attention_case(out, kv, 256, 4, 1, 1, 200, 256, 100);
    attention_case(out, kv, 64, 8, 2, 1, 37, 64);
    attention_case(out, kv, 64, 4, 4, 7, 0, 16);
    attention_case(out, kv, 128, 4, 2, 3, 200, 256);
    attention_case(out, kv, 64, 6, 2, 1, 301, 512);
  }
  attention_case(out, DType::Q8_0, 32, 4, 2, 3, 2, 8, 0, DType::F16);
  attention_case(out, DType::F16, 32, 4, 2, 1, 5, 8, 0, DType::Q4_0);
  if (small) return;
  attention_case(out, DType::F32, 64, 8, 2, 1, 37, 64, 0, DType::Q8_0);
  attention_case(out, DType::Q4_0, 128, 4, 2, 3, 200, 256, 0, DType::Q8_0);
  attention_case(out, DType::Q8_0, 64, 6, 2, 1, 301, 512, 0, DType::F16);
  // A prompt's batch of queries (a plugin's tiled prompt kernel), as ROPE+ATTENTION has them, on
  // each cache type.
  for (DType kv : {DType::F16, DType::F32, DType::Q8_0, DType::Q4_0}) attention_case(out, kv, 64, 4, 2, 70, 3, 128);
}

}  // namespace

OpEntry attention() {
  OpEntry e;
  e.kind = CLPORT_OP_ATTENTION;
  e.name = "ATTENTION";
  e.short_name = "attention";
  e.check = cpu::detail::check_attention_operands;
  e.reference = cpu::detail::attention;
  e.fast = FastCpu::Kernel;
  e.fast_kernel = fastcpu::attention;
  e.cases = attention_cases;
  e.key_source = 1;
  e.key_kind = KeyKind::KvCache;
  return e;
}

}  // namespace clport::ops::registry
