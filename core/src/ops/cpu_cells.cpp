// The ops of a step over several sequences (plugin_abi.h's *_CELLS): each token's sequence and
// position come from the cells tensor, and each token is computed as the one-sequence fused op
// (cpu_fused.cpp) on its own sequence's cache at its own position: the numbers a plugin's
// batched kernel is checked against are those of the per-sequence graph.
#include <string>

#include "ops/cpu_common.h"
#include "ops/cpu_kernels.h"
#include "ops/op_registry.h"

namespace clport::cpu::detail {

// Token t's row of a [d0, d1, n_tokens] tensor.
HostTensor token_row(const HostTensor& t, int64_t token) {
  HostTensor r = t;
  r.ne[2] = 1;
  r.data = static_cast<uint8_t*>(t.data) + token * t.nb[2];
  return r;
}

// Sequence s's [head_dim, n_kv_head, n_ctx, 2] part of the cache of every sequence.
HostTensor sequence_cache(const HostTensor& cache, int64_t s) {
  HostTensor c = cache;
  c.ne[3] = 2;
  c.data = static_cast<uint8_t*>(cache.data) + 2 * s * cache.nb[3];
  return c;
}

// The cells' (sequence, position) of token t, checked against the cache.
Status cell_of(const char* op, const HostTensor& cells, const HostTensor& cache, int64_t t, int64_t* seq,
               int64_t* pos) {
  const auto* c = reinterpret_cast<const int32_t*>(static_cast<const uint8_t*>(cells.data) + t * cells.nb[1]);
  *seq = c[0];
  *pos = c[1];
  const int64_t n_seq = cache.ne[3] / 2;
  if (*seq < 0 || *seq >= n_seq || *pos < 0 || *pos >= cache.ne[2]) {
    return invalid(op, "token " + std::to_string(t) + "'s cell (sequence " + std::to_string(*seq) + ", position " +
                           std::to_string(*pos) + ") is outside the cache of " + std::to_string(n_seq) +
                           " sequences of " + std::to_string(cache.ne[2]) + " positions");
  }
  return Status::ok_status();
}

namespace {

Status check_cells(const char* op, const HostTensor& cells, const HostTensor& cache, int64_t n_tokens) {
  CLPORT_RETURN_IF_ERROR(check_tensor(op, "cells", cells, {DType::I32}));
  if (cells.ne[0] != 2 || cells.ne[1] != n_tokens)
    return invalid(op, "cells must be I32 [2, " + std::to_string(n_tokens) + "], got " + describe(cells));
  if (cache.ne[3] < 2 || cache.ne[3] % 2 != 0)
    return invalid(op, "the cache must be [head_dim, n_kv_head, n_ctx, 2 n_seq], got " + describe(cache));
  return Status::ok_status();
}

}  // namespace

Status check_kv_store_rope_cells_operands(const Srcs& src, const HostTensor& dst, const OpParams&) {
  constexpr const char* kOp = "kv_store_rope_cells";
  CLPORT_RETURN_IF_ERROR(check_src_count(kOp, src, 3, 4));
  return check_cells(kOp, src[2], dst, src[0].ne[2]);
}

Status kv_store_rope_cells(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads) {
  constexpr const char* kOp = "kv_store_rope_cells";
  const HostTensor &k = src[0], &v = src[1], &cells = src[2];
  for (int64_t t = 0; t < k.ne[2]; ++t) {
    int64_t seq = 0, pos = 0;
    CLPORT_RETURN_IF_ERROR(cell_of(kOp, cells, dst, t, &seq, &pos));
    OpParams at = p;
    at.n_past = static_cast<int32_t>(pos);
    Srcs one{token_row(k, t), token_row(v, t)};
    if (src.size() == 4) one.push_back(src[3]);
    CLPORT_RETURN_IF_ERROR(
        ops::run_reference(CLPORT_OP_KV_STORE_ROPE, one, sequence_cache(dst, seq), at, n_threads));
  }
  return Status::ok_status();
}

Status check_rope_attention_cells_operands(const Srcs& src, const HostTensor&, const OpParams&) {
  constexpr const char* kOp = "rope_attention_cells";
  CLPORT_RETURN_IF_ERROR(check_src_count(kOp, src, 3, 4));
  return check_cells(kOp, src[2], src[1], src[0].ne[2]);
}

Status rope_attention_cells(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads) {
  constexpr const char* kOp = "rope_attention_cells";
  const HostTensor &q = src[0], &cache = src[1], &cells = src[2];
  for (int64_t t = 0; t < q.ne[2]; ++t) {
    int64_t seq = 0, pos = 0;
    CLPORT_RETURN_IF_ERROR(cell_of(kOp, cells, cache, t, &seq, &pos));
    // The query at position pos sees keys 0 .. pos: ATTENTION's n_past + t with n_past = pos.
    OpParams at = p;
    at.n_past = static_cast<int32_t>(pos);
    const KvHalves kv = kv_halves(sequence_cache(cache, seq));
    Srcs one{token_row(q, t), kv.k, kv.v};
    if (src.size() == 4) one.push_back(src[3]);
    CLPORT_RETURN_IF_ERROR(
        ops::run_reference(CLPORT_OP_ROPE_ATTENTION, one, token_row(dst, t), at, n_threads));
  }
  return Status::ok_status();
}

}  // namespace clport::cpu::detail
