// MUL_MAT: dst[N, M] = src1[K, M] x src0[K, N]^T, src0 the weight in any weight dtype. Extra
// dims broadcast the weight: src1 batch (i2, i3) uses weight batch (i2 / (ne12 / ne02),
// i3 / (ne13 / ne03)). Each weight row is dequantized once per call into per-thread scratch
// and dotted with every activation row; threads split tiles of output rows.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu_backend/activation_blocks.h"

#include "quant/quant.h"
#include "ops/cpu_common.h"
#include "ops/cpu_kernels.h"
#include "ops/cpu_parallel.h"

namespace clport::cpu::detail {
namespace {

// Weight rows per work item: the activation row is reused from L1 across the tile.
constexpr int64_t kTile = 4;

// A contiguous copy of the activations a as an integer mat-mul on `weight` sees them (see
// OpParams::quantized_activations); a itself when that weight takes float activations.
HostTensor round_activations(const HostTensor& a, DType weight, std::vector<float>& storage) {
  const int64_t block = fastcpu::activation_block_values(fastcpu::activation_layout(weight));
  if (block == 0 || a.ne[0] % block != 0) return a;
  const int64_t K = a.ne[0];
  storage.resize(static_cast<size_t>(a.elements()));
  float* out = storage.data();
  for (int64_t i3 = 0; i3 < a.ne[3]; ++i3)
    for (int64_t i2 = 0; i2 < a.ne[2]; ++i2)
      for (int64_t m = 0; m < a.ne[1]; ++m, out += K) {
        const float* x = row_f32(a, m, i2, i3);
        for (int64_t b = 0; b < K; b += block) {
          float amax = 0.0f;
          for (int64_t i = b; i < b + block; ++i) amax = std::max(amax, std::fabs(x[i]));
          const float d = amax / 127.0f, inv = d != 0.0f ? 1.0f / d : 0.0f;
          for (int64_t i = b; i < b + block; ++i) out[i] = d * std::nearbyint(x[i] * inv);
        }
      }
  return with_strides(HostTensor::contiguous(DType::F32, a.ne, storage.data()));
}

}  // namespace

Status check_mul_mat_operands(const Srcs& src, const HostTensor& dst, const OpParams&) {
  constexpr const char* kOp = "mul_mat";
  CLPORT_RETURN_IF_ERROR(check_src_count(kOp, src, 2, 2));
  const HostTensor& w = src[0];
  const HostTensor& a = src[1];
  CLPORT_RETURN_IF_ERROR(check_weight_tensor(kOp, "src0 (weight)", w));
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "src1 (activations)", a, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "dst", dst, {DType::F32}));
  const int64_t K = w.ne[0], N = w.ne[1], M = a.ne[1];
  if (a.ne[0] != K) {
    return invalid(kOp, "inner dimensions differ: src0 " + describe(w) + ", src1 " + describe(a));
  }
  if (a.ne[2] % w.ne[2] != 0 || a.ne[3] % w.ne[3] != 0) {
    return invalid(
        kOp, "src0 batch dims of " + describe(w) + " must divide those of src1 " + describe(a));
  }
  if (dst.ne[0] != N || dst.ne[1] != M || dst.ne[2] != a.ne[2] || dst.ne[3] != a.ne[3]) {
    return invalid(kOp, "dst must be [" + std::to_string(N) + ", " + std::to_string(M) + ", " +
                            std::to_string(a.ne[2]) + ", " + std::to_string(a.ne[3]) + "], got " +
                            describe(dst));
  }
  return Status::ok_status();
}

Status mul_mat(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads) {
  const HostTensor& w = src[0];
  const int64_t K = w.ne[0], N = w.ne[1];
  std::vector<float> rounded;
  const HostTensor a = p.quantized_activations ? round_activations(src[1], w.dtype, rounded) : src[1];
  const int64_t M = a.ne[1];

  const int64_t tiles = (N + kTile - 1) / kTile;
  const int64_t batches = a.ne[2] * a.ne[3];
  const int64_t items = tiles * batches;
  const int threads = plan_threads(items, 2.0 * static_cast<double>(kTile * K * M), n_threads);
  const bool direct = w.dtype == DType::F32;  // F32 weight rows are used in place
  std::vector<std::vector<float>> scratch(static_cast<size_t>(threads));
  if (!direct) {
    for (auto& s : scratch) s.resize(static_cast<size_t>(kTile * K));
  }
  const int64_t r2 = a.ne[2] / w.ne[2], r3 = a.ne[3] / w.ne[3];

  run_parallel(threads, items, [&](int thread, int64_t begin, int64_t end) {
    const float* wrow[kTile];
    for (int64_t item = begin; item < end; ++item) {
      const int64_t batch = item / tiles;
      const int64_t i2 = batch % a.ne[2], i3 = batch / a.ne[2];
      const int64_t n0 = (item % tiles) * kTile;
      const int64_t count = std::min(kTile, N - n0);
      for (int64_t j = 0; j < count; ++j) {
        const uint8_t* raw = row_ptr(w, n0 + j, i2 / r2, i3 / r3);
        if (direct) {
          wrow[j] = reinterpret_cast<const float*>(raw);
        } else {
          float* buf = scratch[static_cast<size_t>(thread)].data() + j * K;
          // Arguments were validated above (dtype, K a whole number of blocks), so this
          // cannot fail.
          static_cast<void>(dequantize_row(w.dtype, raw, buf, K));
          wrow[j] = buf;
        }
      }
      for (int64_t m = 0; m < M; ++m) {
        const float* act = row_f32(a, m, i2, i3);
        float* out = row_f32(dst, m, i2, i3) + n0;
        for (int64_t j = 0; j < count; ++j) out[j] = dot(wrow[j], act, K);
      }
    }
  });
  return Status::ok_status();
}

}  // namespace clport::cpu::detail
