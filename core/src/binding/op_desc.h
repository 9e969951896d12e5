// Building plugin-ABI op descriptions (clport_tensor / clport_op) from shapes: for support
// queries (no buffers: which plugin would run this?) and for direct enqueues (buffer set).
#pragma once

#include <array>
#include <cstdint>

#include "clport/export.h"
#include "clport_plugin/plugin_abi.h"

namespace clport {

// A contiguous tensor of `dtype` with ne[] (unused dimensions 1): nb[0] is the bytes per block
// (per element for plain types), nb[1] one row, and so on. `buffer` may be NULL.
CLPORT_API clport_tensor contiguous_tensor(int32_t dtype, std::array<int64_t, 4> ne, int32_t n_dims,
                                           cl_mem buffer = nullptr);

// An op with two sources. It points at a, b and dst: they must outlive its use.
CLPORT_API clport_op two_source_op(clport_op_kind kind, const clport_tensor& a, const clport_tensor& b,
                                   const clport_tensor& dst);

}  // namespace clport
