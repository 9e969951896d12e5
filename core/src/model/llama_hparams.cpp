// The llama family (LLaMA 2/3, SmolLM2, TinyLlama): head size n_embd / n_head, interleaved-pair
// RoPE (llama GGUF files store Q and K permuted for it), SwiGLU FFN, 1/sqrt(head size) scores.
#include <cmath>

#include "model/hparams_read.h"

namespace clport {

Status read_llama_family_hparams(const GgufFile& file, LlamaHParams& hp) {
  hp.rope_mode = 0;
  CLPORT_RETURN_IF_ERROR(read_shared_hparams(file, hp));
  const std::string p = hp.arch + ".";
  if (hp.n_head == 0 || hp.n_embd % hp.n_head != 0) {
    return hparams_error(p + "attention.head_count must divide embedding_length");
  }
  hp.head_dim = hp.n_embd / hp.n_head;
  auto n_rot = file.get_u32_or(p + "rope.dimension_count", hp.head_dim);
  if (!n_rot.ok()) return n_rot.status();
  hp.n_rot = n_rot.value();
  hp.attn_scale = 1.0f / std::sqrt(static_cast<float>(hp.head_dim));
  return Status();
}

}  // namespace clport
