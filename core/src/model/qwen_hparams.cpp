// The qwen2 family (Qwen 2 / 2.5 dense models) and the qwen3 family (Qwen 3 dense models), as
// llama.cpp runs them: RoPE NeoX (halves) on the whole head, SwiGLU FFN, 1/sqrt(head size)
// scores, the output projection tied to the embedding when the file has no output.weight.
//  - qwen2: biases on the Q, K and V projections; head size n_embd / n_head.
//  - qwen3: no biases; RMSNorm on each Q and K head before RoPE (attn_q_norm / attn_k_norm);
//    head size from attention.key_length (Qwen 3 0.6B: 128 against 1024 / 16 = 64).
#include "model/hparams_read.h"

namespace clport {

Status read_qwen2_hparams(const GgufFile& file, LlamaHParams& hp) {
  CLPORT_RETURN_IF_ERROR(read_llama_like_hparams(file, hp, 2));
  hp.qkv_bias = true;
  return Status();
}

Status read_qwen3_hparams(const GgufFile& file, LlamaHParams& hp) {
  CLPORT_RETURN_IF_ERROR(read_llama_like_hparams(file, hp, 2));
  hp.qk_norm = true;
  return Status();
}

}  // namespace clport
