#include "nv_gemm.hpp"

#include <algorithm>
#include <string>

#include "nv_dtypes.hpp"

namespace nvidia {
namespace {

constexpr size_t kWeightRows = 64;   // NV_GEMM_BN
constexpr size_t kRowTile = 16;      // the quantized activations' row tiles
constexpr size_t kGemmGroup = 128;   // NV_GEMM_WG
constexpr size_t kQuantGroup = 256;  // NV_QWG
constexpr size_t kFewRows = 64;      // padded rows up to which nv_quantize_rows_small quantizes
constexpr size_t kSmallQuantBlocks = kQuantGroup / 8;  // its blocks a group, a float4 a work-item
// NV_GEMM_KB: a K range is whole steps of the register-staged kernels (nv_gemm_split_blocks keeps
// more steps in flight, not longer ones); the asynchronous ones' steps may be longer
// (NvGemm::shape).
constexpr int64_t kStepBlocks = 2;
constexpr int64_t kMinSplitBlocks = 16;  // blocks of 32 values a K range walks at least

size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

// The GEMM kernels' name suffix for a weight dtype: the packed layout's, and Q4_K's in place.
const char* gemm_suffix(int32_t dtype) { return dtype == CLPORT_DTYPE_Q4_K ? "q4_k" : dtype_suffix(dtype); }

}  // namespace

std::string GemmConfig::validate() const {
  if (split_blocks != 2 && split_blocks != 4 && split_blocks != 8)
    return "nv_gemm_split_blocks must be 2, 4 or 8 (blocks of 32 values in flight), not " +
           std::to_string(split_blocks);
  if (split_stages < 2 || split_stages > 8)
    return "nv_gemm_split_stages must be in 2..8 (steps in the ring), not " + std::to_string(split_stages);
  const auto step_error = [](const char* name, uint32_t blocks) {
    if (blocks == 2 || blocks == 4 || blocks == 8) return std::string();
    return std::string(name) + " must be 2, 4 or 8 (blocks of 32 values a step of the ring), not " +
           std::to_string(blocks);
  };
  if (std::string why = step_error("nv_gemm_async_blocks", async_blocks); !why.empty()) return why;
  return step_error("nv_gemm_async_swiglu_blocks", async_swiglu_blocks);
}

std::string GemmConfig::build_options(bool ptx) const {
  return ptx_options(ptx) + (ptx && async_copies ? " -DNV_ASYNC=1" : "") +
         " -DNV_GEMM_SPLIT_BLOCKS=" + std::to_string(split_blocks) +
         " -DNV_GEMM_STAGES=" + std::to_string(split_stages) + " -DNV_GA_KB=" + std::to_string(async_blocks) +
         " -DNV_GA_KB_SWIGLU=" + std::to_string(async_swiglu_blocks);
}

NvGemm::NvGemm(const clport_host& host, bool ptx, GemmConfig config, uint32_t compute_units)
    : host_(host), h_(host), ptx_(ptx), config_(config), compute_units_(compute_units > 0 ? compute_units : 1) {}

int NvGemm::k_splits(int64_t M, size_t groups, int64_t nb) const {
  // By default 8 groups a compute unit up to 32 rows, 2 above (H100, bench e2e --parallel 16 /
  // 64 on the 8B shape: at 16 sequences with 2 steps of loads in flight 1827-1830 tok/s with 8
  // groups, 1777-1781 with 16; at 64 sequences 3350 with 2, 3133 with 4, 2973 with 16, the
  // ranges' partial sums growing with the rows).
  const uint32_t per_cu = config_.split_groups_per_cu != 0 ? config_.split_groups_per_cu : M <= 32 ? 8 : 2;
  const size_t wanted = static_cast<size_t>(per_cu) * compute_units_;
  if (M > 64 || groups >= wanted) return 1;
  const int64_t by_groups = static_cast<int64_t>((wanted + groups - 1) / groups);
  return static_cast<int>(std::max<int64_t>(1, std::min(by_groups, nb / kMinSplitBlocks)));
}

uint32_t NvGemm::rows_per_group(int64_t M) const {
  if (config_.rows != 0) return config_.rows;
  // 128 rows a group read each weight tile half as often (H200, bench ops --gemm-only --m 512:
  // 1.2-1.6x the GFLOP/s of 64 at every 8B shape, even 4096 x 4096's 256 groups); 64 when the
  // batch fits in them.
  return M > 64 ? 128 : 64;
}

bool NvGemm::split_async(int32_t dtype, int64_t K) const {
  // Whole steps, so a row's scales of a step are as aligned as their copies need
  // (nv_gemm_split_async.cl).
  return config_.split_async && (config_.async_copies || !ptx_) && !reads_in_place(dtype) && (K / 32) % kStepBlocks == 0;
}

int64_t NvGemm::ring_step(int64_t K, bool swiglu) const {
  const int64_t setting = swiglu ? config_.async_swiglu_blocks : config_.async_blocks;
  return (K / 32) % setting == 0 ? setting : kStepBlocks;
}

bool NvGemm::covers(int32_t weight_dtype) { return gemm_suffix(weight_dtype) != nullptr; }

bool NvGemm::can_read_in_place(const clport_tensor& weight) {
  return reads_in_place(weight.dtype) && file_rows_readable(weight, 16);
}

bool NvGemm::reserve(int64_t M, int64_t K) {
  std::lock_guard<std::mutex> lock(mutex_);
  codes_ = codes_scratch_.grow(static_cast<size_t>(M * K));
  scales_ = codes_ == nullptr ? nullptr
                              : scales_scratch_.grow(static_cast<size_t>(M * (K / 32)) * 8);
  return scales_ != nullptr;
}

cl_mem NvGemm::partials(size_t bytes) { return part_scratch_.grow(bytes); }

NvGemm::Shape NvGemm::shape(int64_t M, int64_t N, int64_t K, bool swiglu, int32_t dtype) const {
  const bool in_place = reads_in_place(dtype);
  Shape s;
  // The SwiGLU kernel keeps two sets of accumulators: it always takes 64 rows a group.
  s.rows = swiglu ? 64 : rows_per_group(M);
  // The split kernels come in 32 and 16 rows a group too, for a decode step of a few sequences.
  s.split_rows = M <= 16 ? 16 : M <= 32 ? 32 : s.rows;
  s.groups_n = (static_cast<size_t>(N) + kWeightRows - 1) / kWeightRows;
  s.groups_m = (static_cast<size_t>(M) + s.split_rows - 1) / s.split_rows;
  const int64_t nb = K / 32;
  s.splits = in_place ? 1 : k_splits(M, s.groups_n * s.groups_m, nb);
  s.async = split_async(dtype, K);
  s.ring_step = s.async ? ring_step(K, swiglu) : 0;
  if (s.splits > 1) {
    // Whole steps of the kernel that takes the ranges; the ranges that remain.
    const int64_t per = (nb + s.splits - 1) / s.splits;
    const int64_t step = s.async ? s.ring_step : kStepBlocks;
    s.per_split = (per + step - 1) / step * step;
    s.splits = static_cast<int>((nb + s.per_split - 1) / s.per_split);
  }
  return s;
}

std::vector<clport_scratch_need> NvGemm::scratch_needs(int64_t first_rows, int64_t last_rows, int64_t K, int64_t N,
                                                       bool swiglu, int32_t dtype) {
  if (last_rows < first_rows) return {};
  const auto padded = static_cast<int64_t>(round_up(static_cast<size_t>(last_rows), kRowTile));
  std::vector<clport_scratch_need> needs{codes_scratch_.plan(static_cast<size_t>(padded * K)),
                                         scales_scratch_.plan(static_cast<size_t>(padded * (K / 32)) * 8)};
  size_t sums = 0, tiles = 0;
  for (int64_t m = first_rows; m <= std::min<int64_t>(last_rows, kFewRows); ++m) {
    const Shape sh = shape(m, N, K, swiglu, dtype);
    if (sh.splits < 2) continue;
    sums = std::max(sums, partials_bytes(sh, m, N, swiglu));
    tiles = std::max(tiles, sh.groups_n * sh.groups_m);
  }
  if (sums == 0) return needs;
  needs.push_back(part_scratch_.plan(sums));
  needs.push_back(arrivals_.plan(tiles));
  return needs;
}

bool NvGemm::enqueue(const clport_op& op, const WeightView& w, const WeightView* up) {
  const clport_tensor &x = *op.src[1], &d = *op.dst;
  const char* suffix = gemm_suffix(w.dtype);
  if (suffix == nullptr) throw clport::sdk::unsupported("nvidia: no GEMM for this weight dtype");
  const bool swiglu = op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU;
  if (swiglu && up == nullptr) throw clport::sdk::Failure("nvidia: SwiGLU GEMM without its up weight");
  const bool norm = swiglu || op.kind == CLPORT_OP_RMS_NORM_MUL_MAT, add = op.kind == CLPORT_OP_MUL_MAT_ADD;
  const cl_int K = static_cast<cl_int>(w.K), N = static_cast<cl_int>(w.N), M = static_cast<cl_int>(x.ne[1]);
  const size_t padded_rows = round_up(static_cast<size_t>(M), kRowTile);
  if (!reserve(static_cast<int64_t>(padded_rows), K)) return false;
  const clport_cl_api& cl = h_.cl();

  // Absent operands point at x: the kernels never read them (norm / has_res are 0).
  const clport_tensor& g = norm ? *op.src[2] : x;
  // A decode step's few rows: groups of kSmallQuantBlocks blocks of one row
  // (nv_quantize_rows_small); a prompt's: a group per 16 rows and 16 blocks (nv_quantize_rows).
  const bool few_rows = padded_rows <= kFewRows;
  const clport::sdk::Kernel& q = program_.kernel(few_rows ? "nv_quantize_rows_small" : "nv_quantize_rows");
  // K-quant weights take one activation scale per 256 values (the CPU path's Q8_K blocks), so that
  // a model's rows see the same rounding on every path.
  const cl_int wide = w.dtype == CLPORT_DTYPE_Q4_K ? 1 : 0;
  clport::sdk::set_args(cl, q, x.buffer, cl_ulong(x.offset), g.buffer, cl_ulong(g.offset), cl_int(norm ? 1 : 0),
                        cl_float(norm ? op.params.eps : 0.0f), M, K, codes_, scales_, wide);
  const size_t q_global[2] = {
      few_rows ? (static_cast<size_t>(K) / 32 + kSmallQuantBlocks - 1) / kSmallQuantBlocks * kQuantGroup
               : padded_rows / kRowTile * kQuantGroup,
      few_rows ? padded_rows : (static_cast<size_t>(K) / 32 + 15) / 16};
  const size_t q_local[2] = {kQuantGroup, 1};
  clport::sdk::enqueue(host_, q, 2, q_global, q_local);

  const Shape sh = shape(M, N, K, swiglu, w.dtype);
  const uint32_t rows = sh.rows, split_rows = sh.split_rows;
  const size_t groups_n = sh.groups_n, groups_m = sh.groups_m;
  const int splits = sh.splits;
  const int64_t per_split = sh.per_split;
  if (splits > 1) {
    cl_mem part = partials(partials_bytes(sh, M, N, swiglu));
    cl_mem counts = part != nullptr ? arrivals_.get(groups_n * groups_m) : nullptr;
    if (counts != nullptr) {
      const bool async = sh.async;
      const std::string rows_suffix = split_rows == 16                                 ? "_m16"
                                      : split_rows == 32                               ? "_m32"
                                      : (async || !swiglu) && split_rows == 64 ? "_m64"
                                                                                       : "";
      const std::string split_name = std::string(swiglu ? "nv_gemm_swiglu_split_" : "nv_gemm_split_") +
                                     (async ? "async_" : "") + suffix + rows_suffix;
      const int64_t setting = swiglu ? config_.async_swiglu_blocks : config_.async_blocks;
      NvProgram& split_program = !async ? program_ : sh.ring_step == setting ? async_program_ : async_short_program_;
      const clport::sdk::Kernel& ks = split_program.kernel(split_name);
      const WeightView& second = swiglu ? *up : w;
      const clport_tensor& res = add ? *op.src[2] : x;
      clport::sdk::set_args(cl, ks, w.q, w.s, cl_ulong(w.offset), second.q, second.s, cl_ulong(second.offset), codes_,
                            scales_, part, counts, M, N, K,
                            static_cast<cl_int>(per_split), res.buffer, cl_ulong(res.offset), cl_int(add ? 1 : 0),
                            d.buffer, cl_ulong(d.offset));
      const size_t global_s[3] = {groups_n * kGemmGroup, groups_m, static_cast<size_t>(splits)};
      const size_t local_s[3] = {kGemmGroup, 1, 1};
      clport::sdk::enqueue(host_, ks, 3, global_s, local_s);
      return true;
    }
  }
  const std::string name = std::string(swiglu ? "nv_gemm_swiglu_" : "nv_gemm_") + suffix + (!swiglu && rows == 64 ? "_m64" : "");
  const clport::sdk::Kernel& k = program_.kernel(name);
  if (swiglu) {
    clport::sdk::set_args(cl, k, w.q, w.s, cl_ulong(w.offset), up->q, up->s, cl_ulong(up->offset), codes_, scales_,
                          d.buffer, cl_ulong(d.offset), M, N, K);
  } else {
    const clport_tensor& res = add ? *op.src[2] : x;
    clport::sdk::set_args(cl, k, w.q, w.s, cl_ulong(w.offset), codes_, scales_, res.buffer, cl_ulong(res.offset),
                          cl_int(add ? 1 : 0), d.buffer, cl_ulong(d.offset), M, N, K);
  }
  const size_t global[2] = {(static_cast<size_t>(N) + kWeightRows - 1) / kWeightRows * kGemmGroup,
                            (static_cast<size_t>(M) + rows - 1) / rows};
  const size_t local[2] = {kGemmGroup, 1};
  clport::sdk::enqueue(host_, k, 2, global, local);
  return true;
}

}  // namespace nvidia
