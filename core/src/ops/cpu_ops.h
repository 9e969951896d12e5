// CPU reference implementation of every op in clport_op_kind. It is the ground truth every
// plugin's kernels are checked against (conformance, self-test, --check-layers) and the CPU
// backend used when no OpenCL device is usable. Clarity first, but not needlessly slow:
// MUL_MAT dequantizes a weight row once and uses threads over output rows.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/dtype.h"
#include "clport/export.h"
#include "clport_plugin/plugin_abi.h"
#include "clport/status.h"

namespace clport::cpu {

// A host tensor view with the same conventions as clport_tensor (ne[0] innermost, nb = bytes).
struct HostTensor {
  DType dtype = DType::F32;
  std::array<int64_t, 4> ne{1, 1, 1, 1};
  std::array<int64_t, 4> nb{0, 0, 0, 0};
  void* data = nullptr;

  int64_t elements() const { return ne[0] * ne[1] * ne[2] * ne[3]; }
  // Contiguous view of `data` (nb computed from dtype block layout).
  static HostTensor contiguous(DType dtype, std::array<int64_t, 4> ne, void* data);
};

// The K and V halves of one sequence's KV cache [head_dim, n_kv_head, n_ctx, 2] (V nb[3] bytes
// after K), each a 3-D view.
struct KvHalves {
  HostTensor k, v;
};
inline KvHalves kv_halves(const HostTensor& cache) {
  KvHalves h{cache, cache};
  h.k.ne[3] = h.v.ne[3] = 1;
  h.v.data = static_cast<uint8_t*>(cache.data) + cache.nb[3];
  return h;
}

// The op's parameters as plugin_abi.h types them (clport_op.n_past and clport_op_params), plus
// what only the CPU reference takes.
struct OpParams {
  int32_t n_past = 0;
  float eps = 0.0f;
  float scale = 0.0f;
  clport_rope_params rope{};
  clport_attention_params attention{};
  // MUL_MAT and the fused mat-muls: each activation row first rounded through the 8-bit blocks
  // an integer mat-mul multiplies with (32-value blocks for Q4_0..Q8_0 weights, 256-value for
  // the K-quants: d = max|x| / 127, q = x / d to nearest even, value d * q), so a kernel on
  // quantized activations can be checked as tightly as a float one. No effect on other weights.
  bool quantized_activations = false;

  clport_op_params abi() const { return clport_op_params{eps, scale, rope, attention}; }
};

// Runs one op (semantics exactly as documented in plugin_abi.h). Never throws: bad shapes or
// dtypes give InvalidArgument / Unsupported. n_threads 0 = hardware concurrency.
CLPORT_API Status run_op(clport_op_kind kind, const std::vector<HostTensor>& src,
                         const HostTensor& dst, const OpParams& params, int n_threads = 0);

}  // namespace clport::cpu
