#include "nv_gemv.hpp"

#include <sstream>

#include "nv_dtypes.hpp"

extern const clport::EmbeddedKernel clport_plugin_kernels[];

namespace nvidia {
namespace {

// Local memory of one activation row: 32 code bytes and (d, s) per block of 32 values.
uint64_t row_local_bytes(int64_t K) { return static_cast<uint64_t>(K / 32) * (32 + 8); }

// The kernel's own local arrays (the reduction slots of nv_gemv.cl, the SwiGLU form's two).
uint64_t reduction_bytes(const GemvConfig& c) { return 2ull * (c.wg / 32) * c.rows_per_warp * 33 * sizeof(float); }

// Activation rows a work-group of nv_gemv_rows.cl takes, largest first.
const uint32_t kGroupRows[] = {8, 4, 2};

}  // namespace

std::string GemvConfig::validate(uint32_t max_work_group_size) const {
  if (wg < 32 || wg % 32 != 0 || (wg & (wg - 1)) != 0 || wg > max_work_group_size)
    return "nv_gemv_wg must be a power of two, at least 32 and within the device's work-group limit";
  if (rows_per_warp < 1 || rows_per_warp > 8) return "nv_gemv_rows_per_warp must be in 1..8";
  if (blocks_per_trip < 1 || blocks_per_trip > 8 || (blocks_per_trip & (blocks_per_trip - 1)) != 0)
    return "nv_gemv_blocks_per_trip must be 1, 2, 4 or 8";
  if (rows_blocks_per_trip > 8 || (rows_blocks_per_trip & (rows_blocks_per_trip - 1)) != 0)
    return "nv_gemv_rows_blocks_per_trip must be 0, 1, 2, 4 or 8";
  if (groups_per_cu > 64) return "nv_gemv_groups_per_cu must be in 0..64";
  if (rows_groups_per_cu > 64) return "nv_gemv_rows_groups_per_cu must be in 0..64";
  return "";
}

NvGemv::NvGemv(const clport_host& host, GemvConfig config, uint64_t local_mem_bytes, uint32_t compute_units)
    : host_(host), h_(host), config_(config), local_mem_bytes_(local_mem_bytes),
      compute_units_(compute_units > 0 ? compute_units : 1) {}

std::string GemvConfig::build_options() const {
  std::ostringstream o;
  o << "-cl-std=CL1.2 -DNV_WG=" << wg << " -DNV_RPW=" << rows_per_warp << " -DNV_BPT=" << blocks_per_trip
    << " -DNV_RBPT=" << (rows_blocks_per_trip != 0 ? rows_blocks_per_trip : blocks_per_trip)
    << " -DNV_PTX=" << (ptx ? 1 : 0);
  return o.str();
}

std::string gemv_source(const clport::sdk::Host& h) {
  return h.shared_source("reduce.cl") + "\n" + behind_ptx_helpers("nv_gemv.cl");
}

std::string gemv_rows_source(const clport::sdk::Host& h) {
  return gemv_source(h) + "\n" + clport::sdk::plugin_kernel_source(clport_plugin_kernels, "nvidia", "nv_gemv_rows.cl") +
         "\n" + clport::sdk::plugin_kernel_source(clport_plugin_kernels, "nvidia", "nv_gemv_q4_k.cl") + "\n" +
         clport::sdk::plugin_kernel_source(clport_plugin_kernels, "nvidia", "nv_gemv_q6_k.cl");
}

bool NvGemv::covers(int32_t weight_dtype) { return dtype_suffix(weight_dtype) != nullptr; }

bool NvGemv::reads_in_place(int32_t weight_dtype) const {
  return (weight_dtype == CLPORT_DTYPE_Q4_K || weight_dtype == CLPORT_DTYPE_Q6_K) && config_.wg % 64 == 0;
}

bool NvGemv::can_read_in_place(const clport_tensor& weight) const {
  // Q4_K's runs are 16-byte loads; Q6_K's words are assembled from halves (nv_gemv_q6_k.cl).
  return reads_in_place(weight.dtype) && file_rows_readable(weight, weight.dtype == CLPORT_DTYPE_Q4_K ? 16 : 2);
}

bool NvGemv::fits(int64_t K) const { return fits_rows(K, 1); }

bool NvGemv::fits_rows(int64_t K, uint32_t rows) const {
  // A margin for what the compiler adds to a kernel's local memory.
  return K % 32 == 0 && rows * row_local_bytes(K) + reduction_bytes(config_) + 1024 <= local_mem_bytes_;
}

uint32_t NvGemv::group_rows(int64_t K, int64_t M) const {
  // The fewest rows a group that cover M in one group, else as many as fit: every group reads the
  // weights once, and rows past M are work for nothing.
  uint32_t best = 1;
  for (uint32_t rows : kGroupRows) {
    if (!fits_rows(K, rows)) continue;
    if (best == 1 || rows >= M) best = rows;
  }
  return M > 1 ? best : 1;
}

void NvGemv::enqueue(const clport_op& op, const WeightView& w, const WeightView* up) {
  const clport_tensor &x = *op.src[1], &d = *op.dst;
  const char* suffix = w.suffix();
  if (suffix == nullptr) throw clport::sdk::unsupported("nvidia: no GEMV for this weight dtype");
  const cl_int K = static_cast<cl_int>(w.K), N = static_cast<cl_int>(w.N), M = static_cast<cl_int>(x.ne[1]);
  // Several activation rows: nv_gemv_rows.cl's groups of `rows` (one pass over the weights per
  // group); one row, or a weight read in place: nv_gemv.cl's (a group per row).
  const uint32_t rows = w.in_place ? 1 : group_rows(K, M);
  const std::string form = rows > 1 ? "r" + std::to_string(rows) + "_" : "";
  const clport::sdk::LocalMem codes{static_cast<size_t>(rows) * (K / 32) * 32},
      scales{static_cast<size_t>(rows) * (K / 32) * 8};
  const bool swiglu = op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU;
  const clport::sdk::Kernel& k = program_.kernel(std::string(swiglu ? "nv_gemv_swiglu_" : "nv_gemv_") + form + suffix);
  const clport_cl_api& cl = h_.cl();
  if (swiglu) {
    if (up == nullptr) throw clport::sdk::Failure("nvidia: SwiGLU GEMV without its up weight");
    const clport_tensor& g = *op.src[2];
    if (w.in_place)
      clport::sdk::set_args(cl, k, w.q, cl_ulong(w.offset), up->q, cl_ulong(up->offset), x.buffer, cl_ulong(x.offset),
                            g.buffer, cl_ulong(g.offset), cl_float(op.params.eps), d.buffer, cl_ulong(d.offset), K, N,
                            codes, scales);
    else if (rows > 1)
      clport::sdk::set_args(cl, k, w.q, w.s, up->q, up->s, x.buffer, cl_ulong(x.offset), g.buffer,
                            cl_ulong(g.offset), cl_float(op.params.eps), d.buffer, cl_ulong(d.offset), K, N, M, codes,
                            scales);
    else
      clport::sdk::set_args(cl, k, w.q, w.s, up->q, up->s, x.buffer, cl_ulong(x.offset), g.buffer,
                            cl_ulong(g.offset), cl_float(op.params.eps), d.buffer, cl_ulong(d.offset), K, N, codes,
                            scales);
  } else {
    const bool norm = op.kind == CLPORT_OP_RMS_NORM_MUL_MAT, add = op.kind == CLPORT_OP_MUL_MAT_ADD;
    // Absent operands point at x: the kernel never reads them (norm / has_res are 0).
    const clport_tensor& g = norm ? *op.src[2] : x;
    const clport_tensor& res = add ? *op.src[2] : x;
    if (w.in_place)
      clport::sdk::set_args(cl, k, w.q, cl_ulong(w.offset), x.buffer, cl_ulong(x.offset), g.buffer, cl_ulong(g.offset),
                            cl_int(norm ? 1 : 0), cl_float(norm ? op.params.eps : 0.0f), res.buffer,
                            cl_ulong(res.offset), cl_int(add ? 1 : 0), d.buffer, cl_ulong(d.offset), K, N, codes,
                            scales);
    else if (rows > 1)
      clport::sdk::set_args(cl, k, w.q, w.s, x.buffer, cl_ulong(x.offset), g.buffer, cl_ulong(g.offset),
                            cl_int(norm ? 1 : 0), cl_float(norm ? op.params.eps : 0.0f), res.buffer,
                            cl_ulong(res.offset), cl_int(add ? 1 : 0), d.buffer, cl_ulong(d.offset), K, N, M, codes,
                            scales);
    else
      clport::sdk::set_args(cl, k, w.q, w.s, x.buffer, cl_ulong(x.offset), g.buffer, cl_ulong(g.offset),
                            cl_int(norm ? 1 : 0), cl_float(norm ? op.params.eps : 0.0f), res.buffer,
                            cl_ulong(res.offset), cl_int(add ? 1 : 0), d.buffer, cl_ulong(d.offset), K, N, codes,
                            scales);
  }
  const size_t rows_per_group = static_cast<size_t>(config_.wg / 32) * config_.rows_per_warp;
  const size_t chunks = (static_cast<size_t>(N) + rows_per_group - 1) / rows_per_group;
  const uint32_t per_cu = rows > 1 ? config_.rows_groups_per_cu : config_.groups_per_cu;
  const size_t resident = static_cast<size_t>(compute_units_) * per_cu;
  const size_t groups = per_cu == 0 || resident > chunks ? chunks : resident;
  // The activation-row groups are dimension 0: the groups of all of them that walk one chunk
  // start together.
  const size_t row_groups = (static_cast<size_t>(M) + rows - 1) / rows;
  const size_t global[2] = {row_groups * config_.wg, groups};
  const size_t local[2] = {config_.wg, 1};
  clport::sdk::enqueue(host_, k, 2, global, local);
}

}  // namespace nvidia
