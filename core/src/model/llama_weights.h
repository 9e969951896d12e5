// Internal: the tensors of a loaded LLaMA model and its scratch (activation) buffers.
#pragma once

#include <vector>

#include "clport/backend.h"
#include "clport/llama_model.h"

namespace clport {

struct LlamaModel::Weights {
  struct Layer {
    TensorRef attn_norm, wq, wk, wv, wo;
    TensorRef ffn_norm, w_gate, w_up, w_down;
    TensorRef k_cache, v_cache;  // [head_dim, n_head_kv, n_ctx]
  };
  TensorRef tok_embd;     // [n_embd, n_vocab], read by GET_ROWS
  TensorRef output_norm;  // [n_embd]
  TensorRef output;       // [n_embd, n_vocab]; tok_embd when tied
  std::vector<Layer> layers;
};

// Activation buffers sized for n_batch tokens, allocated once and reused by every layer and
// step. Lifetimes inside one layer decide the sharing: q_out holds Q until attention reads it,
// then the attention projection and later the FFN down projection (both [n_embd, n]), since Q is
// dead by then. Everything else is live at the same time somewhere in a layer.
struct LlamaModel::Scratch {
  TensorRef ids;       // I32 [n_batch]
  TensorRef x;         // residual stream [n_embd, n_batch]
  TensorRef xn;        // normalised input of attention / FFN
  TensorRef q, k, v;   // projections
  TensorRef q_rope, k_rope;
  TensorRef attn;      // attention output [n_embd, n_batch]
  TensorRef proj;      // attention / FFN-down projection (aliases q, see above)
  TensorRef gate, up, act;  // [n_ff, n_batch]
  TensorRef logits;    // [n_vocab, n_batch]
};

}  // namespace clport
