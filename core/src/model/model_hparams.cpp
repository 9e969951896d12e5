// Hyper-parameters from GGUF metadata: the architecture picks the family's reader from the
// registry; the keys all families share are read once here, and every value is checked before a
// model is built.
#include <cmath>

#include "model/arch/arch_registry.h"
#include "model/hparams_read.h"

namespace clport {

Status read_shared_hparams(const GgufFile& file, LlamaHParams& hp) {
  const std::string p = hp.arch + ".";
#define CLPORT_READ(field, key)                         \
  {                                                     \
    auto v = file.get_u32(p + key);                     \
    if (!v.ok()) return v.status();                     \
    hp.field = v.value();                               \
  }
  CLPORT_READ(n_embd, "embedding_length")
  CLPORT_READ(n_layer, "block_count")
  CLPORT_READ(n_ff, "feed_forward_length")
  CLPORT_READ(n_head, "attention.head_count")
#undef CLPORT_READ
  // Checked before the per-layer table below is sized by it.
  if (hp.n_layer == 0 || hp.n_layer > kMaxLayers) return hparams_error(p + "block_count out of range");
  auto n_head_kv = file.get_u32_or(p + "attention.head_count_kv", hp.n_head);
  if (!n_head_kv.ok()) return n_head_kv.status();
  hp.n_head_kv = n_head_kv.value();
  auto n_ctx = file.get_u32_or(p + "context_length", 2048);
  if (!n_ctx.ok()) return n_ctx.status();
  hp.n_ctx_train = n_ctx.value();
  auto base = file.get_f32_or(p + "rope.freq_base", 10000.0f);
  if (!base.ok()) return base.status();
  hp.rope_freq_base = base.value();
  auto eps = file.get_f32_or(p + "attention.layer_norm_rms_epsilon", 1e-5f);
  if (!eps.ok()) return eps.status();
  hp.rms_eps = eps.value();
  auto scaling = file.get_string_or(p + "rope.scaling.type", "none");
  if (!scaling.ok()) return scaling.status();
  if (scaling.value() == "linear") {
    auto factor = file.get_f32_or(p + "rope.scaling.factor", 1.0f);
    if (!factor.ok()) return factor.status();
    if (!(factor.value() > 0.0f)) return hparams_error(p + "rope.scaling.factor must be > 0");
    hp.rope_freq_scale = 1.0f / factor.value();
  } else if (scaling.value() != "none") {
    return hparams_error("rope scaling type '" + scaling.value() + "' is not supported (none, linear)");
  }
  // The factor RoPE multiplies cos and sin by (LongRoPE files); Q and K both carry it, so the
  // scores scale by its square (applied to attn_scale once the family has set it).
  auto attn_factor = file.get_f32_or(p + "rope.scaling.attn_factor", 1.0f);
  if (!attn_factor.ok()) return attn_factor.status();
  if (!(attn_factor.value() > 0.0f) || !std::isfinite(attn_factor.value())) {
    return hparams_error(p + "rope.scaling.attn_factor must be positive and finite");
  }
  hp.rope_attn_factor = attn_factor.value();
  auto n_ctx_orig = file.get_u32_or(p + "rope.scaling.original_context_length", hp.n_ctx_train);
  if (!n_ctx_orig.ok()) return n_ctx_orig.status();
  hp.n_ctx_orig = n_ctx_orig.value();
  // Every layer rotates with the model's base and scaling and attends to every earlier position
  // until its family says otherwise.
  LayerAttention layer;
  layer.rope_freq_base = hp.rope_freq_base;
  layer.rope_freq_scale = hp.rope_freq_scale;
  hp.layer_attn.assign(hp.n_layer, layer);
  return Status();
}

Status read_head_size(const GgufFile& file, LlamaHParams& hp) {
  const std::string p = hp.arch + ".";
  const GgufValue* key_length = file.find(p + "attention.key_length");
  if (key_length != nullptr) {
    auto k = file.get_u32(p + "attention.key_length");
    if (!k.ok()) return k.status();
    auto v = file.get_u32_or(p + "attention.value_length", k.value());
    if (!v.ok()) return v.status();
    if (v.value() != k.value()) return hparams_error(p + "attention.value_length must equal attention.key_length");
    hp.head_dim = k.value();
  } else {
    if (hp.n_head == 0 || hp.n_embd % hp.n_head != 0) {
      return hparams_error(p + "attention.head_count must divide embedding_length");
    }
    hp.head_dim = hp.n_embd / hp.n_head;
  }
  auto n_rot = file.get_u32_or(p + "rope.dimension_count", hp.head_dim);
  if (!n_rot.ok()) return n_rot.status();
  hp.n_rot = n_rot.value();
  return Status();
}

Status read_llama_like_hparams(const GgufFile& file, LlamaHParams& hp, int32_t rope_mode) {
  CLPORT_RETURN_IF_ERROR(read_shared_hparams(file, hp));
  CLPORT_RETURN_IF_ERROR(read_head_size(file, hp));
  hp.rope_mode = rope_mode;
  hp.attn_scale = 1.0f / std::sqrt(static_cast<float>(hp.head_dim));
  return Status();
}

Status check_hparams(const LlamaHParams& hp) {
  const std::string p = hp.arch + ".";
  if (hp.n_ctx_train == 0) return hparams_error(p + "context_length must be > 0");
  if (hp.n_layer == 0 || hp.n_layer > kMaxLayers) return hparams_error(p + "block_count out of range");
  if (hp.n_embd == 0 || hp.n_embd > 65536) return hparams_error(p + "embedding_length out of range");
  if (hp.n_ff == 0 || hp.n_ff > 262144) return hparams_error(p + "feed_forward_length out of range");
  if (hp.n_head == 0 || hp.n_head > 1024) return hparams_error(p + "attention.head_count out of range");
  if (hp.n_head_kv == 0 || hp.n_head % hp.n_head_kv != 0) {
    return hparams_error(p + "attention.head_count_kv must divide attention.head_count");
  }
  if (hp.head_dim == 0 || hp.head_dim > 1024 || hp.head_dim % 2 != 0) {
    return hparams_error(p + "head size must be even and at most 1024");
  }
  if (hp.n_rot == 0 || hp.n_rot > hp.head_dim || hp.n_rot % 2 != 0) {
    return hparams_error(p + "rope.dimension_count must be even and <= the head size");
  }
  if (!(hp.rms_eps > 0.0f) || !std::isfinite(hp.rope_freq_base) || hp.rope_freq_base <= 0.0f) {
    return hparams_error("rms epsilon and rope.freq_base must be positive");
  }
  for (const LayerAttention& layer : hp.layer_attn) {
    if (!std::isfinite(layer.rope_freq_base) || layer.rope_freq_base <= 0.0f) {
      return hparams_error("a layer's rope base must be positive");
    }
    if (layer.window > 0x7fffffffu) return hparams_error(p + "attention.sliding_window out of range");
  }
  if (!(hp.attn_scale > 0.0f) || !std::isfinite(hp.attn_scale) || !(hp.embd_scale > 0.0f) ||
      !std::isfinite(hp.embd_scale)) {
    return hparams_error("attention and embedding scales must be positive and finite");
  }
  return Status();
}

Result<LlamaHParams> read_llama_hparams(const GgufFile& file) {
  LlamaHParams hp;
  auto arch = file.get_string("general.architecture");
  if (!arch.ok()) return arch.status();
  hp.arch = arch.value();
  hp.family = find_arch(hp.arch);
  if (hp.family == nullptr) {
    return hparams_error("architecture '" + hp.arch + "' is not supported; supported: " + supported_architectures());
  }
  CLPORT_RETURN_IF_ERROR(hp.family->read_hparams(file, hp));
  hp.attn_scale *= hp.rope_attn_factor * hp.rope_attn_factor;
  CLPORT_RETURN_IF_ERROR(check_hparams(hp));
  return hp;
}

}  // namespace clport
