#include "model/memory_estimate.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "backend/backend.h"
#include "model/activation_arena.h"
#include "model/arch/arch_family.h"

namespace clport {

uint64_t kv_cache_bytes(const LlamaHParams& hp, uint32_t n_ctx, DType k_type, DType v_type) {
  const std::array<int64_t, 4> cells{hp.head_dim, hp.n_head_kv, n_ctx, 1};
  const auto per_layer = static_cast<uint64_t>(contiguous_strides(k_type, cells)[3] + contiguous_strides(v_type, cells)[3]);
  return per_layer * hp.n_layer;
}

uint64_t activation_bytes(const LlamaHParams& hp, uint32_t n_batch) {
  // An upper bound: every activation slot of llama_load.cpp at n_batch columns in bytes of its
  // own, each aligned, and the token ids. The arena places slots by lifetime and so needs less.
  const int64_t E = hp.n_embd, F = hp.n_ff, V = hp.n_vocab, NQ = hp.q_rows(), KV = hp.kv_rows();
  std::vector<int64_t> rows{E, E, NQ + 2 * KV, NQ, KV, NQ, E, F, F, F, V};
  if (hp.family->has(Slot::AttnQNorm)) rows.insert(rows.end(), {NQ, KV});
  uint64_t bytes = static_cast<uint64_t>(n_batch) * 4;
  for (int64_t r : rows) {
    const uint64_t slot = static_cast<uint64_t>(r) * n_batch * 4;
    bytes += (slot + ActivationSlots::kAlignment - 1) / ActivationSlots::kAlignment * ActivationSlots::kAlignment;
  }
  return bytes;
}

std::string mib_text(uint64_t bytes) {
  char text[32];
  if (bytes < (uint64_t{1} << 20)) {
    std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  } else {
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / 1048576.0);
  }
  return text;
}

Status check_memory_limit(const LoadEstimate& estimate, uint64_t limit_bytes, const LlamaHParams& hp,
                          uint32_t n_ctx, DType k_type, DType v_type) {
  if (limit_bytes == 0 || estimate.total() <= limit_bytes) return Status();
  const uint32_t n_seq = std::max<uint32_t>(estimate.n_seq, 1);
  const std::string sequences = n_seq == 1 ? "" : " in each of " + std::to_string(n_seq) + " sequences";
  std::string message = "the model needs about " + mib_text(estimate.total()) + " (weights " +
                        mib_text(estimate.weights) + ", KV cache " + mib_text(estimate.kv_cache) + " for " +
                        std::to_string(n_ctx) + " tokens" + sequences + " of " + std::string(dtype_name(k_type)) + " K and " +
                        std::string(dtype_name(v_type)) + " V, activations " + mib_text(estimate.activations) +
                        (estimate.scratch.empty() ? "" : ", plugin scratch " + mib_text(estimate.scratch_bytes())) +
                        ") but the memory limit is " + mib_text(limit_bytes);
  const uint64_t fixed = estimate.weights + estimate.activations + estimate.scratch_bytes();
  if (fixed >= limit_bytes) {
    return Status(Stage::OutOfMemory, message + ": the weights, activations and scratch alone exceed it (a "
                                                "smaller model, a lower-bit quantization or a smaller prompt batch -b)");
  }
  std::string shrink;
  const uint64_t per_token = kv_cache_bytes(hp, 1, k_type, v_type) * n_seq;
  const uint64_t fitting_ctx = per_token == 0 ? 0 : (limit_bytes - fixed) / per_token;
  if (fitting_ctx >= 1) shrink += "a context of at most " + std::to_string(fitting_ctx) + " tokens (-c " + std::to_string(fitting_ctx) + ")";
  const uint64_t per_sequence = kv_cache_bytes(hp, n_ctx, k_type, v_type);
  const uint64_t fitting_seq = per_sequence == 0 ? 0 : (limit_bytes - fixed) / per_sequence;
  if (n_seq > 1 && fitting_seq >= 1) {
    shrink += std::string(shrink.empty() ? "" : ", or ") + "at most " + std::to_string(fitting_seq) + " sequences";
  }
  const bool quantized = k_type == DType::Q8_0 || k_type == DType::Q4_0;
  if (!quantized) {
    const uint64_t q8 = kv_cache_bytes(hp, n_ctx, DType::Q8_0, DType::Q8_0) * n_seq;
    if (fixed + q8 <= limit_bytes) {
      shrink += std::string(shrink.empty() ? "" : ", or ") + "a q8_0 KV cache (--cache-type-k q8_0 --cache-type-v q8_0: " +
                mib_text(q8) + ")";
    }
  }
  if (shrink.empty()) return Status(Stage::OutOfMemory, message);
  return Status(Stage::OutOfMemory, message + ": " + shrink + " would fit");
}

}  // namespace clport
