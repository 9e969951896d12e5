// LlamaModel::memory: the accounting of a loaded model. Weights and plugin scratch come from the
// backend, which counts them where they are placed; the KV cache and the activations from the
// model's own tensors, so that the two sides are counted independently (a test checks that they
// add up to what the backend allocated).
#include "model/llama_model.h"
#include "model/llama_weights.h"

namespace clport {

ModelMemory LlamaModel::memory() const {
  const BackendMemoryStats stats = backend_.memory_stats();
  ModelMemory m;
  m.weights = stats.weights;
  m.plugin_scratch = stats.plugin_scratch;
  m.plugin_scratch_declared = declared_scratch_;
  m.allocated_bytes = stats.allocated_bytes;
  m.plain_freed_bytes = stats.plain_freed_bytes;
  for (const auto& L : w_->layers) {
    // K and V as one tensor or as two (every sequence's cells).
    for (const TensorRef* t : {&L.kv_alloc, &L.k_alloc, &L.v_alloc}) {
      if (t->valid()) m.kv_cache_bytes += t->bytes();
    }
  }
  m.activation_bytes = s_->ids.bytes() + (s_->cells.valid() ? s_->cells.bytes() : 0) +
                       (s_->arena.valid() ? s_->arena.bytes() : 0);
  return m;
}

}  // namespace clport
