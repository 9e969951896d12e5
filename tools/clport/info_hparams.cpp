#include "info_hparams.h"

#include <string>

#include "model/arch/arch_family.h"
#include "model/llama_model.h"

namespace clport::cli {
namespace {

// "0-4, 6-10": the layers whose attention `pick` says yes to.
template <typename Pick>
std::string layer_ranges(const LlamaHParams& hp, Pick pick) {
  std::string out;
  for (uint32_t i = 0; i < hp.n_layer;) {
    if (!pick(hp.layer_attn[i])) {
      ++i;
      continue;
    }
    uint32_t j = i;
    while (j + 1 < hp.n_layer && pick(hp.layer_attn[j + 1])) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(i) + (j > i ? "-" + std::to_string(j) : "");
    i = j + 1;
  }
  return out.empty() ? "none" : out;
}

}  // namespace

void print_hparams(const GgufFile& file, std::ostream& out) {
  auto hp = read_llama_hparams(file);
  if (!hp.ok()) {
    out << "hyper-parameters: not loadable (" << hp.status().message() << ")\n";
    return;
  }
  const ArchFamily& family = *hp->family;
  out << "hyper-parameters (" << hp->arch << ", as the model runs):\n"
      << "  head size   " << hp->head_dim << " (q " << hp->q_rows() << " rows, k/v " << hp->kv_rows() << ")\n"
      << "  rope        " << (hp->rope_mode == 2 ? "neox" : "normal") << ", " << hp->n_rot << " dims, base "
      << hp->rope_freq_base << ", scale " << hp->rope_freq_scale << "\n"
      << "  attention   scale " << hp->attn_scale << (family.has(Slot::AttnQNorm) ? ", RMSNorm per Q/K head" : "") << "\n"
      << "  ffn         " << (family.ffn_act == FfnActivation::GeluTanh ? "GELU(tanh)-gated" : "SwiGLU")
      << (family.has(Slot::PostAttnNorm) ? ", post-attention and post-FFN norms" : "") << "\n"
      << "  rms eps     " << hp->rms_eps << "\n";
  if (family.has(Slot::Bq)) out << "  projections Q/K/V biases\n";
  if (family.has(Slot::GateUp)) out << "  ffn weight  gate and up rows in one ffn_up\n";
  if (file.find_tensor("rope_freqs.weight") != nullptr) {
    out << "  rope freqs  " << hp->n_rot / 2 << " frequency factors (rope_freqs.weight)\n";
  } else if (file.find_tensor("rope_factors_long.weight") != nullptr) {
    out << "  rope freqs  LongRoPE: short factors up to " << hp->n_ctx_orig << " positions, long ones past it; "
        << "attention factor " << hp->rope_attn_factor << "\n";
  }
  if (hp->embd_scale != 1.0f) out << "  embeddings  scaled by " << hp->embd_scale << "\n";
  for (const LayerAttention& local : hp->layer_attn) {
    if (local.window == 0) continue;
    out << "  sliding     window " << local.window << ", rope base " << local.rope_freq_base << " on layers "
        << layer_ranges(*hp, [](const LayerAttention& l) { return l.window > 0; }) << "; global layers "
        << layer_ranges(*hp, [](const LayerAttention& l) { return l.window == 0; }) << "\n";
    break;
  }
  const auto unrotated = [](const LayerAttention& l) { return !l.rope; };
  if (layer_ranges(*hp, unrotated) != "none") out << "  no rope     on layers " << layer_ranges(*hp, unrotated) << "\n";
}

}  // namespace clport::cli
