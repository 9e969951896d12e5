// The gemma3 family (Gemma 3 text models). What the GGUF keys say, and the Gemma 3 defaults for
// what they do not (llama.cpp's loader fixes the same values for this architecture):
//  - head size: attention.key_length (Gemma 3's heads are not n_embd / n_head wide);
//  - sliding window: attention.sliding_window positions on the local layers. The pattern comes
//    from attention.sliding_window_pattern (a period: every period-th layer is global; or one
//    bool per layer, true = local); the released Gemma 3 files have no such key, and then the
//    Gemma 3 pattern applies: five local layers, then one global (period 6);
//  - RoPE NeoX (halves) on every layer; global layers rotate with rope.freq_base (and its
//    scaling), local layers with Gemma 3's local base 10000 and no scaling (no key exists);
//  - scores scaled by 1/sqrt(query_pre_attn_scalar): the head size, except the 27B model (62
//    layers), whose scalar is n_embd / n_head; GGUF files carry no key for it;
//  - embeddings multiplied by sqrt(n_embd); GELU(tanh)-gated FFN; RMSNorm on each Q and K head
//    and on the attention and FFN outputs. The norm weights in GGUF already include Gemma's +1
//    (the converter adds it), so they are used as they are.
// final_logit_softcapping (Gemma 2) is refused when present: this graph has no tanh op.
//
// Its step: embeddings times sqrt(n_embd), then per layer RMSNorm -> Q/K/V -> RMSNorm per Q and
// K head -> RoPE (the layer's base) -> KV-cache store -> attention (a sliding window on local
// layers) -> output projection -> RMSNorm -> residual, RMSNorm -> GELU(tanh)-gated FFN -> RMSNorm
// -> residual; then the final norm and the (tied) vocabulary projection.
#include <cmath>
#include <iterator>
#include <vector>

#include "model/arch/llama_tensors.h"
#include "model/hparams_read.h"
#include "model/plan_builder.h"

namespace clport {
namespace {

constexpr uint32_t kGemma3SwaPeriod = 6;
constexpr float kGemma3LocalRopeBase = 10000.0f;

// Which layers are local (sliding window): from the key, else Gemma 3's period.
Result<std::vector<bool>> read_local_layers(const GgufFile& file, const std::string& key, uint32_t n_layer) {
  std::vector<bool> local(n_layer, false);
  const GgufValue* v = file.find(key);
  if (v != nullptr && v->type == GgufType::Array) {
    if (v->array_type != GgufType::Bool || v->count != n_layer) {
      return hparams_error(key + " must be an integer period or one bool per layer");
    }
    for (uint32_t i = 0; i < n_layer; ++i) local[i] = v->array_number(i).value_or(0.0) != 0.0;
    return local;
  }
  auto period = file.get_u32_or(key, kGemma3SwaPeriod);
  if (!period.ok()) return period.status();
  if (period.value() == 0) return hparams_error(key + " must be > 0");
  for (uint32_t i = 0; i < n_layer; ++i) local[i] = (i + 1) % period.value() != 0;
  return local;
}

Status read_gemma3_hparams(const GgufFile& file, LlamaHParams& hp) {
  CLPORT_RETURN_IF_ERROR(read_shared_hparams(file, hp));
  const std::string p = hp.arch + ".";
  // Gemma 3's head size is its own key, unrelated to n_embd / n_head: required here.
  if (file.find(p + "attention.key_length") == nullptr) return file.get_u32(p + "attention.key_length").status();
  CLPORT_RETURN_IF_ERROR(read_head_size(file, hp));
  hp.rope_mode = 2;

  auto window = file.get_u32(p + "attention.sliding_window");
  if (!window.ok()) return window.status();
  auto local = read_local_layers(file, p + "attention.sliding_window_pattern", hp.n_layer);
  if (!local.ok()) return local.status();
  // A window of 0 leaves every layer global.
  for (uint32_t i = 0; i < hp.n_layer && window.value() > 0; ++i) {
    if (!local.value()[i]) continue;
    LayerAttention& layer = hp.layer_attn[i];
    layer.window = window.value();
    layer.rope_freq_base = kGemma3LocalRopeBase;
    layer.rope_freq_scale = 1.0f;
  }

  auto softcap = file.get_f32_or(p + "final_logit_softcapping", 0.0f);
  if (!softcap.ok()) return softcap.status();
  if (softcap.value() != 0.0f) {
    return hparams_error(p + "final_logit_softcapping is set; logit soft-capping is not supported");
  }

  if (hp.n_head == 0) return hparams_error(p + "attention.head_count must be > 0");
  const uint32_t query_pre_attn_scalar = hp.n_layer == 62 ? hp.n_embd / hp.n_head : hp.head_dim;
  if (query_pre_attn_scalar == 0) return hparams_error(p + "attention scale would be infinite");
  hp.attn_scale = 1.0f / std::sqrt(static_cast<float>(query_pre_attn_scalar));
  hp.embd_scale = std::sqrt(static_cast<float>(hp.n_embd));
  return Status();
}

ForwardPlan build_gemma3_graph(PlanBuilder& b, const LlamaHParams& hp, const LlamaModel::Weights& w,
                               int64_t logit_rows, bool hooked) {
  b.embed();
  for (uint32_t il = 0; il < hp.n_layer; ++il) {
    const auto& L = w.layers[il];
    b.begin_layer(il);
    PlanBuilder::Heads h = b.project_qkv(L);
    h.q = b.norm_heads(h.q, L.attn_q_norm, b.q_rope, b.q_tmp);
    h.k = b.norm_heads(h.k, L.attn_k_norm, b.k_rope, b.k_tmp);
    b.rope_store_attend(L, h, b.attention_params(il));
    b.mul_mat_norm_residual(L.wo, b.attn, L.post_attn_norm);
    b.gated_ffn(L, hp.family->ffn_act);
    b.hook_after(b.mul_mat_norm_residual(L.w_down, b.act, L.post_ffn_norm), il);
  }
  b.end_layers();
  b.output(logit_rows, hooked);
  return b.take();
}

using namespace tensors;
constexpr TensorSpec kGemma3Tensors[] = {
    kTokEmbd, kOutputNorm, kOutput,
    kAttnNorm, kAttnQkv, kAttnQ, kAttnK, kAttnV, kAttnOutput, kAttnQNorm, kAttnKNorm, kPostAttnNorm, kPostFfnNorm,
    kFfnNorm, kFfnGate, kFfnUp, kFfnDown,
};

}  // namespace

const ArchFamily& gemma3_family() {
  static const ArchFamily family{"gemma3", "Gemma 3", read_gemma3_hparams, kGemma3Tensors, std::size(kGemma3Tensors),
                                 build_gemma3_graph, FfnActivation::GeluTanh};
  return family;
}

}  // namespace clport
