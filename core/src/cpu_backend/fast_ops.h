// The ops the fast CPU backend runs itself (the op registry names them; everything else goes to
// the CPU reference). Each is called after the op's registered check, the one the reference
// runs, so a bad call gets the same error on both backends; a kernel checks only what its own
// SIMD rows need beyond that. All use the backend's thread pool.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/cpu_ops.h"
#include "cpu_backend/thread_pool.h"

namespace clport::fastcpu {

// Below these sizes the calling thread does the whole op: waking the pool costs more.
inline constexpr double kMinMacsForPool = 64.0 * 1024.0;  // multiply-adds (mat-mul, attention)
inline constexpr int64_t kMinValuesForPool = 16 * 1024;   // values (a decode token's norm is 576)

using Srcs = std::vector<cpu::HostTensor>;

// ROPE's cos / sin per (token, pair): the same for every layer of a forward pass, so computed
// once per batch of positions rather than once per call.
struct RopeTable {
  int64_t pos0 = -1, n_tokens = 0, n_rot = 0;
  double base = 0, freq_scale = 0;
  std::vector<float> factors;   // the frequency factors it was computed with (empty: none)
  std::vector<float> cos, sin;  // [n_tokens][n_rot / 2]
};

// The cells ops' cos / sin per token of a step (each token at its own position): the same for
// the K store and the Q rotation of every layer of the step.
struct CellsRopeTable {
  std::vector<int64_t> positions;
  int64_t n_rot = 0;
  double base = 0, freq_scale = 0;
  std::vector<float> factors;
  std::vector<float> cos, sin;  // [n_tokens][n_rot / 2]
};

// Reusable buffers, kept by the backend so decode does not allocate per op.
struct Scratch {
  std::vector<uint8_t> activations;            // quantized activation rows
  std::vector<float> activation_sums;          // their sub-block sums for the prompt kernels
  std::vector<std::vector<float>> per_thread;  // dequantized weight rows, attention scores
  std::vector<float> k_rows, v_rows;           // a quantized K / V cache decoded for one attention
  RopeTable rope;
  CellsRopeTable cells_rope;
  std::vector<int64_t> cells_seqs;  // each token's sequence (the cells ops)
  std::vector<float> cells_row;     // a rotated K row on its way into the cache
};

// What the backend lends a kernel for one call.
struct FastContext {
  ThreadPool& pool;
  Scratch& scratch;
  // precision fp32: quantized weights are dequantized to float and multiplied with the float
  // activations instead of with 8-bit activations (MUL_MAT).
  bool float_activations = false;
};

Status mul_mat(FastContext& ctx, const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams& p);
Status rms_norm(FastContext& ctx, const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams& p);
Status swiglu(FastContext& ctx, const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams& p);
Status geglu(FastContext& ctx, const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams& p);
Status rope(FastContext& ctx, const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams& p);
Status attention(FastContext& ctx, const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams& p);
Status kv_store_rope_cells(FastContext& ctx, const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams& p);
Status rope_attention_cells(FastContext& ctx, const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams& p);
// The cache types the cells kernels take (others go to the reference, and plans keep the
// per-sequence ops for them).
bool fast_takes_cache(DType cache);

}  // namespace clport::fastcpu
