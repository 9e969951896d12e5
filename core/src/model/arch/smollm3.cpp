// The smollm3 family (SmolLM3), as llama.cpp runs it: the llama block (interleaved-pair RoPE,
// SwiGLU FFN, 1/sqrt(head size) scores, head size n_embd / n_head unless attention.key_length
// says, the output projection tied to the embedding when the file has no output.weight), except
// that every fourth layer (3, 7, 11, ...) has no RoPE: its queries and keys attend unrotated.
// No GGUF key carries that step (llama.cpp fixes it at 4, as SmolLM3's config does), and the
// rotation must cover the whole head (llama.cpp refuses a partial one).
#include <iterator>

#include "model/arch/llama_tensors.h"
#include "model/hparams_read.h"
#include "model/plan_builder.h"

namespace clport {
namespace {

constexpr uint32_t kNoRopeLayerStep = 4;

Status read_smollm3_hparams(const GgufFile& file, LlamaHParams& hp) {
  CLPORT_RETURN_IF_ERROR(read_llama_like_hparams(file, hp, 0));
  if (hp.n_rot != hp.head_dim) return hparams_error(hp.arch + ".rope.dimension_count must be the head size");
  for (uint32_t i = kNoRopeLayerStep - 1; i < hp.n_layer; i += kNoRopeLayerStep) hp.layer_attn[i].rope = false;
  return Status();
}

using namespace tensors;
constexpr TensorSpec kSmolLM3Tensors[] = {
    kTokEmbd, kOutputNorm, kOutput,
    kAttnNorm, kAttnQkv, kAttnQ, kAttnK, kAttnV, kAttnOutput, kFfnNorm, kFfnGate, kFfnUp, kFfnDown,
};

}  // namespace

const ArchFamily& smollm3_family() {
  static const ArchFamily family{"smollm3", "SmolLM3", read_smollm3_hparams, kSmolLM3Tensors,
                                 std::size(kSmolLM3Tensors), build_llama_graph, FfnActivation::Silu};
  return family;
}

}  // namespace clport
