// Internal: the tensors a model loads, checked against its family's tensor map (model/arch/)
// before anything is placed: every tensor the map asks for is in the file with its shape and a
// supported type, and each is given its place in the weights.
#pragma once

#include <cstdint>
#include <vector>

#include "gguf/gguf.h"
#include "model/llama_model.h"
#include "model/llama_weights.h"

namespace clport {

struct PlannedWeight {
  const GgufTensorInfo* info;
  TensorRef* slot;
  bool matmul;  // multiplied by MUL_MAT (may be repacked by the plugin)
  // A weight joined from parts of the file (Q, K and V; their biases): its bytes are the parts'
  // concatenated, made only when it is placed, so that no more than one such copy exists at a
  // time beside the weights already placed.
  std::vector<const GgufTensorInfo*> parts;
};

// The weights of `file` in load order: the family's tensors (hp.n_vocab and hp.tied_output set),
// and the RoPE frequency factors where the file has them (LongRoPE's long ones when n_ctx exceeds
// hp.n_ctx_orig). A joined gate/up weight becomes two weights over its halves, described in
// `halves` (which the plan points into: it must outlive the plan).
Result<std::vector<PlannedWeight>> plan_weights(const GgufFile& file, const LlamaHParams& hp, uint32_t n_ctx,
                                                LlamaModel::Weights& w, std::vector<GgufTensorInfo>& halves);

}  // namespace clport
