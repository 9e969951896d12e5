// The qwen2 family (Qwen 2 / 2.5 dense models), as llama.cpp runs it: RoPE NeoX (halves) on the
// whole head, SwiGLU FFN, 1/sqrt(head size) scores, head size n_embd / n_head, biases on the Q, K
// and V projections, the output projection tied to the embedding when the file has no
// output.weight.
#include <iterator>

#include "model/arch/llama_tensors.h"
#include "model/hparams_read.h"
#include "model/plan_builder.h"

namespace clport {
namespace {

Status read_qwen2_hparams(const GgufFile& file, LlamaHParams& hp) { return read_llama_like_hparams(file, hp, 2); }

using namespace tensors;
constexpr TensorSpec kQwen2Tensors[] = {
    kTokEmbd, kOutputNorm, kOutput,
    kAttnNorm, kAttnQkv, kAttnQ, kAttnK, kAttnV, kAttnQkvBias, kAttnQBias, kAttnKBias, kAttnVBias, kAttnOutput,
    kFfnNorm, kFfnGate, kFfnUp, kFfnDown,
};

}  // namespace

const ArchFamily& qwen2_family() {
  static const ArchFamily family{"qwen2", "Qwen 2/2.5", read_qwen2_hparams, kQwen2Tensors, std::size(kQwen2Tensors),
                                 build_llama_graph, FfnActivation::Silu};
  return family;
}

}  // namespace clport
