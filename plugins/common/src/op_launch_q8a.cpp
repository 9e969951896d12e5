// The integer GEMV on quantized activations (kernels/mul_mat_gemv_q8a.cl): each MUL_MAT-family
// op it serves is two launches, the activation rows quantized to 8-bit blocks (the RMSNorm of
// the fused kernels folded into that step) and the GEMV over them with its epilogue (residual
// add or SwiGLU).
#include <algorithm>
#include <string>

#include "clport_common/op_checks.hpp"
#include "clport_common/op_runner.hpp"

namespace clport::plugin_common {
namespace {

// The activation block layout a weight dtype is multiplied with (kernels/mul_mat_gemv_q8a.cl).
struct ActivationBlocks {
  int64_t values;     // 0: the dtype has no integer kernel
  size_t bytes;
  const char* quantize_kernel;
};

ActivationBlocks activation_blocks(int32_t dtype) {
  switch (dtype) {
    case CLPORT_DTYPE_Q4_0:
    case CLPORT_DTYPE_Q4_1:
    case CLPORT_DTYPE_Q5_0:
    case CLPORT_DTYPE_Q5_1:
    case CLPORT_DTYPE_Q8_0: return {32, 40, "quantize_act_q8"};     // f32 d, f32 d * sum(q), 32 codes
    case CLPORT_DTYPE_Q4_K:
    case CLPORT_DTYPE_Q5_K:
    case CLPORT_DTYPE_Q6_K: return {256, 292, "quantize_act_q8k"};  // f32 d, 256 codes, 16 run sums
    default: return {0, 0, nullptr};
  }
}

bool norm_in_front(const clport_op& op) {
  return op.kind == CLPORT_OP_RMS_NORM_MUL_MAT || op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU;
}

}  // namespace

bool OpRunner::takes_q8a_gemv(const clport_op& op) const {
  if (tuning_.int_dot != 1 || act_out_of_memory_ || op.n_src < 2 || op.src[0] == nullptr || op.src[1] == nullptr) return false;
  const clport_tensor& w = *op.src[0];
  const ActivationBlocks blocks = activation_blocks(w.dtype);
  if (blocks.values == 0 || w.layout != nullptr || w.ne[0] % blocks.values != 0) return false;
  // Every M, so that a model's mat-muls all see the same rounding (the fused kernels are GEMVs
  // at any M anyway). At M = 64, 2048 x 8192 on PoCL (`bench ops --gemm-only`, against
  // int_dot: 0's float GEMM) that is faster for Q5_0 (62-115 vs 113-126 ms) and Q4_K (43 vs
  // 137 ms) but slower for Q6_K (164-178 vs 113-121 ms): an integer GEMM tile is the next step.
  switch (op.kind) {
    case CLPORT_OP_MUL_MAT:
    case CLPORT_OP_RMS_NORM_MUL_MAT:
    case CLPORT_OP_MUL_MAT_ADD:
    case CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU: return true;
    default: return false;
  }
}

cl_mem OpRunner::quantize_activations(const clport_tensor& x, int32_t weight_dtype, const clport_tensor* g,
                                      float eps) {
  const int64_t K = x.ne[0], M = x.ne[1];
  const ActivationBlocks blocks = activation_blocks(weight_dtype);
  const size_t bytes = static_cast<size_t>(M * (K / blocks.values)) * blocks.bytes;
  cl_mem scratch = nullptr;
  {
    std::lock_guard<std::mutex> lock(act_mutex_);
    if (bytes > act_bytes_) {
      int32_t status = CLPORT_PLUGIN_OK;
      cl_mem grown = host_.alloc_buffer(host_.host_ctx, bytes, &status);
      if (grown == nullptr && status == CLPORT_PLUGIN_OUT_OF_MEMORY) {
        act_out_of_memory_ = true;
        h_.log(CLPORT_LOG_WARN, "no device memory for " + std::to_string(bytes) +
                                    " bytes of quantized activations: mat-muls use float activations from here on");
        return nullptr;
      }
      if (grown == nullptr)
        throw sdk::Failure("cannot allocate " + std::to_string(bytes) + " bytes for quantized activations");
      act_buffers_.push_back(grown);
      act_bytes_ = bytes;
    }
    scratch = act_buffers_.back();
  }
  const sdk::Kernel& k = kernel(ProgramId::GemvQ8a, blocks.quantize_kernel);
  sdk::set_args(h_.cl(), k, x.buffer, static_cast<cl_ulong>(x.offset), g ? g->buffer : x.buffer,
                static_cast<cl_ulong>(g ? g->offset : 0), cl_int(g ? 1 : 0), eps, scratch, cl_ulong{0},
                static_cast<cl_int>(K));
  const size_t global = static_cast<size_t>(M), local = 1;
  run(k, 1, &global, &local);
  return scratch;
}

bool OpRunner::q8a_gemv(const clport_op& op) {
  const clport_tensor &w = *op.src[0], &x = *op.src[1], &d = *op.dst;
  const int64_t K = w.ne[0], N = w.ne[1], M = x.ne[1];
  const cl_mem xa = quantize_activations(x, w.dtype, norm_in_front(op) ? op.src[2] : nullptr, op.fparams[0]);
  if (xa == nullptr) return false;
  const std::string t = kernel_type_suffix(w.dtype);
  const char* form = op.kind == CLPORT_OP_MUL_MAT_ADD ? "mul_mat_gemv_q8a_add_"
                     : op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU ? "mul_mat_gemv_q8a_swiglu_"
                                                                    : "mul_mat_gemv_q8a_";
  const sdk::Kernel& k = kernel(ProgramId::GemvQ8a, form + t);
  const auto w_off = static_cast<cl_ulong>(w.offset), w_row = static_cast<cl_ulong>(w.nb[1]),
             d_off = static_cast<cl_ulong>(d.offset);
  const cl_ulong xa_off = 0;
  const auto Ki = static_cast<cl_int>(K), Ni = static_cast<cl_int>(N);
  if (op.kind == CLPORT_OP_MUL_MAT_ADD) {
    const clport_tensor& res = *op.src[2];
    sdk::set_args(h_.cl(), k, w.buffer, w_off, w_row, xa, xa_off, d.buffer, d_off, Ki, Ni, res.buffer,
                  static_cast<cl_ulong>(res.offset));
  } else if (op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU) {
    const clport_tensor& up = *op.src[3];
    sdk::set_args(h_.cl(), k, w.buffer, w_off, w_row, xa, xa_off, d.buffer, d_off, Ki, Ni, up.buffer,
                  static_cast<cl_ulong>(up.offset));
  } else {
    sdk::set_args(h_.cl(), k, w.buffer, w_off, w_row, xa, xa_off, d.buffer, d_off, Ki, Ni);
  }
  // Output rows per work-item: the kernel's Q8A_ROWS, half of it for the two-weight SwiGLU.
  const int64_t rows = op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU ? std::max<int64_t>(1, tuning_.q8a_rows / 2)
                                                                    : tuning_.q8a_rows;
  const size_t global[2] = {static_cast<size_t>((N + rows - 1) / rows), static_cast<size_t>(M)};
  const size_t local[2] = {1, 1};
  run(k, 2, global, local);
  return true;
}

}  // namespace clport::plugin_common
