// Internal: one function per op (or op family), called by run_op after the tensors' strides are
// filled in. Each validates its own operands.
#pragma once

#include <vector>

#include "ops/cpu_ops.h"

namespace clport::cpu::detail {

using Srcs = std::vector<HostTensor>;

Status get_rows(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status rms_norm(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status softmax(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status mul_mat(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status rope(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status attention(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status silu(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status swiglu(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status geglu(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
// GELU in its tanh approximation, the value GEGLU applies to the gate (computed in double).
float gelu_tanh_value(float x);
Status add(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status mul(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status scale(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status copy(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);

// Operand checks of the reference ops, shared with the fast CPU backend.
Status check_mul_mat_operands(const Srcs& src, const HostTensor& dst);
Status check_gated_operands(const char* op, const Srcs& src, const HostTensor& dst);
Status check_attention_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);
// ROPE's parameters and optional frequency factors (src[1]), checked; shared with the fast CPU
// backend, which computes the same table and rotation.
struct RopeArgs {
  int mode = 0;
  int64_t pos0 = 0, n_rot = 0;
  double base = 0, freq_scale = 0;
  const float* factors = nullptr;  // [n_rot / 2] or none
};
Status check_rope_operands(const char* op, const Srcs& src, const HostTensor& dst, const OpParams& p, RopeArgs& out);
// cos / sin of every pair's angle for tokens 0 .. n_tokens - 1 ([n_tokens][n_rot / 2] each).
void rope_cos_sin_table(const RopeArgs& a, int64_t n_tokens, float* cos_out, float* sin_out);
// One head's row rotated with one token's table row (in place allowed).
void rope_rotate_row(const RopeArgs& a, int64_t head_dim, const float* in, float* out, const float* c, const float* s);
// The first key a query sees when n_keys (positions 0 .. n_keys - 1) are causally visible and
// `window` (0 = none) limits it to the last `window` of them.
int64_t first_visible_key(int64_t n_keys, int32_t window);

// Fused patterns: each is the composition of the ops above (cpu_fused.cpp).
Status rms_norm_mul_mat(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status mul_mat_add(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status rms_norm_mul_mat_swiglu(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status kv_store_rope(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status rope_attention(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status rope_kv_store_attention(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
// The *_CELLS ops: a step over several sequences, token by token (cpu_cells.cpp).
Status kv_store_rope_cells(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status rope_attention_cells(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);

}  // namespace clport::cpu::detail
