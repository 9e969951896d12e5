#include "nv_gemm_half.hpp"

#include "nv_dtypes.hpp"

namespace nvidia {
namespace {

constexpr size_t kTileRows = 128;    // NV_HG_BM
constexpr size_t kTileWeights = 128;  // NV_HG_BN (staged weight rows; SwiGLU: 64 of each)
constexpr size_t kGroup = 256;       // NV_HG_WG
constexpr size_t kRowsGroup = 256;   // NV_HG_ROWS_WG
// Two stages of 128 activation and 128 weight rows of 40 halves (nv_gemm_half.cl's xs and ws).
constexpr uint64_t kLocalBytes = 2 * (kTileRows + kTileWeights) * 40 * 2;

size_t ceil_div(size_t v, size_t by) { return (v + by - 1) / by; }

}  // namespace

NvGemmHalf::NvGemmHalf(const clport_host& host, bool ptx, uint64_t local_mem_bytes)
    : host_(host), h_(host), ptx_(ptx), local_mem_bytes_(local_mem_bytes) {}

bool NvGemmHalf::fits() const { return kLocalBytes <= local_mem_bytes_; }

bool NvGemmHalf::enqueue(const clport_op& op, const WeightView& w, const WeightView* up) {
  const clport_tensor &x = *op.src[1], &d = *op.dst;
  const char* suffix = w.in_place && w.dtype != CLPORT_DTYPE_Q4_K ? nullptr : w.suffix();
  if (suffix == nullptr) throw clport::sdk::unsupported("nvidia: no f16 GEMM for this weight dtype");
  const bool swiglu = op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU;
  if (swiglu && (up == nullptr || up->dtype != w.dtype))
    throw clport::sdk::Failure("nvidia: SwiGLU GEMM without an up weight of the gate's dtype");
  const bool norm = swiglu || op.kind == CLPORT_OP_RMS_NORM_MUL_MAT, add = op.kind == CLPORT_OP_MUL_MAT_ADD;
  const cl_int K = static_cast<cl_int>(w.K), N = static_cast<cl_int>(w.N), M = static_cast<cl_int>(x.ne[1]);
  cl_mem rows = rows_scratch_.grow(rows_bytes(M, K));
  if (rows == nullptr) return false;
  const clport_cl_api& cl = h_.cl();

  // Absent operands point at x: the kernels never read them (norm / has_res are 0).
  const clport_tensor& g = norm ? *op.src[2] : x;
  const clport::sdk::Kernel& r = program_.kernel("nv_half_rows");
  clport::sdk::set_args(cl, r, x.buffer, cl_ulong(x.offset), g.buffer, cl_ulong(g.offset), cl_int(norm ? 1 : 0),
                        cl_float(norm ? op.params.eps : 0.0f), K, rows);
  const size_t r_global = static_cast<size_t>(M) * kRowsGroup, r_local = kRowsGroup;
  clport::sdk::enqueue(host_, r, 1, &r_global, &r_local);

  const std::string name = std::string(swiglu ? "nv_gemm_half_swiglu_" : "nv_gemm_half_") + suffix;
  const clport::sdk::Kernel& k = program_.kernel(name);
  if (swiglu) {
    clport::sdk::set_args(cl, k, w.q, w.s, cl_ulong(w.offset), up->q, up->s, cl_ulong(up->offset), rows, d.buffer,
                          cl_ulong(d.offset), M, N, K);
  } else {
    const clport_tensor& res = add ? *op.src[2] : x;
    clport::sdk::set_args(cl, k, w.q, w.s, cl_ulong(w.offset), rows, res.buffer, cl_ulong(res.offset),
                          cl_int(add ? 1 : 0), d.buffer, cl_ulong(d.offset), M, N, K);
  }
  const size_t columns = swiglu ? kTileWeights / 2 : kTileWeights;
  const size_t global[2] = {ceil_div(static_cast<size_t>(M), kTileRows) * kGroup,
                            ceil_div(static_cast<size_t>(N), columns)};
  const size_t local[2] = {kGroup, 1};
  clport::sdk::enqueue(host_, k, 2, global, local);
  return true;
}

}  // namespace nvidia
