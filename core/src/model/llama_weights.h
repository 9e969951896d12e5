// Internal: the tensors of a loaded LLaMA model, its activations, and what the device's plugins
// claimed to fuse.
#pragma once

#include <map>
#include <tuple>
#include <vector>

#include "backend/backend.h"
#include "model/llama_model.h"
#include "model/activation_arena.h"
#include "model/llama_plan.h"

namespace clport {

struct LlamaModel::Weights {
  struct Layer {
    TensorRef attn_norm, wq, wk, wv, wo;
    TensorRef wqkv;  // Q, K and V rows in one weight when fused (then wq/wk/wv are unset)
    TensorRef bq, bk, bv, bqkv;  // projection biases (qkv_bias families); bqkv goes with wqkv
    TensorRef ffn_norm, w_gate, w_up, w_down;
    TensorRef attn_q_norm, attn_k_norm;       // [head_dim] per-head norms (qk_norm families)
    TensorRef post_attn_norm, post_ffn_norm;  // [n_embd] output norms (post_norms families)
    // The layer's KV cache: one tensor [head_dim, n_head_kv, n_ctx, 2 n_seq] when K and V have
    // one type, else a K and a V tensor [head_dim, n_head_kv, n_ctx, n_seq]. Each sequence's part
    // is laid out as a one-sequence cache would be, so every op sees the shapes it always did.
    TensorRef kv_alloc, k_alloc, v_alloc;
    struct SequenceCache {
      // [head_dim, n_head_kv, n_ctx, 2]: K at index 0 of dim 3, V at 1; only when K and V have
      // one type (the fused store ops take it), else unset.
      TensorRef kv_cache;
      TensorRef k_cache, v_cache;  // [head_dim, n_head_kv, n_ctx]
    };
    std::vector<SequenceCache> cache;  // by sequence
  };
  TensorRef tok_embd;     // [n_embd, n_vocab], read by GET_ROWS
  TensorRef output_norm;  // [n_embd]
  TensorRef output;       // [n_embd, n_vocab]; tok_embd when tied
  TensorRef rope_factors; // F32 [n_rot / 2] RoPE frequency factors of every layer, or unset
  std::vector<Layer> layers;
};

// The activations of a step: placeholders of n_batch columns that the graph builders view
// (activation_arena.h places them per plan and moves each plan onto the arena), and the token
// ids, which the host writes before the plan runs. qkv holds the projections: as one
// [n_q + 2 n_kv, n] matrix when the layer's weights are fused, else as three [rows, n_batch]
// regions (Q, then K, then V).
struct LlamaModel::Scratch {
  TensorRef ids;       // I32 [n_batch], a buffer of its own
  // I32 [2, n_batch], a buffer of its own: each token's (sequence, position) in a step over several
  // sequences whose attention runs as the *_CELLS ops (plugin_abi.h); the host writes it per step.
  TensorRef cells;
  ActivationSlots slots;
  TensorRef x;         // residual stream [n_embd, n_batch]
  TensorRef xn;        // normalised input of attention / FFN
  TensorRef qkv;       // projections (see above)
  TensorRef q_rope, k_rope;  // rotated Q / K when RoPE runs as its own op (and normed Q / K)
  TensorRef q_tmp, k_tmp;    // contiguous copies of Q / K heads for the per-head norm (qk_norm)
  TensorRef attn;      // attention output [n_head * head_dim, n_batch]
  TensorRef proj;      // attention / FFN-down projection before the residual add
  TensorRef gate, up, act;  // [n_ff, n_batch]
  TensorRef logits;    // [n_vocab, n_batch]
  TensorRef arena;     // what the plans' activations lie in; grows to the largest plan's need
};

// Plans built so far, by (step shape, logit rows, hooked), and whether fusion may be asked for at
// all (ModelOptions::fusion). A shape names its sequences and token counts, which vary with
// prompts and with a server's requests, so the least recently used plans are dropped past
// max_plans (32, and 2 more per sequence: each sequence's decode and prompt plans stay).
struct LlamaModel::Plans {
  Plans();
  bool fusion = false;
  size_t max_plans = 32;
  using Key = std::tuple<StepShape, int64_t, bool>;
  std::map<Key, ForwardPlan> by_shape;
  std::vector<Key> by_use;  // least recently used first
  void used(const Key& key);
};

}  // namespace clport
