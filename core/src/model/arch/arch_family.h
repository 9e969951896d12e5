// Internal: one architecture family as the registry holds it (arch_registry.cpp). A family is its
// hyper-parameter reader, the tensors its files hold and the graph builder of its step; the
// loader, the plan and the tools ask the family instead of testing architecture names.
#pragma once

#include <cstddef>
#include <cstdint>

#include "model/llama_model.h"

namespace clport {

class GgufFile;
class PlanBuilder;
struct ForwardPlan;

enum class FfnActivation { Silu, GeluTanh };  // the gate's activation: SwiGLU or GEGLU

// Where a tensor of the file goes (LlamaModel::Weights). GateUp is one weight holding the gate
// rows then the up rows: the loader places it as two weights over the halves of its bytes.
enum class Slot : uint8_t {
  TokEmbd, OutputNorm, Output,  // the model's
  AttnNorm, Wq, Wk, Wv, Wqkv, Bq, Bk, Bv, Bqkv, Wo, AttnQNorm, AttnKNorm, PostAttnNorm,  // a layer's
  FfnNorm, Gate, Up, GateUp, Down, PostFfnNorm,
};
inline bool is_layer_slot(Slot s) { return s >= Slot::AttnNorm; }

// The sizes a tensor's shape is made of: the hyper-parameters' (QkvRows: Q, K and V rows
// together; GateUpRows: 2 n_ff).
enum class Dim : uint8_t { One, Embd, Ff, GateUpRows, Vocab, HeadDim, QRows, KvRows, QkvRows };

// When the file must hold a tensor: always, only if it holds `other` (or the tensor itself: an
// optional one), or only if it does not hold `other` (the split form of a joined weight).
enum class When : uint8_t { Always, IfPresent, UnlessPresent };

struct TensorSpec {
  const char* name;  // as llama.cpp names it; a layer's tensors get "blk.<i>." in front
  Slot slot;
  Dim ne0, ne1;      // ne1 One: a vector
  bool f32_vector;   // a norm weight or a bias (f32), else a weight of any supported dtype
  When when = When::Always;
  const char* other = nullptr;  // the tensor (of the same layer) `when` asks about; null: this one
};

using HParamsReader = Status (*)(const GgufFile& file, LlamaHParams& hp);
// One step's graph (plan_builder.h has the blocks builders compose).
using GraphBuilder = ForwardPlan (*)(PlanBuilder& b, const LlamaHParams& hp, const LlamaModel::Weights& w,
                                     int64_t logit_rows, bool hooked);

struct ArchFamily {
  const char* name;    // general.architecture
  const char* models;  // the models it runs, for messages ("Qwen 2/2.5")
  // Fills hp (hp.arch is set) from the family's keys; read_llama_hparams checks the result.
  HParamsReader read_hparams;
  const TensorSpec* tensors;  // the model's tensors first, then one layer's, in load order
  size_t n_tensors;
  GraphBuilder build_graph;
  FfnActivation ffn_act;

  const TensorSpec* begin() const { return tensors; }
  const TensorSpec* end() const { return tensors + n_tensors; }
  // Whether its files hold a tensor for `slot` (a family's per-head norms, biases, joined
  // gate/up weight are its tensor map's rows).
  bool has(Slot slot) const {
    for (const TensorSpec& t : *this)
      if (t.slot == slot) return true;
    return false;
  }
};

}  // namespace clport
