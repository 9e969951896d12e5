// The parts of a LoadEstimate (model/llama_model.h), and the memory limit checked against it,
// whose error says what would shrink the load.
#pragma once

#include <cstdint>
#include <string>

#include "common/dtype.h"
#include "model/llama_model.h"
#include "clport/status.h"

namespace clport {

// K and V of n_ctx positions in every layer, in their types.
uint64_t kv_cache_bytes(const LlamaHParams& hp, uint32_t n_ctx, DType k_type, DType v_type);

// At most the activation bytes a model with these hyper-parameters allocates for batches of
// n_batch (before their lifetimes are planned).
uint64_t activation_bytes(const LlamaHParams& hp, uint32_t n_batch);

// OK when `estimate` fits `limit_bytes` (0: no limit); otherwise an OutOfMemory status that
// says what is needed, by part, and what would fit: the largest context at these KV types, and
// the KV cache at q8_0.
Status check_memory_limit(const LoadEstimate& estimate, uint64_t limit_bytes, const LlamaHParams& hp,
                          uint32_t n_ctx, DType k_type, DType v_type);

// "12.3 MiB" (or "4.0 KiB" below a MiB)
std::string mib_text(uint64_t bytes);

}  // namespace clport
