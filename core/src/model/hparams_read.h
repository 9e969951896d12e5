// Internal: reading the hyper-parameters of an architecture family from "<arch>.<key>" GGUF keys.
// model_hparams.cpp finds the family in the registry (model/arch/) and runs its reader, which
// builds on the readers here.
#pragma once

#include "gguf/gguf.h"
#include "model/llama_model.h"

namespace clport {

// A corrupt header must not become a giant per-layer allocation.
inline constexpr uint32_t kMaxLayers = 512;

// The keys every family shares (sizes, head counts, context, rms epsilon, rope base and
// scaling); hp.arch is set. Every layer gets the model's RoPE and no window (hp.layer_attn).
// Head size is left to the family.
Status read_shared_hparams(const GgufFile& file, LlamaHParams& hp);
// Head size from attention.key_length (which must equal value_length when both are present),
// else n_embd / n_head (which must then divide); n_rot from rope.dimension_count, else the head.
Status read_head_size(const GgufFile& file, LlamaHParams& hp);
// What the llama-built families share: the shared keys, the head size, the given RoPE mode and
// 1/sqrt(head size) scores. Each family then sets what is its own.
Status read_llama_like_hparams(const GgufFile& file, LlamaHParams& hp, int32_t rope_mode);
// Limits every family's values must keep.
Status check_hparams(const LlamaHParams& hp);

inline Status hparams_error(const std::string& message) { return Status(Stage::Model, message); }

}  // namespace clport
