// What loading a model will take, known before anything is allocated: its weights, its KV cache
// and its activation buffers. The memory limit (LlamaOptions::memory_limit_bytes) is checked
// against it, and the error says what would shrink the load.
#pragma once

#include <cstdint>
#include <string>

#include "clport/dtype.h"
#include "clport/llama_model.h"
#include "clport/status.h"

namespace clport {

struct LoadEstimate {
  uint64_t weights = 0;      // the weight tensors' bytes (a repacked layout is the same size)
  uint64_t kv_cache = 0;
  uint64_t activations = 0;  // the model's activation buffers, sized for the prompt batch
  uint64_t total() const { return weights + kv_cache + activations; }
};

// K and V of n_ctx positions in every layer, in their types.
uint64_t kv_cache_bytes(const LlamaHParams& hp, uint32_t n_ctx, DType k_type, DType v_type);

// The activation buffers a model with these hyper-parameters allocates for batches of n_batch.
uint64_t activation_bytes(const LlamaHParams& hp, uint32_t n_batch);

// OK when `estimate` fits `limit_bytes` (0: no limit); otherwise an OutOfMemory status that
// says what is needed, by part, and what would fit: the largest context at these KV types, and
// the KV cache at q8_0.
Status check_memory_limit(const LoadEstimate& estimate, uint64_t limit_bytes, const LlamaHParams& hp,
                          uint32_t n_ctx, DType k_type, DType v_type);

// "12.3 MiB" (or "4.0 KiB" below a MiB)
std::string mib_text(uint64_t bytes);

}  // namespace clport
