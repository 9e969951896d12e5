// Internal: one function per registered op, each defined in that op's file beside this one and
// listed once in op_registry.cpp.
#pragma once

#include "ops/op_registry.h"

namespace clport::ops::registry {

OpEntry get_rows();
OpEntry rms_norm();
OpEntry mul_mat();
OpEntry rope();
OpEntry attention();
OpEntry softmax();
OpEntry silu();
OpEntry swiglu();
OpEntry add();
OpEntry mul();
OpEntry scale();
OpEntry copy();
OpEntry rms_norm_mul_mat();
OpEntry mul_mat_add();
OpEntry rms_norm_mul_mat_swiglu();
OpEntry kv_store_rope();
OpEntry rope_attention();
OpEntry rope_kv_store_attention();
OpEntry geglu();
OpEntry kv_store_rope_cells();
OpEntry rope_attention_cells();

}  // namespace clport::ops::registry
