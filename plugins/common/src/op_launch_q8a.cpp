// The integer GEMV on quantized activations (kernels/mul_mat_gemv_q8a.cl): each MUL_MAT-family
// op it serves is two launches, the activation rows quantized to 8-bit blocks (the RMSNorm of
// the fused kernels folded into that step) and the GEMV over them with its epilogue (residual
// add or SwiGLU); or, for one activation row, one launch that quantizes the row in each of a
// few work-items (tuning q8s, q8s_items). Weights with the Rows8 layout take the x8 kernels of
// kernels/mul_mat_gemv_q8a_x8.cl, launched the same way, and for a few rows (tuning x8f_rows)
// the one-launch form too.
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

// Bytes of one row of K activation values quantized for a weight of `dtype`.
size_t activation_row_bytes(int32_t dtype, int64_t K) {
  const ActivationBlocks blocks = activation_blocks(dtype);
  return static_cast<size_t>(K / blocks.values) * blocks.bytes;
}

bool norm_in_front(const clport_op& op) {
  return op.kind == CLPORT_OP_RMS_NORM_MUL_MAT || op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU;
}

// Activation rows per work-item of the x8a kernels (x8a_rows of mul_mat_gemv_q8a_x8.cl): 8, or 4
// where M is at most 4.
int64_t x8a_rows(int64_t M) { return M <= 4 ? 4 : 8; }

}  // namespace

bool OpRunner::takes_q8a_gemv(const clport_op& op) const {
  if (tuning_.int_dot != 1 || op.n_src < 2 || op.src[0] == nullptr || op.src[1] == nullptr) return false;
  const clport_tensor& w = *op.src[0];
  if (act_out_of_memory_ && rows8_layout(w) == nullptr) return false;
  const ActivationBlocks blocks = activation_blocks(w.dtype);
  if (blocks.values == 0 || w.ne[0] % blocks.values != 0) return false;
  // A Rows8 layout is read by the x8 kernels; its plain buffer stays for the plain ones.
  if (w.layout != nullptr && rows8_layout(w) == nullptr) return false;
  // Every M, so that a model's mat-muls all see the same rounding (the fused kernels are GEMVs
  // at any M anyway). At M = 64, 2048 x 8192 on PoCL (`bench ops --gemm-only`, against
  // int_dot: off's float GEMM) that is faster for Q5_0 (62-115 vs 113-126 ms) and Q4_K (43 vs
  // 137 ms) but slower for Q6_K (164-178 vs 113-121 ms): an integer GEMM tile is the next step.
  switch (op.kind) {
    case CLPORT_OP_MUL_MAT:
    case CLPORT_OP_RMS_NORM_MUL_MAT:
    case CLPORT_OP_MUL_MAT_ADD:
    case CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU: return true;
    default: return false;
  }
}

cl_mem OpRunner::activation_scratch(size_t bytes, bool required) {
  const cl_mem scratch = activations_.grow(bytes);
  if (scratch == nullptr && required)
    throw sdk::Failure("no device memory for " + std::to_string(bytes) +
                           " bytes of quantized activations (the weight's eight-row layout is its only copy)",
                       CLPORT_PLUGIN_OUT_OF_MEMORY);
  if (scratch == nullptr) {
    act_out_of_memory_ = true;
    h_.log(CLPORT_LOG_WARN, "no device memory for " + std::to_string(bytes) +
                                " bytes of quantized activations: mat-muls use float activations from here on");
  }
  return scratch;
}

cl_mem OpRunner::quantize_activations(const clport_tensor& x, int32_t weight_dtype, const clport_tensor* g,
                                      float eps, bool required) {
  const int64_t K = x.ne[0], M = x.ne[1];
  const ActivationBlocks blocks = activation_blocks(weight_dtype);
  const cl_mem scratch = activation_scratch(static_cast<size_t>(M) * activation_row_bytes(weight_dtype, K), required);
  if (scratch == nullptr) return nullptr;
  const sdk::Kernel& k = kernel(ProgramId::GemvQ8a, blocks.quantize_kernel, kernel_type_suffix(weight_dtype));
  sdk::set_args(h_.cl(), k, x.buffer, static_cast<cl_ulong>(x.offset), g ? g->buffer : x.buffer,
                static_cast<cl_ulong>(g ? g->offset : 0), cl_int(g ? 1 : 0), eps, scratch, cl_ulong{0},
                static_cast<cl_int>(K));
  const size_t global = static_cast<size_t>(M), local = 1;
  run(k, 1, &global, &local);
  return scratch;
}

size_t OpRunner::q8a_scratch_bytes(const clport_op& op, bool rows8) const {
  const clport_tensor& w = *op.src[0];
  const size_t row_bytes = activation_row_bytes(w.dtype, w.ne[0]);
  const int64_t M = op.src[1]->ne[1];
  const Q8aWeights shape = q8a_shape(rows8, op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU);
  // The self-quantizing form: a copy of its rows in each work-item; the other form: each row once.
  auto copies = [&](int64_t m) { return self_quantizing(m, shape) ? self_quantizing_items(w.ne[1], m, shape) : 1; };
  size_t bytes = copies(1) * row_bytes;
  if (M > 1) bytes = std::max(bytes, static_cast<size_t>(M) * row_bytes);
  const int64_t few = std::min<int64_t>(M, tuning_.x8f_rows);  // the most rows the x8f form takes
  if (few > 1) bytes = std::max(bytes, copies(few) * static_cast<size_t>(few) * row_bytes);
  return bytes;
}

size_t OpRunner::self_quantizing_items(int64_t N, int64_t M, const Q8aWeights& wa) {
  const int64_t run_rows = M > 1 ? 2 * wa.rows : wa.rows;
  const auto runs = static_cast<size_t>((N + run_rows - 1) / run_rows);
  return std::min<size_t>(runs, wa.self_quantizing_items);
}

bool OpRunner::self_quantizing(int64_t M, const Q8aWeights& wa) const {
  if (M == 1) return tuning_.q8s == 1;
  return wa.family[0] == 'x' && M <= static_cast<int64_t>(tuning_.x8f_rows);
}

OpRunner::Q8aWeights OpRunner::q8a_shape(bool rows8, bool swiglu) const {
  Q8aWeights wa{};
  wa.family = rows8 ? "x8" : "q8";
  // Output rows per work-item: the x8 kernels' 8, or the q8 kernels' Q8A_ROWS, half of it for the
  // two-weight SwiGLU.
  wa.rows = rows8 ? 8 : swiglu ? std::max<int64_t>(1, tuning_.q8a_rows / 2) : tuning_.q8a_rows;
  wa.self_quantizing_items = rows8 ? tuning_.x8s_items : tuning_.q8s_items;
  return wa;
}

OpRunner::Q8aWeights OpRunner::q8a_weights(const clport_op& op) const {
  const clport_tensor& w = *op.src[0];
  const bool swiglu = op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU;
  // The Rows8 layout when every weight the op reads has it; otherwise (the device had no memory
  // for one of the copies) the plain buffers.
  const PackedWeight* w8 = rows8_layout(w);
  const PackedWeight* up8 = swiglu ? rows8_layout(*op.src[3]) : nullptr;
  const bool rows8 = w8 != nullptr && (!swiglu || up8 != nullptr);
  Q8aWeights wa = q8a_shape(rows8, swiglu);
  if (rows8) {
    wa.w = w8->q;
    wa.w_row = rows8_bytes(w8->dtype, w8->K, 8);
    wa.up = up8 != nullptr ? up8->q : nullptr;
    return wa;
  }
  const clport_tensor* up = swiglu ? op.src[3] : nullptr;
  wa.w = w.buffer;
  wa.w_off = static_cast<cl_ulong>(w.offset);
  wa.w_row = static_cast<cl_ulong>(w.nb[1]);
  wa.up = up != nullptr ? up->buffer : nullptr;
  wa.up_off = static_cast<cl_ulong>(up != nullptr ? up->offset : 0);
  return wa;
}

bool OpRunner::q8s_gemv(const clport_op& op, const char* form, const Q8aWeights& wa) {
  const clport_tensor &w = *op.src[0], &x = *op.src[1], &d = *op.dst;
  const int64_t K = w.ne[0], N = w.ne[1], M = x.ne[1];
  const clport_tensor* g = norm_in_front(op) ? op.src[2] : nullptr;
  const std::string shape = M > 1 ? "f_" : "s_";
  const sdk::Kernel& k = kernel(ProgramId::GemvQ8a, std::string("mul_mat_gemv_") + wa.family + shape + form +
                                                        kernel_type_suffix(w.dtype),
                                kernel_type_suffix(w.dtype));
  // At most self_quantizing_items work-items (one each per work-group), each a share of the row runs.
  const size_t items = self_quantizing_items(N, M, wa);
  const cl_mem scratch =
      activation_scratch(items * static_cast<size_t>(M) * activation_row_bytes(w.dtype, K), wa.family[0] == 'x');
  if (scratch == nullptr) return false;
  const auto x_off = static_cast<cl_ulong>(x.offset), d_off = static_cast<cl_ulong>(d.offset);
  const cl_mem g_buf = g ? g->buffer : x.buffer;
  const auto g_off = static_cast<cl_ulong>(g ? g->offset : 0);
  const cl_int norm = g ? 1 : 0, Ki = static_cast<cl_int>(K), Ni = static_cast<cl_int>(N), Mi = static_cast<cl_int>(M);
  const float eps = op.params.eps;
  // The arguments every form takes, then the epilogue's operand, then (x8f) M.
  auto set = [&](auto... tail) {
    if (M > 1) {
      sdk::set_args(h_.cl(), k, wa.w, wa.w_off, wa.w_row, x.buffer, x_off, g_buf, g_off, norm, eps, scratch,
                    d.buffer, d_off, Ki, Ni, tail..., Mi);
    } else {
      sdk::set_args(h_.cl(), k, wa.w, wa.w_off, wa.w_row, x.buffer, x_off, g_buf, g_off, norm, eps, scratch,
                    d.buffer, d_off, Ki, Ni, tail...);
    }
  };
  if (op.kind == CLPORT_OP_MUL_MAT_ADD) {
    set(op.src[2]->buffer, static_cast<cl_ulong>(op.src[2]->offset));
  } else if (wa.up != nullptr) {
    set(wa.up, wa.up_off);
  } else {
    set();
  }
  const size_t global[2] = {items, 1}, local[2] = {1, 1};
  run(k, 2, global, local);
  return true;
}

bool OpRunner::q8a_gemv(const clport_op& op) {
  const clport_tensor &w = *op.src[0], &x = *op.src[1], &d = *op.dst;
  const int64_t K = w.ne[0], N = w.ne[1], M = x.ne[1];
  const char* form = op.kind == CLPORT_OP_MUL_MAT_ADD ? "add_" : op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU ? "swiglu_" : "";
  const Q8aWeights wa = q8a_weights(op);
  if (self_quantizing(M, wa)) return q8s_gemv(op, form, wa);
  const cl_mem xa =
      quantize_activations(x, w.dtype, norm_in_front(op) ? op.src[2] : nullptr, op.params.eps, wa.family[0] == 'x');
  if (xa == nullptr) return false;
  const sdk::Kernel& k = kernel(ProgramId::GemvQ8a, std::string("mul_mat_gemv_") + wa.family + "a_" + form +
                                                        kernel_type_suffix(w.dtype),
                                kernel_type_suffix(w.dtype));
  const auto d_off = static_cast<cl_ulong>(d.offset);
  const cl_ulong xa_off = 0;
  const auto Ki = static_cast<cl_int>(K), Ni = static_cast<cl_int>(N), Mi = static_cast<cl_int>(M);
  // The x8 kernels take M last and run x8a_rows(M) activation rows per work-item (weights
  // unpacked once for them); the q8 kernels one row each.
  const bool x8 = wa.family[0] == 'x';
  const cl_mem res = op.kind == CLPORT_OP_MUL_MAT_ADD ? op.src[2]->buffer : nullptr;
  const auto res_off = static_cast<cl_ulong>(res != nullptr ? op.src[2]->offset : 0);
  if (res != nullptr && x8) {
    sdk::set_args(h_.cl(), k, wa.w, wa.w_off, wa.w_row, xa, xa_off, d.buffer, d_off, Ki, Ni, res, res_off, Mi);
  } else if (res != nullptr) {
    sdk::set_args(h_.cl(), k, wa.w, wa.w_off, wa.w_row, xa, xa_off, d.buffer, d_off, Ki, Ni, res, res_off);
  } else if (wa.up != nullptr && x8) {
    sdk::set_args(h_.cl(), k, wa.w, wa.w_off, wa.w_row, xa, xa_off, d.buffer, d_off, Ki, Ni, wa.up, wa.up_off, Mi);
  } else if (wa.up != nullptr) {
    sdk::set_args(h_.cl(), k, wa.w, wa.w_off, wa.w_row, xa, xa_off, d.buffer, d_off, Ki, Ni, wa.up, wa.up_off);
  } else if (x8) {
    sdk::set_args(h_.cl(), k, wa.w, wa.w_off, wa.w_row, xa, xa_off, d.buffer, d_off, Ki, Ni, Mi);
  } else {
    sdk::set_args(h_.cl(), k, wa.w, wa.w_off, wa.w_row, xa, xa_off, d.buffer, d_off, Ki, Ni);
  }
  const int64_t row_items = x8 ? (M + x8a_rows(M) - 1) / x8a_rows(M) : M;
  // An x8a work-item takes two row groups (mul_mat_gemv_q8a_x8.cl, x8p_rows).
  const int64_t row_groups = (N + wa.rows - 1) / wa.rows;
  const size_t global[2] = {static_cast<size_t>(x8 ? (row_groups + 1) / 2 : row_groups),
                            static_cast<size_t>(row_items)};
  const size_t local[2] = {1, 1};
  run(k, 2, global, local);
  return true;
}

}  // namespace clport::plugin_common
