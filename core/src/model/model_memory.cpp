// LlamaModel::memory: the accounting of a loaded model. Weights and plugin scratch come from the
// backend, which counts them where they are placed; the KV cache and the activations from the
// model's own tensors, so that the two sides are counted independently (a test checks that they
// add up to what the backend allocated).
#include "clport/llama_model.h"
#include "model/llama_weights.h"

namespace clport {

ModelMemory LlamaModel::memory() const {
  const BackendMemoryStats stats = backend_.memory_stats();
  ModelMemory m;
  m.weights = stats.weights;
  m.plugin_scratch = stats.plugin_scratch;
  m.allocated_bytes = stats.allocated_bytes;
  m.plain_freed_bytes = stats.plain_freed_bytes;
  for (const auto& L : w_->layers) {
    // K and V as two tensors, or as the two halves of one (then both views together are it).
    m.kv_cache_bytes += L.k_cache.bytes() + L.v_cache.bytes();
  }
  const Scratch& s = *s_;
  // proj aliases qkv (llama_weights.h): counted once.
  for (const TensorRef* t : {&s.ids, &s.x, &s.xn, &s.qkv, &s.q_rope, &s.k_rope, &s.q_tmp, &s.k_tmp, &s.attn, &s.gate,
                             &s.up, &s.act, &s.logits})
    if (t->valid()) m.activation_bytes += t->bytes();
  return m;
}

}  // namespace clport
