// The family's tensor map walked over the file (tensor_check.h): names, shapes and types checked,
// each tensor given its slot in LlamaModel::Weights.
#include "model/tensor_check.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>

#include "model/arch/arch_family.h"

namespace clport {
namespace {

bool is_weight_dtype(DType d) {
  return std::find(std::begin(kWeightDTypes), std::end(kWeightDTypes), d) != std::end(kWeightDTypes);
}

std::string shape_string(const std::array<int64_t, 4>& ne, int n_dims) {
  std::string s = "[";
  for (int i = 0; i < n_dims; ++i) s += (i ? ", " : "") + std::to_string(ne[i]);
  return s + "]";
}

// Looks up a tensor and checks its shape ({ne0} or {ne0, ne1}) and dtype class.
Result<const GgufTensorInfo*> expect(const GgufFile& file, const std::string& name, std::vector<int64_t> shape,
                                     bool is_norm) {
  const GgufTensorInfo* t = file.find_tensor(name);
  if (t == nullptr) return Status(Stage::Model, "tensor '" + name + "' is missing");
  std::array<int64_t, 4> want{1, 1, 1, 1};
  for (size_t i = 0; i < shape.size(); ++i) want[i] = shape[i];
  if (t->ne != want) {
    return Status(Stage::Model, "tensor '" + name + "' has shape " + shape_string(t->ne, t->n_dims) +
                                    ", expected " + shape_string(want, static_cast<int>(shape.size())));
  }
  if (is_norm ? t->dtype != DType::F32 : !is_weight_dtype(t->dtype)) {
    return Status(Stage::Model, "tensor '" + name + "' has unsupported type " + std::string(dtype_name(t->dtype)) +
                                    (is_norm ? " (norm weights must be f32)" : ""));
  }
  return t;
}

int64_t dim_size(Dim d, const LlamaHParams& hp) {
  switch (d) {
    case Dim::One: return 1;
    case Dim::Embd: return hp.n_embd;
    case Dim::Ff: return hp.n_ff;
    case Dim::GateUpRows: return 2 * static_cast<int64_t>(hp.n_ff);
    case Dim::Vocab: return hp.n_vocab;
    case Dim::HeadDim: return hp.head_dim;
    case Dim::QRows: return hp.q_rows();
    case Dim::KvRows: return hp.kv_rows();
    case Dim::QkvRows: return hp.q_rows() + 2 * static_cast<int64_t>(hp.kv_rows());
  }
  return 0;
}

// The weights' member a slot names (null for GateUp, which is placed as Gate and Up).
TensorRef* slot_ref(LlamaModel::Weights& w, Slot s, uint32_t layer) {
  if (!is_layer_slot(s)) return s == Slot::TokEmbd ? &w.tok_embd : s == Slot::OutputNorm ? &w.output_norm : &w.output;
  LlamaModel::Weights::Layer& L = w.layers[layer];
  switch (s) {
    case Slot::AttnNorm: return &L.attn_norm;
    case Slot::Wq: return &L.wq;
    case Slot::Wk: return &L.wk;
    case Slot::Wv: return &L.wv;
    case Slot::Wqkv: return &L.wqkv;
    case Slot::Bq: return &L.bq;
    case Slot::Bk: return &L.bk;
    case Slot::Bv: return &L.bv;
    case Slot::Bqkv: return &L.bqkv;
    case Slot::Wo: return &L.wo;
    case Slot::AttnQNorm: return &L.attn_q_norm;
    case Slot::AttnKNorm: return &L.attn_k_norm;
    case Slot::PostAttnNorm: return &L.post_attn_norm;
    case Slot::FfnNorm: return &L.ffn_norm;
    case Slot::Gate: return &L.w_gate;
    case Slot::Up: return &L.w_up;
    case Slot::Down: return &L.w_down;
    case Slot::PostFfnNorm: return &L.post_ffn_norm;
    default: return nullptr;
  }
}

// Whether the file must hold `t` (under `prefix`, a layer's "blk.<i>.").
bool wanted(const GgufFile& file, const TensorSpec& t, const std::string& prefix) {
  if (t.when == When::Always) return true;
  const bool present = file.find_tensor(prefix + (t.other != nullptr ? t.other : t.name)) != nullptr;
  return t.when == When::IfPresent ? present : !present;
}

}  // namespace

Result<std::vector<PlannedWeight>> plan_weights(const GgufFile& file, const LlamaHParams& hp, uint32_t n_ctx,
                                                LlamaModel::Weights& w, std::vector<GgufTensorInfo>& halves) {
  std::vector<PlannedWeight> plan;
  auto add = [&](const TensorSpec& t, const std::string& prefix, uint32_t layer) -> Status {
    if (!wanted(file, t, prefix)) return Status();
    std::vector<int64_t> shape{dim_size(t.ne0, hp)};
    if (t.ne1 != Dim::One) shape.push_back(dim_size(t.ne1, hp));
    auto info = expect(file, prefix + t.name, std::move(shape), t.f32_vector);
    if (!info.ok()) return info.status();
    if (t.slot != Slot::GateUp) {
      // Norms are 1-D; the token embedding is a MUL_MAT weight only when it doubles as the output.
      const bool matmul = !t.f32_vector && (t.slot != Slot::TokEmbd || hp.tied_output);
      plan.push_back({info.value(), slot_ref(w, t.slot, layer), matmul, {}});
      return Status();
    }
    // Gate and up rows of one weight: two weights over the halves of the file's bytes.
    const GgufTensorInfo& up = *info.value();
    for (int half = 0; half < 2; ++half) {
      halves.push_back(up);
      GgufTensorInfo& h = halves.back();
      h.name = up.name + (half == 0 ? "[gate rows]" : "[up rows]");
      h.ne[1] = hp.n_ff;
      h.bytes = up.bytes / 2;
      h.data = up.data + half * h.bytes;
      plan.push_back({&h, slot_ref(w, half == 0 ? Slot::Gate : Slot::Up, layer), true, {}});
    }
    return Status();
  };

  // The halves are pointed at: no reallocation while the plan is made.
  halves.clear();
  if (hp.family->has(Slot::GateUp)) halves.reserve(2 * static_cast<size_t>(hp.n_layer));
  for (const TensorSpec& t : *hp.family) {
    if (!is_layer_slot(t.slot)) CLPORT_RETURN_IF_ERROR(add(t, "", 0));
  }
  // RoPE frequency factors: Llama 3.x's rope_freqs, or LongRoPE's short / long pair (the long
  // factors when the context asked for exceeds the one the short ones were trained for).
  const std::string factors = file.find_tensor("rope_freqs.weight") != nullptr ? "rope_freqs.weight"
                              : file.find_tensor("rope_factors_long.weight") == nullptr &&
                                      file.find_tensor("rope_factors_short.weight") == nullptr
                                  ? ""
                              : n_ctx > hp.n_ctx_orig ? "rope_factors_long.weight"
                                                      : "rope_factors_short.weight";
  if (!factors.empty()) {
    auto t = expect(file, factors, {hp.n_rot / 2}, true);
    if (!t.ok()) return t.status();
    plan.push_back({t.value(), &w.rope_factors, false, {}});
    const auto* values = reinterpret_cast<const float*>(t.value()->data);
    for (uint32_t i = 0; i < hp.n_rot / 2; ++i) {
      float f;
      std::memcpy(&f, values + i, sizeof f);
      if (!(f > 0.0f) || !std::isfinite(f)) {
        return Status(Stage::Model, "tensor '" + factors + "' holds a factor that is not positive and finite");
      }
    }
  }
  for (uint32_t i = 0; i < hp.n_layer; ++i) {
    const std::string prefix = "blk." + std::to_string(i) + ".";
    for (const TensorSpec& t : *hp.family) {
      if (is_layer_slot(t.slot)) CLPORT_RETURN_IF_ERROR(add(t, prefix, i));
    }
  }
  return plan;
}

}  // namespace clport
