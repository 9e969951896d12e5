// Candidates from the plugin's declared tunables, per level. Shapes: a LLaMA-7B-like decode GEMV
// (K = N = 4096), a prefill GEMM (32 tokens) and RMSNorm over 4096-wide rows, all on Q4_0
// weights (the common deployment format); `tiny` shrinks them for tests while keeping the GEMV /
// GEMM split (M = 1 vs M = 16).
#include "tuner/tuner_candidates.h"

#include <algorithm>
#include <cstdint>

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
  c.params.eps = 1e-5f;
  c.threshold = 1e-10;
  return c;
}

// The op each tuning group is timed on. The groups are the plugins' (clport_setting_decl), the
// shapes the core's: a group this clport has no shape for is not tuned.
bool shape_for(const std::string& group, bool tiny, CaseSpec* spec) {
  if (group == "gemv") *spec = tiny ? mul_mat(256, 64, 1) : mul_mat(4096, 4096, 1);
  else if (group == "gemm") *spec = tiny ? mul_mat(128, 64, 16) : mul_mat(4096, 4096, 32);
  else if (group == "norm") *spec = tiny ? rms_norm(256, 4) : rms_norm(4096, 32);
  else return false;
  return true;
}

// How many candidates a group gets at a level (evenly spaced over all combinations).
size_t cap_for(TuningLevel level) {
  switch (level) {
    case TuningLevel::Exhaustive: return SIZE_MAX;
    case TuningLevel::Normal: return 32;
    default: return 8;
  }
}

}  // namespace

std::vector<Group> groups(const clport_plugin& plugin, TuningLevel level, bool tiny) {
  // The tunables of each group, in declaration order.
  std::vector<std::pair<std::string, std::vector<const clport_setting_decl*>>> by_group;
  for (size_t i = 0; plugin.settings != nullptr && i < plugin.n_settings; ++i) {
    const clport_setting_decl& d = plugin.settings[i];
    if (d.tuning_group == nullptr || d.n_candidates == 0 || d.type == CLPORT_SETTING_TEXT) continue;
    auto it = std::find_if(by_group.begin(), by_group.end(), [&](const auto& g) { return g.first == d.tuning_group; });
    if (it == by_group.end()) it = by_group.insert(by_group.end(), {d.tuning_group, {}});
    it->second.push_back(&d);
  }
  std::vector<Group> out;
  for (const auto& [name, settings] : by_group) {
    Group g;
    g.name = name;
    if (!shape_for(name, tiny, &g.spec)) continue;
    // Every combination of the candidates (mixed radix over the settings), thinned evenly. The
    // loader refused candidates that are not values of their setting, so none fails here.
    size_t total = 1;
    for (const clport_setting_decl* d : settings) total *= d->n_candidates;
    const size_t wanted = std::min(total, cap_for(level));
    for (size_t k = 0; k < wanted; ++k) {
      size_t index = wanted == total ? k : k * total / wanted;
      std::vector<TypedSetting> candidate;
      for (const clport_setting_decl* d : settings) {
        auto value = candidate_setting(*d, d->candidates[index % d->n_candidates]);
        if (value.ok()) candidate.push_back(std::move(value.value()));
        index /= d->n_candidates;
      }
      g.candidates.push_back(std::move(candidate));
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace clport::tuner::detail
