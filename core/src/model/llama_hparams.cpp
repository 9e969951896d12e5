// Hyper-parameters of a LLaMA-family model from GGUF metadata ("<arch>.<key>" keys).
#include <cmath>

#include "clport/gguf.h"
#include "clport/llama_model.h"

namespace clport {
namespace {

Status bad(const std::string& message) { return Status(Stage::Model, message); }

}  // namespace

Result<LlamaHParams> read_llama_hparams(const GgufFile& file) {
  LlamaHParams hp;
  auto arch = file.get_string("general.architecture");
  if (!arch.ok()) return arch.status();
  hp.arch = arch.value();
  if (hp.arch == "llama") {
    hp.rope_mode = 0;  // llama GGUF files store Q/K permuted for the interleaved-pair rotation
  } else if (hp.arch == "qwen2") {
    hp.rope_mode = 2;
    hp.qkv_bias = true;
    return bad("architecture 'qwen2' is not supported yet (planned: needs Q/K/V bias add); "
               "supported: llama (LLaMA 2/3, SmolLM2, TinyLlama)");
  } else {
    return bad("architecture '" + hp.arch +
               "' is not supported; supported: llama (LLaMA 2/3, SmolLM2, TinyLlama)");
  }
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
    if (!(factor.value() > 0.0f)) return bad(p + "rope.scaling.factor must be > 0");
    hp.rope_freq_scale = 1.0f / factor.value();
  } else if (scaling.value() != "none") {
    return bad("rope scaling type '" + scaling.value() + "' is not supported (none, linear)");
  }

  // Sanity limits: a corrupt header must not turn into a giant allocation.
  if (hp.n_ctx_train == 0) return bad(p + "context_length must be > 0");
  if (hp.n_layer == 0 || hp.n_layer > 512) return bad(p + "block_count out of range");
  if (hp.n_embd == 0 || hp.n_embd > 65536) return bad(p + "embedding_length out of range");
  if (hp.n_ff == 0 || hp.n_ff > 262144) return bad(p + "feed_forward_length out of range");
  if (hp.n_head == 0 || hp.n_embd % hp.n_head != 0) {
    return bad(p + "attention.head_count must divide embedding_length");
  }
  if (hp.n_head_kv == 0 || hp.n_head % hp.n_head_kv != 0) {
    return bad(p + "attention.head_count_kv must divide attention.head_count");
  }
  hp.head_dim = hp.n_embd / hp.n_head;
  auto n_rot = file.get_u32_or(p + "rope.dimension_count", hp.head_dim);
  if (!n_rot.ok()) return n_rot.status();
  hp.n_rot = n_rot.value();
  if (hp.n_rot == 0 || hp.n_rot > hp.head_dim || hp.n_rot % 2 != 0) {
    return bad(p + "rope.dimension_count must be even and <= the head size");
  }
  if (!(hp.rms_eps > 0.0f) || !std::isfinite(hp.rope_freq_base) || hp.rope_freq_base <= 0.0f) {
    return bad("rms epsilon and rope.freq_base must be positive");
  }
  return hp;
}

}  // namespace clport
