// Internal: the reference of every op and its operand checks, which the op registry pairs
// (ops/registry/): run_op fills in the tensors' strides and runs an op's check, then its
// reference, so a reference takes its operands as checked. The fast CPU backend runs the same
// checks before its own kernels.
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

// The operand checks of the ops above (shared with the fast CPU backend through the registry).
Status check_get_rows_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);
Status check_rms_norm_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);
Status check_softmax_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);
Status check_mul_mat_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);
Status check_rope_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);
Status check_attention_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);
Status check_unary_operands(const char* op, const Srcs& src, const HostTensor& dst);     // SILU, SCALE
Status check_scale_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);
Status check_gated_operands(const char* op, const Srcs& src, const HostTensor& dst);     // SWIGLU, GEGLU
Status check_broadcast_operands(const char* op, const Srcs& src, const HostTensor& dst); // ADD, MUL
Status check_copy_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);

// ROPE's parameters and optional frequency factors (src[1]) of checked operands; shared with the
// fast CPU backend, which computes the same table and rotation.
struct RopeArgs {
  int mode = 0;
  int64_t pos0 = 0, n_rot = 0;
  double base = 0, freq_scale = 0;
  const float* factors = nullptr;  // [n_rot / 2] or none
};
RopeArgs rope_args(const Srcs& src, const OpParams& p);
// cos / sin of every pair's angle for tokens 0 .. n_tokens - 1 ([n_tokens][n_rot / 2] each).
void rope_cos_sin_table(const RopeArgs& a, int64_t n_tokens, float* cos_out, float* sin_out);
// One head's row rotated with one token's table row (in place allowed).
void rope_rotate_row(const RopeArgs& a, int64_t head_dim, const float* in, float* out, const float* c, const float* s);
// The first key a query sees when n_keys (positions 0 .. n_keys - 1) are causally visible and
// `window` (0 = none) limits it to the last `window` of them.
int64_t first_visible_key(int64_t n_keys, int32_t window);

// Fused patterns: each is the composition of the registered ops above (cpu_fused.cpp), whose
// own checks run as they are composed; a pattern's check covers what the composition adds.
Status rms_norm_mul_mat(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status mul_mat_add(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status rms_norm_mul_mat_swiglu(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status kv_store_rope(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status rope_attention(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status rope_kv_store_attention(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status check_rms_norm_mul_mat_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);
Status check_mul_mat_add_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);
Status check_rms_norm_mul_mat_swiglu_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);
Status check_kv_store_rope_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);
Status check_rope_attention_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);
Status check_rope_kv_store_attention_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);
// The *_CELLS ops: a step over several sequences, token by token (cpu_cells.cpp).
Status kv_store_rope_cells(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status rope_attention_cells(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads);
Status check_kv_store_rope_cells_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);
Status check_rope_attention_cells_operands(const Srcs& src, const HostTensor& dst, const OpParams& p);
// Their pieces, shared with the fast CPU backend's kernels of these ops: token t's row of a
// [d0, d1, n_tokens] tensor, sequence s's [head_dim, n_kv_head, n_ctx, 2] part of the cache of
// every sequence, and token t's (sequence, position) from the cells, checked against the cache.
HostTensor token_row(const HostTensor& t, int64_t token);
HostTensor sequence_cache(const HostTensor& cache, int64_t s);
Status cell_of(const char* op, const HostTensor& cells, const HostTensor& cache, int64_t t, int64_t* seq,
               int64_t* pos);

}  // namespace clport::cpu::detail
