// The llama family (LLaMA 2/3.x, SmolLM2, TinyLlama): head size n_embd / n_head, interleaved-pair
// RoPE (llama GGUF files store Q and K permuted for it), SwiGLU FFN, 1/sqrt(head size) scores.
// Llama 3.1+ files carry rope_freqs.weight (the converter's frequency factors for the model's
// rope scaling); the loader hands it to every RoPE.
#include <cmath>

#include "model/hparams_read.h"

namespace clport {

Status read_llama_like_hparams(const GgufFile& file, LlamaHParams& hp, int32_t rope_mode) {
  CLPORT_RETURN_IF_ERROR(read_shared_hparams(file, hp));
  CLPORT_RETURN_IF_ERROR(read_head_size(file, hp));
  hp.rope_mode = rope_mode;
  hp.attn_scale = 1.0f / std::sqrt(static_cast<float>(hp.head_dim));
  return Status();
}

Status read_llama_family_hparams(const GgufFile& file, LlamaHParams& hp) {
  return read_llama_like_hparams(file, hp, 0);
}

}  // namespace clport
