// Candidate grids per level. Shapes: a LLaMA-7B-like decode GEMV (K = N = 4096), a prefill GEMM
// (32 tokens) and RMSNorm over 4096-wide rows, all on Q4_0 weights (the common deployment
// format); `tiny` shrinks them for tests while keeping the GEMV / GEMM split (M = 1 vs M = 16).
#include "tuner/tuner_candidates.h"

namespace clport::tuner::detail {
namespace {

using conformance::detail::CaseSpec;
using conformance::detail::OperandSpec;

OperandSpec operand(DType d, std::array<int64_t, 4> ne, float scale = 1.0f) {
  OperandSpec o;
  o.dtype = d;
  o.ne = ne;
  o.scale = scale;
  return o;
}

CaseSpec mul_mat(int64_t K, int64_t N, int64_t M) {
  CaseSpec c;
  c.op = "mul_mat";
  c.dtype = "q4_0";
  c.shape = "K=" + std::to_string(K) + " N=" + std::to_string(N) + " M=" + std::to_string(M);
  c.kind = CLPORT_OP_MUL_MAT;
  c.src = {operand(DType::Q4_0, {K, N, 1, 1}, 0.5f), operand(DType::F32, {K, M, 1, 1})};
  c.dst = operand(DType::F32, {N, M, 1, 1});
  c.threshold = 1e-8;
  return c;
}

CaseSpec rms_norm(int64_t D, int64_t rows) {
  CaseSpec c;
  c.op = "rms_norm";
  c.dtype = "f32 +w";
  c.shape = std::to_string(D) + "x" + std::to_string(rows);
  c.kind = CLPORT_OP_RMS_NORM;
  c.src = {operand(DType::F32, {D, rows, 1, 1}, 3.0f), operand(DType::F32, {D, 1, 1, 1})};
  c.dst = operand(DType::F32, {D, rows, 1, 1});
  c.f[0] = 1e-5f;
  c.threshold = 1e-10;
  return c;
}

std::string kv(const char* key, uint32_t v) { return std::string(key) + ": " + std::to_string(v) + "\n"; }

}  // namespace

std::vector<Group> groups(TuningLevel level, bool tiny, uint32_t max_wg) {
  const bool fast = level == TuningLevel::Fast || level == TuningLevel::None;
  const bool exhaustive = level == TuningLevel::Exhaustive;
  std::vector<Group> out;

  Group gemv{"gemv", tiny ? mul_mat(256, 64, 1) : mul_mat(4096, 4096, 1), {}};
  const std::vector<uint32_t> gemv_wgs = fast ? std::vector<uint32_t>{32, 64, 128}
                                         : exhaustive ? std::vector<uint32_t>{8, 16, 32, 64, 128, 256, 512}
                                                      : std::vector<uint32_t>{16, 32, 64, 128, 256};
  const std::vector<uint32_t> gemv_rows = fast ? std::vector<uint32_t>{4, 8}
                                          : exhaustive ? std::vector<uint32_t>{1, 2, 4, 8, 16}
                                                       : std::vector<uint32_t>{2, 4, 8, 16};
  for (uint32_t wg : gemv_wgs)
    for (uint32_t rows : gemv_rows)
      if (wg <= max_wg && rows <= wg && wg >= 4) gemv.candidates.push_back(kv("gemv_wg", wg) + kv("gemv_rows", rows));
  // One work-item per work-group, no reduction (what CPUs run best).
  for (uint32_t rows : gemv_rows) gemv.candidates.push_back(kv("gemv_wg", 1) + kv("gemv_rows", rows));
  out.push_back(gemv);

  Group gemm{"gemm", tiny ? mul_mat(128, 64, 16) : mul_mat(4096, 4096, 32), {}};
  // fast: square tiles and micro-tiles only; normal: every pairing of those sizes.
  const std::vector<uint32_t> tiles = exhaustive ? std::vector<uint32_t>{8, 16, 32, 64, 128}
                                                 : std::vector<uint32_t>{32, 64};
  const std::vector<uint32_t> micro = exhaustive ? std::vector<uint32_t>{1, 2, 4, 8, 16}
                                                 : std::vector<uint32_t>{4, 8, 16};
  for (uint32_t tn : tiles)
    for (uint32_t tm : tiles)
      for (uint32_t rn : micro)
        for (uint32_t rm : micro) {
          if (fast && (tn != tm || rn != rm)) continue;
          if (tn % rn == 0 && tm % rm == 0 && (tn / rn) * (tm / rm) <= max_wg && rn * rm <= 128)
            gemm.candidates.push_back(kv("gemm_tn", tn) + kv("gemm_tm", tm) + kv("gemm_rn", rn) + kv("gemm_rm", rm));
        }
  out.push_back(gemm);

  Group norm{"norm", tiny ? rms_norm(256, 4) : rms_norm(4096, 32), {}};
  const std::vector<uint32_t> norm_wgs = fast ? std::vector<uint32_t>{32, 64, 128}
                                         : exhaustive ? std::vector<uint32_t>{8, 16, 32, 64, 128, 256, 512, 1024}
                                                      : std::vector<uint32_t>{16, 32, 64, 128, 256};
  for (uint32_t wg : norm_wgs)
    if (wg <= max_wg) norm.candidates.push_back(kv("norm_wg", wg));
  out.push_back(norm);
  return out;
}

}  // namespace clport::tuner::detail
