// Exact operand checks for the shared kernels: which (op, dtype, shape, params) they implement.
// Used by claim_op (answer only) and enqueue (reason in the error).
#pragma once

#include <cstdint>
#include <string>

#include "clport_plugin/dtype_table.hpp"
#include "clport_plugin/plugin_abi.h"
#include "clport_common/tuning.hpp"

namespace clport::plugin_common {

// The SDK's dtype table (clport_plugin/dtype_table.hpp).
using DTypeInfo = sdk::DTypeLayout;

// NULL for an id the shared kernels do not know.
inline const DTypeInfo* dtype_info(int32_t id) { return sdk::dtype_layout(id); }
// The dtype as kernel names spell it ("q4_1", "q4_k", "f16"): dtype_info's name, lower case.
inline std::string kernel_type_suffix(int32_t dtype) { return sdk::kernel_suffix(dtype); }
// F32, F16 and every GGUF block format: the dtypes usable as weights.
bool is_weight_dtype(int32_t id);
int64_t element_count(const clport_tensor& t);
// Q8_0 / Q4_0: the quantized KV-cache types (32-element blocks along head_dim).
inline bool is_quantized_kv(int32_t dtype) { return dtype == CLPORT_DTYPE_Q8_0 || dtype == CLPORT_DTYPE_Q4_0; }
// Plain (F32/F16/I32) tensor whose nb[] are the dense strides of ne[].
bool is_contiguous(const clport_tensor& t);
// Byte alignment a tensor's buffer offset needs for the kernels.
uint64_t offset_alignment(int32_t dtype);

// "" when the shared kernels take `weight` (plain layout) as a MUL_MAT / GET_ROWS weight.
std::string check_weight(const clport_tensor& weight);

// "" when the shared kernels implement `op` with tuning `t`, else why not.
std::string check_op(const clport_op& op, const Tuning& t);

}  // namespace clport::plugin_common
