#include "nv_gemm_half.hpp"

#include <algorithm>

#include "nv_dtypes.hpp"

namespace nvidia {
namespace {

constexpr size_t kRowsGroup = 256;    // NV_HG_ROWS_WG
// Two stages of 128 activation and 128 weight rows of 40 halves (nv_gemm_half.cl's xs and ws, at
// their largest).
constexpr uint64_t kLocalBytes = 2 * (128 + 128) * 40 * 2;
// Work-groups a compute unit runs at once (local memory and registers allow two): fewer tiles than
// that many a unit leave it idle, so K is split.
constexpr size_t kGroupsPerUnit = 2;
constexpr int64_t kMinSplitBlocks = 16;  // blocks of 32 values a K range walks at least

size_t ceil_div(size_t v, size_t by) { return (v + by - 1) / by; }

}  // namespace

NvGemmHalf::NvGemmHalf(const clport_host& host, bool ptx, uint64_t local_mem_bytes, uint32_t compute_units,
                       HalfGemmConfig config)
    : host_(host), h_(host), ptx_(ptx), local_mem_bytes_(local_mem_bytes),
      compute_units_(compute_units > 0 ? compute_units : 1), config_(config) {}

bool NvGemmHalf::fits() const { return kLocalBytes <= local_mem_bytes_; }

NvGemmHalf::Shape NvGemmHalf::shape(int64_t M, int64_t N, int64_t K, bool swiglu) const {
  Shape s;
  // 128 rows a tile from 65 rows on: each weight tile is decoded once for the most rows (H100,
  // bench e2e 8B Q4_0, 512-token prompt: 12009 / 11940 tok/s against 11011 / 10964 with 64-row
  // tiles that gave the GPU the same number of groups without splitting K). Fewer rows take the
  // tile that holds them.
  s.rows = config_.tile_rows != 0 ? config_.tile_rows : M <= 32 ? 32 : M <= 64 ? 64 : 128;
  s.groups_m = ceil_div(static_cast<size_t>(M), s.rows);
  // 128 weight rows a group. 64 (nv_gemm_f16_cols, 128-row tiles only) gives twice the groups
  // with the same weight decoding per product, but two warps a group: at 512 rows (H100, 8B
  // Q4_0) 11621 tok/s where 128 with K split in two gave 12927.
  s.cols = s.rows == 128 ? config_.tile_cols : 128;
  s.groups_n = ceil_div(static_cast<size_t>(N), swiglu ? s.cols / 2 : s.cols);  // SwiGLU: gate + up
  // Where the tiles give fewer than about two groups a compute unit, K is split into the fewest
  // ranges that do (each range's sums are written and read back once: 16 MB at 512 rows of a
  // 4096-row weight and two ranges).
  const size_t enough = kGroupsPerUnit * compute_units_ * 7 / 8;
  const int64_t nb = K / 32;
  const size_t groups = s.groups_m * s.groups_n;
  int64_t splits = 1;
  if (config_.split && groups < enough)
    splits = std::max<int64_t>(1, std::min<int64_t>(static_cast<int64_t>(ceil_div(enough, groups)), nb / kMinSplitBlocks));
  s.per_split = (nb + splits - 1) / splits;
  s.splits = static_cast<int>((nb + s.per_split - 1) / s.per_split);
  return s;
}

std::vector<clport_scratch_need> NvGemmHalf::scratch_needs(int64_t rows, int64_t K, int64_t N, bool swiglu) {
  std::vector<clport_scratch_need> needs{rows_scratch_.plan(rows_bytes(rows, K))};
  size_t sums = 0, tiles = 0;
  for (int64_t m = config_.min_rows; m <= rows; ++m) {
    const Shape sh = shape(m, N, K, swiglu);
    if (sh.splits < 2) continue;
    sums = std::max(sums, partials_bytes(sh, m, N, swiglu));
    tiles = std::max(tiles, sh.groups_m * sh.groups_n);
  }
  if (sums == 0) return needs;
  needs.push_back(part_scratch_.plan(sums));
  needs.push_back(arrivals_.plan(tiles));
  return needs;
}

bool NvGemmHalf::enqueue(const clport_op& op, const WeightView& w, const WeightView* up) {
  const clport_tensor &x = *op.src[1], &d = *op.dst;
  const char* suffix = w.in_place && w.dtype != CLPORT_DTYPE_Q4_K ? nullptr : w.suffix();
  if (suffix == nullptr) throw clport::sdk::unsupported("nvidia: no f16 GEMM for this weight dtype");
  const bool swiglu = op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU;
  if (swiglu && (up == nullptr || up->dtype != w.dtype))
    throw clport::sdk::Failure("nvidia: SwiGLU GEMM without an up weight of the gate's dtype");
  const bool norm = swiglu || op.kind == CLPORT_OP_RMS_NORM_MUL_MAT, add = op.kind == CLPORT_OP_MUL_MAT_ADD;
  const cl_int K = static_cast<cl_int>(w.K), N = static_cast<cl_int>(w.N), M = static_cast<cl_int>(x.ne[1]);
  const Shape sh = shape(M, N, K, swiglu);
  cl_mem rows = rows_scratch_.grow(rows_bytes(M, K));
  if (rows == nullptr) return false;
  // Unsplit launches never touch the sums and counts: any buffer stands in for them.
  cl_mem part = rows, counts = rows;
  if (sh.splits > 1) {
    part = part_scratch_.grow(partials_bytes(sh, M, N, swiglu));
    counts = part != nullptr ? arrivals_.get(sh.groups_m * sh.groups_n) : nullptr;
    if (counts == nullptr) return false;
  }
  const clport_cl_api& cl = h_.cl();

  // Absent operands point at x: the kernels never read them (norm / has_res are 0).
  const clport_tensor& g = norm ? *op.src[2] : x;
  const clport::sdk::Kernel& r = program_.kernel("nv_half_rows");
  clport::sdk::set_args(cl, r, x.buffer, cl_ulong(x.offset), g.buffer, cl_ulong(g.offset), cl_int(norm ? 1 : 0),
                        cl_float(norm ? op.params.eps : 0.0f), K, rows);
  const size_t r_global = static_cast<size_t>(M) * kRowsGroup, r_local = kRowsGroup;
  clport::sdk::enqueue(host_, r, 1, &r_global, &r_local);

  const std::string name = std::string(swiglu ? "nv_gemm_half_swiglu_" : "nv_gemm_half_") + suffix +
                           (sh.cols == 64 ? "_n64" : "") + "_m" + std::to_string(sh.rows);
  const clport::sdk::Kernel& k = program_.kernel(name);
  const cl_int per_split = static_cast<cl_int>(sh.per_split);
  if (swiglu) {
    clport::sdk::set_args(cl, k, w.q, w.s, cl_ulong(w.offset), up->q, up->s, cl_ulong(up->offset), rows, d.buffer,
                          cl_ulong(d.offset), M, N, K, part, counts, per_split);
  } else {
    const clport_tensor& res = add ? *op.src[2] : x;
    clport::sdk::set_args(cl, k, w.q, w.s, cl_ulong(w.offset), rows, res.buffer, cl_ulong(res.offset),
                          cl_int(add ? 1 : 0), d.buffer, cl_ulong(d.offset), M, N, K, part, counts, per_split);
  }
  const size_t group = sh.cols;  // 2 x NW warps: as many work-items as staged weight rows
  const size_t global[3] = {sh.groups_m * group, sh.groups_n, static_cast<size_t>(sh.splits)};
  const size_t local[3] = {group, 1, 1};
  clport::sdk::enqueue(host_, k, 3, global, local);
  return true;
}

}  // namespace nvidia
