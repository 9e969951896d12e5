// MUL_MAT on the fast CPU backend: dst[N, M] = src1[K, M] x src0[K, N]^T (semantics and checks
// as the reference's, cpu_matmul.cpp). Quantized weights: the activation rows are quantized once
// per call to 8-bit blocks, then integer dot products. F32 / F16 weights, quantized weights
// under precision fp32, and the dtypes without an integer kernel (Q2_K, Q3_K, IQ4_NL, BF16: their
// rows are dequantized tile by tile): float dot products. Threads split the weight rows into tiles, so every
// weight byte is read once per call whatever M is.
#include <algorithm>

#include "quant/quant.h"
#include "cpu_backend/fast_ops.h"
#include "cpu_backend/simd_kernels.h"
#include "ops/cpu_common.h"
#include "ops/cpu_kernels.h"

namespace clport::fastcpu {
namespace {

using cpu::HostTensor;
using cpu::detail::row_f32;
using cpu::detail::row_ptr;
using cpu::detail::unsupported;

// Weight rows per work item: enough to amortise taking an item, few enough that two threads
// balance on the smallest mat-mul of a LLaMA layer (576 rows).
constexpr int64_t kTileRows = 16;
// Below this many multiply-adds a call runs on the calling thread: waking the pool costs more.
// Activation values below which quantizing the rows is not worth spreading over threads.
constexpr int64_t kMinValuesForParallelQuantize = 32 * 1024;
// Activation rows from which a call takes the prompt kernels where the target has them: each
// tile of weight rows is decoded once per call, which fewer rows do not pay back.
constexpr int64_t kMinRowsForPromptKernels = 8;

// What the SIMD rows need beyond the op's registered checks.
Status check_mul_mat_rows(const Srcs& src, const HostTensor& dst) {
  constexpr const char* kOp = "mul_mat";
  const HostTensor& a = src[1];
  if (a.nb[1] % sizeof(float) != 0 || dst.nb[1] % sizeof(float) != 0) {
    return unsupported(kOp, "activation and dst rows must start on float boundaries");
  }
  return Status::ok_status();
}

// One 2-D product: the weight rows of one batch against the activation rows of one batch.
struct Problem {
  DType dtype;
  int64_t K, N, M;
  const uint8_t* w;    // weight row 0
  int64_t w_stride;    // bytes
  const uint8_t* a;    // activation row 0 (floats)
  int64_t a_stride;    // bytes
  float* out;          // dst row 0
  int64_t out_stride;  // floats
};

void quantize_activations(ThreadPool& pool, const Problem& p, ActivationLayout layout, uint8_t* q,
                          int64_t q_stride) {
  auto rows = [&](int, int64_t begin, int64_t end) {
    for (int64_t m = begin; m < end; ++m) {
      const auto* x = reinterpret_cast<const float*>(p.a + m * p.a_stride);
      if (layout == ActivationLayout::kQ8BlockK) {
        quantize_row_q8_block_k(x, p.K, reinterpret_cast<Q8BlockK*>(q + m * q_stride));
      } else {
        quantize_row_q8_block32(x, p.K, reinterpret_cast<Q8Block32*>(q + m * q_stride));
      }
    }
  };
  if (p.M * p.K < kMinValuesForParallelQuantize) {
    rows(0, 0, p.M);
  } else {
    pool.parallel_for(p.M, 1, rows);
  }
}

// Runs fn(thread, n0, rows) over the weight-row tiles, on the pool when the product is large.
template <typename Fn>
void for_each_tile(ThreadPool& pool, const Problem& p, Fn&& fn) {
  const int64_t tiles = (p.N + kTileRows - 1) / kTileRows;
  const double macs = static_cast<double>(p.N) * static_cast<double>(p.K * p.M);
  auto body = [&](int thread, int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t n0 = t * kTileRows;
      fn(thread, n0, std::min(kTileRows, p.N - n0));
    }
  };
  if (macs < kMinMacsForPool) {
    body(0, 0, tiles);
  } else {
    // About eight chunks per thread: enough to even out a thread that lost its core for a
    // while, few enough that each thread streams long contiguous runs of weight rows (which
    // the hardware prefetchers follow).
    pool.parallel_for(tiles, std::max<int64_t>(1, tiles / (8 * pool.size())), body);
  }
}

void run_quantized(ThreadPool& pool, Scratch& scratch, const Problem& p) {
  const ActivationLayout layout = activation_layout(p.dtype);
  const int64_t q_stride = activation_row_bytes(layout, p.K);
  if (scratch.activations.size() < static_cast<size_t>(q_stride * p.M))
    scratch.activations.resize(static_cast<size_t>(q_stride * p.M));
  uint8_t* q = scratch.activations.data();
  quantize_activations(pool, p, layout, q, q_stride);
  // The prompt kernels address 16 weight rows with 32-bit offsets.
  const bool prompt_shape = p.M >= kMinRowsForPromptKernels && p.w_stride <= (int64_t{1} << 26);
  const int64_t sub = prompt_shape ? prompt_sub_values(p.dtype) : 0;
  if (sub > 0) {
    const float* sums = nullptr;
    if (layout == ActivationLayout::kQ8BlockK) {
      scratch.activation_sums.resize(static_cast<size_t>(p.M * (p.K / sub)));
      prompt_activation_sums(p.dtype, p.K, q, q_stride, p.M, scratch.activation_sums.data());
      sums = scratch.activation_sums.data();
    }
    for_each_tile(pool, p, [&](int, int64_t n0, int64_t rows) {
      dot_tile_quantized_prompt(p.dtype, p.K, p.w + n0 * p.w_stride, p.w_stride, rows, q, q_stride,
                                p.M, sums, p.out + n0, p.out_stride);
    });
    return;
  }
  // Decode steps over several sequences: four rows at a time, each row's result the same bits
  // as in a prompt; a lone row keeps the one-row kernels.
  if (p.M >= 2 && rows4_supported(p.dtype)) {
    for_each_tile(pool, p, [&](int, int64_t n0, int64_t rows) {
      dot_tile_quantized_rows4(p.dtype, p.K, p.w + n0 * p.w_stride, p.w_stride, rows, q, q_stride, p.M,
                               p.out + n0, p.out_stride);
    });
    return;
  }
  for_each_tile(pool, p, [&](int, int64_t n0, int64_t rows) {
    dot_tile_quantized(p.dtype, p.K, p.w + n0 * p.w_stride, p.w_stride, rows, q, q_stride, p.M,
                       p.out + n0, p.out_stride);
  });
}

void run_float(ThreadPool& pool, Scratch& scratch, const Problem& p) {
  const auto* acts = reinterpret_cast<const float*>(p.a);
  const int64_t a_stride = p.a_stride / static_cast<int64_t>(sizeof(float));
  if (p.dtype == DType::F32 || p.dtype == DType::F16) {
    for_each_tile(pool, p, [&](int, int64_t n0, int64_t rows) {
      dot_tile_float(p.dtype, p.K, p.w + n0 * p.w_stride, p.w_stride, rows, acts, a_stride, p.M,
                     p.out + n0, p.out_stride);
    });
    return;
  }
  // Any other weight (precision fp32, or no integer kernel for the dtype): each tile of weight
  // rows is dequantized once into the thread's scratch and used for every activation row.
  scratch.per_thread.resize(static_cast<size_t>(pool.size()));
  for (auto& s : scratch.per_thread) {
    if (s.size() < static_cast<size_t>(kTileRows * p.K))
      s.resize(static_cast<size_t>(kTileRows * p.K));
  }
  for_each_tile(pool, p, [&](int thread, int64_t n0, int64_t rows) {
    float* rows_f32 = scratch.per_thread[static_cast<size_t>(thread)].data();
    for (int64_t j = 0; j < rows; ++j) {
      // Operands were validated (dtype, K a whole number of blocks): this cannot fail.
      static_cast<void>(
          dequantize_row(p.dtype, p.w + (n0 + j) * p.w_stride, rows_f32 + j * p.K, p.K));
    }
    dot_tile_float(DType::F32, p.K, reinterpret_cast<const uint8_t*>(rows_f32),
                   p.K * static_cast<int64_t>(sizeof(float)), rows, acts, a_stride, p.M, p.out + n0,
                   p.out_stride);
  });
}

}  // namespace

Status mul_mat(FastContext& ctx, const Srcs& src, const HostTensor& dst, const cpu::OpParams&) {
  CLPORT_RETURN_IF_ERROR(check_mul_mat_rows(src, dst));
  ThreadPool& pool = ctx.pool;
  Scratch& scratch = ctx.scratch;
  const HostTensor& w = src[0];
  const HostTensor& a = src[1];
  const bool quantized =
      activation_layout(w.dtype) != ActivationLayout::kNone && !ctx.float_activations;
  const int64_t r2 = a.ne[2] / w.ne[2], r3 = a.ne[3] / w.ne[3];
  for (int64_t i3 = 0; i3 < a.ne[3]; ++i3) {
    for (int64_t i2 = 0; i2 < a.ne[2]; ++i2) {
      Problem p;
      p.dtype = w.dtype;
      p.K = w.ne[0];
      p.N = w.ne[1];
      p.M = a.ne[1];
      p.w = row_ptr(w, 0, i2 / r2, i3 / r3);
      p.w_stride = w.nb[1];
      p.a = row_ptr(a, 0, i2, i3);
      p.a_stride = a.nb[1];
      p.out = row_f32(dst, 0, i2, i3);
      p.out_stride = dst.nb[1] / static_cast<int64_t>(sizeof(float));
      if (quantized) {
        run_quantized(pool, scratch, p);
      } else {
        run_float(pool, scratch, p);
      }
    }
  }
  return Status::ok_status();
}

}  // namespace clport::fastcpu
