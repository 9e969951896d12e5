// The llama family (LLaMA 2/3.x, SmolLM2, TinyLlama): head size n_embd / n_head, interleaved-pair
// RoPE (llama GGUF files store Q and K permuted for it), SwiGLU FFN, 1/sqrt(head size) scores.
// Llama 3.1+ files carry rope_freqs.weight (the converter's frequency factors for the model's
// rope scaling); the loader hands it to every RoPE.
#include <iterator>

#include "model/arch/llama_tensors.h"
#include "model/hparams_read.h"
#include "model/plan_builder.h"

namespace clport {
namespace {

Status read_llama_hparams_keys(const GgufFile& file, LlamaHParams& hp) { return read_llama_like_hparams(file, hp, 0); }

using namespace tensors;
constexpr TensorSpec kLlamaTensors[] = {
    kTokEmbd, kOutputNorm, kOutput,
    kAttnNorm, kAttnQkv, kAttnQ, kAttnK, kAttnV, kAttnOutput, kFfnNorm, kFfnGate, kFfnUp, kFfnDown,
};

}  // namespace

const ArchFamily& llama_family() {
  static const ArchFamily family{"llama", "LLaMA 2/3.x, SmolLM2, TinyLlama", read_llama_hparams_keys,
                                 kLlamaTensors, std::size(kLlamaTensors), build_llama_graph, FfnActivation::Silu};
  return family;
}

}  // namespace clport
