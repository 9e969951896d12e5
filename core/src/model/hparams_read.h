// Internal: reading the hyper-parameters of each architecture family from "<arch>.<key>"
// GGUF keys. model_hparams.cpp picks the family by general.architecture.
#pragma once

#include "gguf/gguf.h"
#include "model/llama_model.h"

namespace clport {

// The keys every family shares (sizes, head counts, context, rms epsilon, rope base and
// scaling); hp.arch is set. Head size is left to the family.
Status read_shared_hparams(const GgufFile& file, LlamaHParams& hp);
// Head size from attention.key_length (which must equal value_length when both are present),
// else n_embd / n_head (which must then divide); n_rot from rope.dimension_count, else the head.
Status read_head_size(const GgufFile& file, LlamaHParams& hp);
// What the llama-built families share: the shared keys, the head size, the given RoPE mode and
// 1/sqrt(head size) scores. Each family then sets what is its own.
Status read_llama_like_hparams(const GgufFile& file, LlamaHParams& hp, int32_t rope_mode);
// The rest of each family.
Status read_llama_family_hparams(const GgufFile& file, LlamaHParams& hp);
Status read_gemma3_hparams(const GgufFile& file, LlamaHParams& hp);
Status read_qwen2_hparams(const GgufFile& file, LlamaHParams& hp);
Status read_qwen3_hparams(const GgufFile& file, LlamaHParams& hp);
Status read_phi3_hparams(const GgufFile& file, LlamaHParams& hp);
// Limits every family's values must keep (a corrupt header must not become a giant allocation).
Status check_hparams(const LlamaHParams& hp);

inline Status hparams_error(const std::string& message) { return Status(Stage::Model, message); }

}  // namespace clport
