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
#include <cmath>

#include "model/hparams_read.h"

namespace clport {
namespace {

constexpr uint32_t kGemma3SwaPeriod = 6;

Status read_swa_layers(const GgufFile& file, const std::string& key, LlamaHParams& hp) {
  hp.swa_layers.assign(hp.n_layer, false);
  const GgufValue* v = file.find(key);
  if (v != nullptr && v->type == GgufType::Array) {
    if (v->array_type != GgufType::Bool || v->count != hp.n_layer) {
      return hparams_error(key + " must be an integer period or one bool per layer");
    }
    for (uint32_t i = 0; i < hp.n_layer; ++i) hp.swa_layers[i] = v->array_number(i).value_or(0.0) != 0.0;
    return Status();
  }
  auto period = file.get_u32_or(key, kGemma3SwaPeriod);
  if (!period.ok()) return period.status();
  if (period.value() == 0) return hparams_error(key + " must be > 0");
  for (uint32_t i = 0; i < hp.n_layer; ++i) hp.swa_layers[i] = (i + 1) % period.value() != 0;
  return Status();
}

}  // namespace

Status read_gemma3_hparams(const GgufFile& file, LlamaHParams& hp) {
  CLPORT_RETURN_IF_ERROR(read_shared_hparams(file, hp));
  const std::string p = hp.arch + ".";
  // Gemma 3's head size is its own key, unrelated to n_embd / n_head: required here.
  if (file.find(p + "attention.key_length") == nullptr) return file.get_u32(p + "attention.key_length").status();
  CLPORT_RETURN_IF_ERROR(read_head_size(file, hp));
  hp.rope_mode = 2;

  auto window = file.get_u32(p + "attention.sliding_window");
  if (!window.ok()) return window.status();
  hp.n_swa = window.value();
  CLPORT_RETURN_IF_ERROR(read_swa_layers(file, p + "attention.sliding_window_pattern", hp));
  hp.rope_freq_base_swa = 10000.0f;

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
  hp.qk_norm = true;
  hp.post_norms = true;
  hp.ffn_act = FfnActivation::GeluTanh;
  return Status();
}

}  // namespace clport
