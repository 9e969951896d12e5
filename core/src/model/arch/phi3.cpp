// The phi3 family (Phi-3 / Phi-3.5 mini and medium, Phi-4 mini), as llama.cpp runs it: Q, K and
// V in one weight (attn_qkv; separate tensors are accepted too), gate and up in one weight
// (ffn_up [n_embd, 2 n_ff]: the gate is the first n_ff rows), RoPE NeoX on rope.dimension_count
// dims, SwiGLU, 1/sqrt(head size) scores.
//  - attention.sliding_window is present in Phi-3 files, but llama.cpp runs every layer with full
//    attention (its loader disables Phi's window: the converted keys do not describe the
//    pattern correctly); so does clport, so that both give the same tokens.
//  - LongRoPE (128k-context files): rope_factors_short / rope_factors_long tensors, the long
//    ones when the context asked for exceeds rope.scaling.original_context_length (the loader
//    chooses), and rope.scaling.attn_factor (read for every family in read_shared_hparams).
#include <iterator>

#include "model/arch/llama_tensors.h"
#include "model/hparams_read.h"
#include "model/plan_builder.h"

namespace clport {
namespace {

Status read_phi3_hparams(const GgufFile& file, LlamaHParams& hp) { return read_llama_like_hparams(file, hp, 2); }

using namespace tensors;
constexpr TensorSpec kPhi3Tensors[] = {
    kTokEmbd, kOutputNorm, kOutput,
    kAttnNorm, kAttnQkv, kAttnQ, kAttnK, kAttnV, kAttnOutput, kFfnNorm, kFfnGateUp, kFfnDown,
};

}  // namespace

const ArchFamily& phi3_family() {
  static const ArchFamily family{"phi3", "Phi-3/3.5, Phi-4 mini", read_phi3_hparams, kPhi3Tensors, std::size(kPhi3Tensors),
                                 build_llama_graph, FfnActivation::Silu};
  return family;
}

}  // namespace clport
