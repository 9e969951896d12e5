#include "split_mat_mul.hpp"

#include <limits>

extern const clport::EmbeddedKernel clport_plugin_kernels[];

namespace adreno {
namespace {

using clport::sdk::round_up;

constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();

bool dense_f32(const clport_tensor* t) {
  if (t == nullptr || t->dtype != CLPORT_DTYPE_F32) return false;
  int64_t stride = 4;
  for (int i = 0; i < 4; ++i) {
    if (t->ne[i] < 1 || t->ne[i] > kMaxInt) return false;
    if (t->ne[i] > 1 && t->nb[i] != stride) return false;
    stride *= t->ne[i];
  }
  return t->nb[0] == 4 && stride / 4 <= kMaxInt && t->offset % 4 == 0;
}

}  // namespace

std::string check_weight(const clport_tensor& w) {
  if (!is_split_dtype(w.dtype)) return "weight dtype has no Adreno split layout";
  const int64_t K = w.ne[0], N = w.ne[1];
  if (K < 1 || N < 1 || w.ne[2] != 1 || w.ne[3] != 1) return "weight must be 2-D";
  if (K > kMaxInt || N > kMaxInt) return "weight too large";
  if (K % block_elems(w.dtype) != 0) return "weight row is not a whole number of blocks";
  // Every layout index (quant words, halves) must fit the kernels' 32-bit image coordinates.
  if (split_sizes(w.dtype, K, N).q_texels > static_cast<uint64_t>(kMaxInt)) return "weight too large";
  if (w.layout == nullptr) {  // plain GGUF bytes: the repack kernel reads them
    const int64_t row = K / block_elems(w.dtype) * block_bytes(w.dtype);
    if (w.dtype == CLPORT_DTYPE_F16 && w.nb[0] != 2) return "weight elements not packed";
    if (w.nb[1] < row) return "weight row stride too small";
  }
  return "";
}

std::string check_mul_mat(const clport_op& op) {
  if (op.kind != CLPORT_OP_MUL_MAT) return "not a mul_mat";
  if (op.n_src != 2 || op.src[0] == nullptr || op.src[1] == nullptr || op.dst == nullptr)
    return "mul_mat takes a weight, activations and dst";
  const clport_tensor &w = *op.src[0], &x = *op.src[1], &d = *op.dst;
  if (std::string e = check_weight(w); !e.empty()) return e;
  const int64_t K = w.ne[0], N = w.ne[1];
  if (!dense_f32(&x) || x.ne[0] != K || x.ne[2] != 1 || x.ne[3] != 1) return "activations must be dense F32 [K, M]";
  if (!dense_f32(&d) || d.ne[0] != N || d.ne[1] != x.ne[1] || d.ne[2] != 1 || d.ne[3] != 1)
    return "dst must be dense F32 [N, M]";
  return "";
}

SplitMatMul::SplitMatMul(const clport_host& host, const KernelShapes& shapes, const Workarounds& quirks)
    : host_(host), h_(host), shapes_(shapes), quirks_(quirks) {}

std::string SplitMatMul::options(int kernel_id, bool images) const {
  std::string o = "-cl-std=CL1.2 " + shape_options(shapes_);
  if (images) o += " -DADRENO_IMAGES=1";
  if (quirks_.no_subgroups) o += " -DCLPORT_NO_SUBGROUPS=1";
  if (quirks_.one_kernel_per_program) o += " -DADRENO_ONLY=" + std::to_string(kernel_id);
  return o;
}

const clport::sdk::Kernel& SplitMatMul::kernel(int32_t dtype, bool gemm, bool images) {
  const std::string name = std::string(gemm ? "adreno_gemm_" : "adreno_gemv_") + dtype_suffix(dtype);
  const std::string opts = options(dtype * 4 + (gemm ? 1 : 0), images);
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string key = name + "/" + opts;
  if (auto it = kernels_.find(key); it != kernels_.end()) return it->second;
  clport::sdk::Program& program = programs_[opts];
  if (program.get() == nullptr) {
    const std::string src = clport::sdk::plugin_kernel_source(clport_plugin_kernels, "adreno", "adreno_mul_mat.cl");
    program = clport::sdk::Program(&h_.cl(), h_.build_program(src, opts));
  }
  return kernels_.emplace(key, clport::sdk::Kernel(h_.cl(), program, name.c_str())).first->second;
}

void SplitMatMul::enqueue(const SplitWeight& w, const clport_tensor& x, const clport_tensor& dst) {
  const int64_t M = x.ne[1];
  const bool gemm = M > shapes_.gemv_max_m;
  const bool images = w.q_image != nullptr;
  const clport::sdk::Kernel& k = kernel(w.dtype, gemm, images);
  // Arrays a dtype does not have are never read; any valid buffer fills their argument.
  const cl_mem s = w.s != nullptr ? w.s : x.buffer, sc = w.sc != nullptr ? w.sc : x.buffer;
  const cl_mem q = images ? w.q_image : w.q;
  const cl_uint K = static_cast<cl_uint>(w.K), N = static_cast<cl_uint>(w.N);
  const cl_ulong x_off = x.offset, d_off = dst.offset;
  const clport_cl_api& cl = h_.cl();
  if (!gemm) {
    clport::sdk::set_args(cl, k, q, s, sc, x.buffer, x_off, dst.buffer, d_off, K, N);
    const size_t global[3] = {round_up(N, shapes_.gemv_wn), shapes_.gemv_ks, static_cast<size_t>(M)};
    const size_t local[3] = {shapes_.gemv_wn, shapes_.gemv_ks, 1};
    return clport::sdk::enqueue(host_, k, 3, global, local);
  }
  clport::sdk::set_args(cl, k, q, s, sc, x.buffer, x_off, dst.buffer, d_off, K, N, static_cast<cl_uint>(M));
  const size_t tokens = static_cast<size_t>(shapes_.gemm_tmi) * shapes_.gemm_rm;
  const size_t global[2] = {round_up(N, shapes_.gemm_tn),
                            (static_cast<size_t>(M) + tokens - 1) / tokens * shapes_.gemm_tmi};
  const size_t local[2] = {shapes_.gemm_tn, shapes_.gemm_tmi};
  clport::sdk::enqueue(host_, k, 2, global, local);
}

}  // namespace adreno
