#include "ops/registry/case_builders.h"

#include <cmath>

namespace clport::ops::registry {

OperandSpec f32(Ne ne, float scale) {
  OperandSpec o;
  o.ne = ne;
  o.scale = scale;
  return o;
}

OperandSpec typed(DType d, Ne ne, float scale) {
  OperandSpec o = f32(ne, scale);
  o.dtype = d;
  return o;
}

std::string dims(Ne ne) {
  int last = 0;
  for (int i = 1; i < 4; ++i)
    if (ne[i] != 1) last = i;
  std::string s = std::to_string(ne[0]);
  for (int i = 1; i <= last; ++i) s += "x" + std::to_string(ne[i]);
  return s;
}

std::string tname(DType d) { return std::string(dtype_name(d)); }

void unary(std::vector<CaseSpec>& out, Ne ne, float f0, double threshold) {
  CaseSpec c;
  c.dtype = "f32";
  c.shape = dims(ne);
  c.src = {f32(ne, 2.0f)};
  c.dst = f32(ne);
  c.params.scale = f0;
  c.threshold = threshold;
  out.push_back(c);
}

void binary(std::vector<CaseSpec>& out, Ne a, Ne b, double threshold) {
  CaseSpec c;
  c.dtype = "f32";
  c.shape = dims(a) + (a == b ? "" : " bcast " + dims(b));
  c.src = {f32(a, 2.0f), f32(b)};
  c.dst = f32(a);
  c.threshold = threshold;
  out.push_back(c);
}

OperandSpec rope_factors(int64_t n_rot) {
  OperandSpec o = f32({n_rot / 2, 1, 1, 1});
  o.fill = Fill::Factors;
  return o;
}

std::string window_suffix(int32_t window) { return window > 0 ? " win=" + std::to_string(window) : ""; }

OperandSpec projection_slice(int64_t hd, int64_t heads, int64_t n, int64_t row, int64_t at) {
  OperandSpec o = f32({hd, heads, n, 1});
  o.nb = {4, 4 * hd, 4 * row, 4 * row * n};
  o.view_offset = 4 * at;
  o.region_bytes = 4 * row * n;
  return o;
}

void set_rope_attention_params(CaseSpec& c, int mode, int64_t n_past, int64_t hd) {
  c.params.n_past = static_cast<int32_t>(n_past);
  c.params.rope = clport_rope_params{mode, static_cast<int32_t>(hd), 10000.0f, 1.0f};
  c.params.attention.scale = 1.0f / std::sqrt(static_cast<float>(hd));
}

OperandSpec cells_of(int64_t n, int64_t n_seq, int64_t n_ctx) {
  OperandSpec o = typed(DType::I32, {2, n, 1, 1});
  o.fill = Fill::Cells;
  o.index_limit = n_seq;
  o.positions = n_ctx;
  return o;
}

}  // namespace clport::ops::registry
