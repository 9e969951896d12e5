// Internal: a plugin-ABI op (clport_op) built from backend tensors, with its clport_tensors
// inside, for support queries and launches.
#pragma once

#include <vector>

#include "backend/backend.h"

namespace clport {

// A plugin-ABI op over TensorRefs (the tensors live inside, so it can be passed around).
struct OpDescription {
  clport_tensor tensors[5]{};
  clport_op op{};
  OpDescription(clport_op_kind kind, const std::vector<const TensorRef*>& src, const TensorRef& dst,
                const cpu::OpParams& params);
  OpDescription(const OpDescription&) = delete;
  OpDescription& operator=(const OpDescription&) = delete;
};

// A TensorRef that only describes a shape (no storage): for support queries before upload.
TensorRef shape_only(DType dtype, std::array<int64_t, 4> ne);

}  // namespace clport
