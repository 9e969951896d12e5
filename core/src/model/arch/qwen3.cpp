// The qwen3 family (Qwen 3 dense models), as llama.cpp runs it: RoPE NeoX (halves) on the whole
// head, SwiGLU FFN, 1/sqrt(head size) scores, no biases, RMSNorm on each Q and K head before RoPE
// (attn_q_norm / attn_k_norm), head size from attention.key_length (Qwen 3 0.6B: 128 against
// 1024 / 16 = 64), the output projection tied to the embedding when the file has no
// output.weight.
#include <iterator>

#include "model/arch/llama_tensors.h"
#include "model/hparams_read.h"
#include "model/plan_builder.h"

namespace clport {
namespace {

Status read_qwen3_hparams(const GgufFile& file, LlamaHParams& hp) { return read_llama_like_hparams(file, hp, 2); }

using namespace tensors;
constexpr TensorSpec kQwen3Tensors[] = {
    kTokEmbd, kOutputNorm, kOutput,
    kAttnNorm, kAttnQkv, kAttnQ, kAttnK, kAttnV, kAttnOutput, kAttnQNorm, kAttnKNorm,
    kFfnNorm, kFfnGate, kFfnUp, kFfnDown,
};

}  // namespace

const ArchFamily& qwen3_family() {
  static const ArchFamily family{"qwen3", "Qwen 3", read_qwen3_hparams, kQwen3Tensors, std::size(kQwen3Tensors),
                                 build_llama_graph, FfnActivation::Silu};
  return family;
}

}  // namespace clport
