// LlamaModel::read_kv / write_kv / copy_kv: the KV-cache rows of a sequence's first positions, for
// saving a conversation to a file, loading it back and forking it. A position's keys (or values)
// of one layer are one row of the sequence's cache tensor [head_dim, n_head_kv, n_ctx], so
// positions 0..n-1 are its first bytes.
#include "model/llama_model.h"
#include "model/llama_weights.h"

namespace clport {
namespace {

// The rows of positions 0..n_tokens-1 of one cache tensor.
TensorRef first_positions(const TensorRef& cache, uint32_t n_tokens) {
  return view(cache, cache.dtype, {cache.ne[0], cache.ne[1], static_cast<int64_t>(n_tokens), 1}, cache.nb, 0);
}

uint64_t rows_bytes(const TensorRef& cache, uint32_t n_tokens) {
  return static_cast<uint64_t>(cache.nb[2]) * n_tokens;
}

}  // namespace

Status LlamaModel::check_sequence(uint32_t seq) const {
  if (seq < n_seq_) return Status();
  return Status(Stage::InvalidArgument, "sequence " + std::to_string(seq) + " out of range: the KV cache holds " +
                                            std::to_string(n_seq_) + " (0 to " + std::to_string(n_seq_ - 1) + ")");
}

uint64_t LlamaModel::kv_bytes(uint32_t n_tokens) const {
  uint64_t bytes = 0;
  for (const auto& L : w_->layers) {
    bytes += rows_bytes(L.cache[0].k_cache, n_tokens) + rows_bytes(L.cache[0].v_cache, n_tokens);
  }
  return bytes;
}

Status LlamaModel::read_kv(uint32_t n_tokens, std::vector<uint8_t>& out, uint32_t seq) {
  CLPORT_RETURN_IF_ERROR(check_sequence(seq));
  if (n_tokens > n_ctx_) {
    return Status(Stage::InvalidArgument, "the KV cache holds " + std::to_string(n_ctx_) + " positions, not " +
                                              std::to_string(n_tokens));
  }
  out.resize(kv_bytes(n_tokens));
  uint8_t* at = out.data();
  for (const auto& L : w_->layers) {
    for (const TensorRef* cache : {&L.cache[seq].k_cache, &L.cache[seq].v_cache}) {
      const uint64_t bytes = rows_bytes(*cache, n_tokens);
      if (bytes == 0) continue;
      CLPORT_RETURN_IF_ERROR(backend_.download(first_positions(*cache, n_tokens), at, bytes));
      at += bytes;
    }
  }
  return Status();
}

Status LlamaModel::write_kv(uint32_t n_tokens, const uint8_t* data, uint64_t bytes, uint32_t seq) {
  CLPORT_RETURN_IF_ERROR(check_sequence(seq));
  if (n_tokens > n_ctx_) {
    return Status(Stage::InvalidArgument, std::to_string(n_tokens) + " positions do not fit the KV cache of " +
                                              std::to_string(n_ctx_) + " (raise --ctx)");
  }
  if (bytes != kv_bytes(n_tokens)) {
    return Status(Stage::InvalidArgument, "KV rows of " + std::to_string(bytes) + " bytes for " +
                                              std::to_string(n_tokens) + " positions; this model's are " +
                                              std::to_string(kv_bytes(n_tokens)));
  }
  for (const auto& L : w_->layers) {
    for (const TensorRef* cache : {&L.cache[seq].k_cache, &L.cache[seq].v_cache}) {
      const uint64_t n = rows_bytes(*cache, n_tokens);
      if (n == 0) continue;
      CLPORT_RETURN_IF_ERROR(backend_.upload(first_positions(*cache, n_tokens), data, n));
      data += n;
    }
  }
  return backend_.sync();
}

Status LlamaModel::copy_kv(uint32_t from, uint32_t to, uint32_t n_tokens) {
  CLPORT_RETURN_IF_ERROR(check_sequence(from));
  CLPORT_RETURN_IF_ERROR(check_sequence(to));
  if (from == to || n_tokens == 0) return Status();
  // Through the host: a fork is rare next to the steps, and every backend can download and
  // upload where not every plugin copies quantized rows device to device.
  std::vector<uint8_t> rows;
  CLPORT_RETURN_IF_ERROR(read_kv(n_tokens, rows, from));
  return write_kv(n_tokens, rows.data(), rows.size(), to);
}

}  // namespace clport
