#include "clport_common/tuning.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <utility>
#include <vector>

namespace clport::plugin_common {
namespace {

bool is_pow2(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

}  // namespace

int64_t Tuning::gemv_max_m_for(int32_t weight_dtype) const {
  const bool q4q8 = weight_dtype == CLPORT_DTYPE_Q4_0 || weight_dtype == CLPORT_DTYPE_Q4_1 ||
                    weight_dtype == CLPORT_DTYPE_Q8_0;
  return q4q8 && gemv_max_m_q4q8 > 0 ? gemv_max_m_q4q8 : gemv_max_m;
}

std::string Tuning::validate(uint32_t max_wg) const {
  std::ostringstream err;
  auto wg_ok = [&](const char* name, uint32_t v, bool pow2) {
    if (v == 0 || v > max_wg) err << name << "=" << v << " not in 1.." << max_wg << "; ";
    if (pow2 && !is_pow2(v)) err << name << "=" << v << " is not a power of two; ";
  };
  wg_ok("elt_wg", elt_wg, false);
  wg_ok("gemv_wg", gemv_wg, true);
  wg_ok("gemv_packed_wg", gemv_packed_wg, true);
  wg_ok("norm_wg", norm_wg, true);
  wg_ok("softmax_wg", softmax_wg, true);
  wg_ok("att_wg", att_wg, true);
  // gemv_wg 1: one work-item per work-group walks gemv_rows whole rows (no reduction).
  if (gemv_rows == 0 || gemv_rows > 64 || (gemv_wg != 1 && (gemv_rows > gemv_wg || gemv_wg < 4)))
    err << "gemv_rows must be in 1..64, and in 1..gemv_wg with gemv_wg >= 4 unless gemv_wg is 1; ";
  if (gemv_packed_rows == 0 || gemv_packed_rows > 64 ||
      (gemv_packed_wg != 1 && (gemv_packed_rows > gemv_packed_wg || gemv_packed_wg < 4)))
    err << "gemv_packed_rows must be in 1..64, and in 1..gemv_packed_wg with gemv_packed_wg >= 4 unless it is 1; ";
  if (gemv_packed > 1) err << "gemv_packed must be 0 or 1; ";
  if (gemm_rn == 0 || gemm_rm == 0 || gemm_tn % gemm_rn != 0 || gemm_tm % gemm_rm != 0)
    err << "gemm tiles must be multiples of the micro-tiles; ";
  else if ((gemm_tn / gemm_rn) * (gemm_tm / gemm_rm) > max_wg)
    err << "gemm work-group " << (gemm_tn / gemm_rn) * (gemm_tm / gemm_rm) << " > " << max_wg
        << "; ";
  if (att_dpt == 0 || att_dpt > 16) err << "att_dpt must be in 1..16; ";
  if (gemv_max_m < 1) err << "gemv_max_m must be >= 1; ";
  if (gemv_max_m_q4q8 < -1) err << "gemv_max_m_q4q8 must be >= 0 (or -1, by device type); ";
  if (gemv_split != 0 && gemv_split != 1 && gemv_split != 4) err << "gemv_split must be 0, 1 or 4; ";
  if (gemm_kmajor > 2) err << "gemm_kmajor must be 0, 1 or 2; ";
  if (f16_bits > 2) err << "f16_bits must be 0, 1 or 2; ";
  if (rope_attention > 1) err << "rope_attention must be 0 or 1; ";
  if (int_dot > 2) err << "int_dot must be 0, 1 or 2; ";
  if (att_serial > 2) err << "att_serial must be 0, 1 or 2; ";
  if (att_split > 2) err << "att_split must be 0, 1 or 2; ";
  if (att_split_keys == 0 || att_split_keys > 65536) err << "att_split_keys must be in 1..65536; ";
  if (q8a_rows == 0 || q8a_rows > 32) err << "q8a_rows must be in 1..32; ";
  if (q8s > 1) err << "q8s must be 0 or 1; ";
  if (q8s_items > 65536) err << "q8s_items must be in 0..65536; ";
  return err.str();
}

std::string Tuning::apply_overrides(const std::string& yaml_text) {
  std::vector<std::pair<const char*, uint32_t*>> u32 = {
      {"elt_wg", &elt_wg},   {"gemv_wg", &gemv_wg},       {"gemv_rows", &gemv_rows},
      {"gemm_tn", &gemm_tn}, {"gemm_tm", &gemm_tm},       {"gemm_rn", &gemm_rn},
      {"gemm_rm", &gemm_rm}, {"norm_wg", &norm_wg},       {"softmax_wg", &softmax_wg},
      {"att_wg", &att_wg},   {"att_dpt", &att_dpt},       {"gemv_split", &gemv_split},
      {"gemm_kmajor", &gemm_kmajor}, {"f16_bits", &f16_bits},   {"gemv_packed", &gemv_packed},
      {"gemv_packed_wg", &gemv_packed_wg}, {"gemv_packed_rows", &gemv_packed_rows},
      {"rope_attention", &rope_attention}, {"int_dot", &int_dot}, {"q8a_rows", &q8a_rows},
      {"att_serial", &att_serial}, {"q8s", &q8s}, {"q8s_items", &q8s_items}, {"att_split", &att_split},
      {"att_split_keys", &att_split_keys}};
  std::istringstream in(yaml_text);
  std::string line, problems;
  while (std::getline(in, line)) {
    line = trim(line.substr(0, line.find('#')));
    const size_t colon = line.find(':');
    if (line.empty() || colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (value.empty()) continue;  // a nested section header: not ours
    char* end = nullptr;
    const long long v = std::strtoll(value.c_str(), &end, 10);
    const bool numeric = end != nullptr && *end == '\0' && v >= 0 && v < (1LL << 31);
    bool known = false;
    for (auto& [name, field] : u32) {
      if (key != name) continue;
      known = true;
      if (numeric) *field = static_cast<uint32_t>(v);
    }
    if (key == "gemv_max_m" || key == "gemv_max_m_q4q8") {
      known = true;
      if (numeric) (key == "gemv_max_m" ? gemv_max_m : gemv_max_m_q4q8) = v;
    }
    if (known && !numeric) problems += key + ": '" + value + "' is not a number; ";
  }
  return problems;
}

void apply_device_defaults(Tuning& t, const clport_device_desc& device) {
  const bool gpu = (device.device_type & CL_DEVICE_TYPE_GPU) != 0;
  const Tuning stock;
  // gemv_split 0 = auto. Quarter-run GEMV coalesces on GPUs but costs a CPU (PoCL) about 3x in
  // per-run overhead. With it, 128 x 4 rows measured fastest on an H200 (64 x 8 was up to 2.5x
  // slower at K = 14336), so a GPU left at the CPU-shaped stock (1 x 8) gets that.
  if (t.gemv_split == 0) {
    t.gemv_split = gpu ? 4 : 1;
    // The stock gemv_wg 1 (no reduction) is for CPUs: a GPU needs many work-items per row.
    if (gpu && t.gemv_wg == stock.gemv_wg && t.gemv_rows == stock.gemv_rows && device.max_work_group_size >= 4) {
      t.gemv_wg = 128;
      while (t.gemv_wg > device.max_work_group_size) t.gemv_wg /= 2;
      t.gemv_rows = 4;
    }
  }
  // GEMM: the stock 64 x 64 / 8 x 16 tiles suit a CPU (few big work-groups), but on a GPU at
  // prefill sizes (M = 64) they make too few work-groups of too few work-items. 64 x 32 tiles
  // of 4 x 4 (128 work-items) measured 2.2x faster than 64 x 64 / 8 x 8 on an H200 (19.7 vs
  // 9.2 TFLOP/s at K = 2048, N = 8192). Only the untouched stock shape is replaced; a
  // policy's tiles stand. The k-major local layout is what the GPU numbers were measured with;
  // PoCL runs the row-major one 1.9x faster.
  if (t.gemm_kmajor == 2) t.gemm_kmajor = gpu ? 1 : 0;
  if (t.f16_bits == 2) t.f16_bits = gpu ? 0 : 1;
  // The integer GEMV is shaped for CPUs (one work-item walks whole rows).
  if (t.int_dot == 2) t.int_dot = gpu ? 0 : 1;
  // A GPU needs the work-group's threads; a CPU runs each barrier region as a loop of its own.
  if (t.att_serial == 2) t.att_serial = gpu ? 0 : 1;
  if (t.att_split == 2) t.att_split = gpu ? 1 : 0;
  // 4 per compute unit: the compute units share the rows evenly, and the redundant
  // quantization of the row stays small (SmolLM2 decode on PoCL, 2 cores: 4 per unit ran as
  // fast as the separate quantize launch, 8 per unit 5-10% slower, 32 per unit 30% slower).
  if (t.q8s_items == 0) t.q8s_items = 4 * std::max<uint32_t>(1, device.compute_units);
  if (t.gemv_max_m_q4q8 < 0) t.gemv_max_m_q4q8 = gpu ? 0 : (int64_t{1} << 30);
  // Attention: a GPU left at the stock 64 work-items per (head, token) gets 128: generation ran
  // 1.07-1.14x faster on an H200 (SmolLM2 and 1B shapes; 32 and 256 were slower).
  if (gpu && t.att_wg == stock.att_wg && device.max_work_group_size >= 128) t.att_wg = 128;
  if (gpu && t.gemm_tn == stock.gemm_tn && t.gemm_tm == stock.gemm_tm && t.gemm_rn == stock.gemm_rn &&
      t.gemm_rm == stock.gemm_rm && device.max_work_group_size >= 128) {
    t.gemm_tn = 64;
    t.gemm_tm = 32;
    t.gemm_rn = 4;
    t.gemm_rm = 4;
  }
}

Tuning default_tuning(uint32_t max_wg) {
  Tuning t;
  auto fit = [&](uint32_t& v) {
    while (v > 1 && v > max_wg) v /= 2;
  };
  fit(t.elt_wg);
  fit(t.gemv_wg);
  fit(t.gemv_packed_wg);
  if (t.gemv_packed_wg < t.gemv_packed_rows) t.gemv_packed_rows = t.gemv_packed_wg;
  fit(t.norm_wg);
  fit(t.softmax_wg);
  fit(t.att_wg);
  if (t.gemv_wg != 1 && t.gemv_wg < t.gemv_rows) t.gemv_rows = t.gemv_wg;
  // Keep head_dim 256 servable when the attention work-group shrinks.
  while (t.att_wg * t.att_dpt < 256 && t.att_dpt < 16) t.att_dpt *= 2;
  while ((t.gemm_tn / t.gemm_rn) * (t.gemm_tm / t.gemm_rm) > max_wg && t.gemm_tn > t.gemm_rn) {
    t.gemm_tn /= 2;
    t.gemm_tm /= 2;
  }
  return t;
}

}  // namespace clport::plugin_common
