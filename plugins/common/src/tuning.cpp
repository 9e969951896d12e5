#include "clport_common/tuning.hpp"

#include <algorithm>
#include <sstream>
#include <type_traits>

#include "clport_common/setting_decls.hpp"

namespace clport::plugin_common {
namespace {

bool is_pow2(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Largest value any work-group size setting may have (the device's own limit is checked too).
constexpr int64_t kMaxWorkGroup = 65536;
constexpr int64_t kMaxInt = 2147483647;  // kernels take sizes as int

// What `clport tune` times per group: the union of the values its fast, normal and exhaustive
// levels tried (the tuner drops the combinations validate() refuses).
const int64_t kGemvWgCandidates[] = {1, 8, 16, 32, 64, 128, 256, 512};
const int64_t kGemvRowsCandidates[] = {1, 2, 4, 8, 16};
const int64_t kGemmTileCandidates[] = {8, 16, 32, 64, 128};
const int64_t kGemmMicroTileCandidates[] = {1, 2, 4, 8, 16};
const int64_t kNormWgCandidates[] = {8, 16, 32, 64, 128, 256, 512, 1024};

// The switches that may also be left to the device type: the index of each name is the Tuning
// field's value (off 0, on 1, auto 2; apply_device_defaults resolves auto).
const char* const kOffOnAuto[] = {"off", "on", "auto"};

template <auto Member>
int64_t get_field(const Tuning& t) {
  return static_cast<int64_t>(t.*Member);
}
template <auto Member>
void set_field(Tuning& t, int64_t v) {
  t.*Member = static_cast<std::remove_reference_t<decltype(t.*Member)>>(v);
}

// One Tuning field a policy may set: its declaration (named as the field) and its accessors.
struct Field {
  clport_setting_decl decl;
  int64_t (*get)(const Tuning&);
  void (*set)(Tuning&, int64_t);
};
#define CLPORT_TUNING_ACCESSORS(field) &get_field<&Tuning::field>, &set_field<&Tuning::field>

const std::vector<Field>& fields() {
  static const std::vector<Field> table = {
      {int_setting("elt_wg", 1, kMaxWorkGroup,
                   "work-group size of the element-wise ops, get_rows, RoPE and copy (default 64, or the device's limit)"),
       CLPORT_TUNING_ACCESSORS(elt_wg)},
      {tuned_int_setting("gemv_wg", 1, kMaxWorkGroup, "gemv", kGemvWgCandidates,
                         "GEMV work-group size: a power of two >= 4 and >= gemv_rows, or 1 = one work-item walks "
                         "whole rows (default device dependent: 1 on CPUs, 128 on GPUs)"),
       CLPORT_TUNING_ACCESSORS(gemv_wg)},
      {tuned_int_setting("gemv_rows", 1, 64, "gemv", kGemvRowsCandidates,
                         "output rows per GEMV work-group (default device dependent: 8 on CPUs, 4 on GPUs)"),
       CLPORT_TUNING_ACCESSORS(gemv_rows)},
      {int_setting("gemv_max_m", 1, kMaxInt, "mat-muls with at most this many activation rows take the GEMV (default 4)"),
       CLPORT_TUNING_ACCESSORS(gemv_max_m)},
      {int_setting("gemv_max_m_q4q8", -1, kMaxInt,
                   "the same limit for Q4_0 / Q4_1 / Q8_0 weights; 0 = gemv_max_m, -1 = by device type (default -1: "
                   "every M on CPUs, gemv_max_m on GPUs)"),
       CLPORT_TUNING_ACCESSORS(gemv_max_m_q4q8)},
      {int_setting("gemv_split", 0, 4,
                   "work-items per 32-element run of quantized GEMV weights: 1 (whole runs), 4 (quarter runs), 0 = by "
                   "device type (default 0: 1 on CPUs, 4 on GPUs)"),
       CLPORT_TUNING_ACCESSORS(gemv_split)},
      {int_setting("gemv_packed", 0, 1,
                   "1 repacks Q4_0 / Q4_1 / Q8_0 weights for the packed GEMV (a second copy in device memory), 0 keeps "
                   "the plain layout (default 0)"),
       CLPORT_TUNING_ACCESSORS(gemv_packed)},
      {int_setting("gemv_packed_wg", 1, kMaxWorkGroup, "packed GEMV work-group size, a power of two (default 64)"),
       CLPORT_TUNING_ACCESSORS(gemv_packed_wg)},
      {int_setting("gemv_packed_rows", 1, 64, "output rows per packed GEMV work-group, at most gemv_packed_wg (default 8)"),
       CLPORT_TUNING_ACCESSORS(gemv_packed_rows)},
      {tuned_int_setting("gemm_tn", 1, 1024, "gemm", kGemmTileCandidates,
                         "GEMM tile along N (weight rows), a multiple of gemm_rn (default device dependent: 64)"),
       CLPORT_TUNING_ACCESSORS(gemm_tn)},
      {tuned_int_setting("gemm_tm", 1, 1024, "gemm", kGemmTileCandidates,
                         "GEMM tile along M (activation rows), a multiple of gemm_rm (default device dependent: 64 on "
                         "CPUs, 32 on GPUs)"),
       CLPORT_TUNING_ACCESSORS(gemm_tm)},
      {tuned_int_setting("gemm_rn", 1, 128, "gemm", kGemmMicroTileCandidates,
                         "GEMM micro-tile along N per work-item; gemm_rn * gemm_rm <= 128 (default device dependent: "
                         "8 on CPUs, 4 on GPUs)"),
       CLPORT_TUNING_ACCESSORS(gemm_rn)},
      {tuned_int_setting("gemm_rm", 1, 128, "gemm", kGemmMicroTileCandidates,
                         "GEMM micro-tile along M per work-item (default device dependent: 16 on CPUs, 4 on GPUs)"),
       CLPORT_TUNING_ACCESSORS(gemm_rm)},
      {enum_setting("gemm_kmajor", kOffOnAuto,
                    "GEMM local tile layout: on k-major, off row-major, auto by device type (default auto: off on "
                    "CPUs, on on GPUs)"),
       CLPORT_TUNING_ACCESSORS(gemm_kmajor)},
      {enum_setting("f16_bits", kOffOnAuto,
                    "half-precision scales widened with integer bit moves (on) or vload_half (off); auto by device "
                    "type (default auto: on on CPUs, off on GPUs)"),
       CLPORT_TUNING_ACCESSORS(f16_bits)},
      {tuned_int_setting("norm_wg", 1, kMaxWorkGroup, "norm", kNormWgCandidates,
                         "RMSNorm work-group size, a power of two (default device dependent: 64)"),
       CLPORT_TUNING_ACCESSORS(norm_wg)},
      {int_setting("softmax_wg", 1, kMaxWorkGroup, "softmax work-group size, a power of two (default 64)"),
       CLPORT_TUNING_ACCESSORS(softmax_wg)},
      {int_setting("att_wg", 1, kMaxWorkGroup,
                   "attention work-group size, a power of two (default device dependent: 64, 128 on GPUs)"),
       CLPORT_TUNING_ACCESSORS(att_wg)},
      {int_setting("att_dpt", 1, 16,
                   "output dims per attention work-item, head_dim <= att_wg * att_dpt (default 4, more on devices "
                   "with small work-groups)"),
       CLPORT_TUNING_ACCESSORS(att_dpt)},
      {enum_setting("att_serial", kOffOnAuto,
                    "attention as one work-item per (head, token) without barriers: on, off, or auto = on for CPUs "
                    "(default auto)"),
       CLPORT_TUNING_ACCESSORS(att_serial)},
      {enum_setting("att_split", kOffOnAuto,
                    "decode attention split over ranges of cached keys plus a merge launch: on, off, or auto = on "
                    "for GPUs and serial attention (default auto)"),
       CLPORT_TUNING_ACCESSORS(att_split)},
      {int_setting("att_split_keys", 1, 65536, "fewest cached keys per range of the split decode attention (default 64)"),
       CLPORT_TUNING_ACCESSORS(att_split_keys)},
      {int_setting("rope_attention", 0, 1,
                   "1 claims ROPE_ATTENTION (the query's RoPE inside the attention kernel), 0 leaves ROPE + ATTENTION "
                   "(default 1)"),
       CLPORT_TUNING_ACCESSORS(rope_attention)},
      {enum_setting("int_dot", kOffOnAuto,
                    "mat-muls of quantized weights on 8-bit activations: on, off, or auto = on for CPUs (default "
                    "auto; precision fp32 turns it off)"),
       CLPORT_TUNING_ACCESSORS(int_dot)},
      {int_setting("q8a_rows", 1, 32, "weight rows per work-item of the integer GEMV (default 8)"),
       CLPORT_TUNING_ACCESSORS(q8a_rows)},
      {int_setting("q8s", 0, 1,
                   "1: a one-row integer GEMV quantizes the row in each work-item (one launch), 0: a separate "
                   "quantize launch (default 1)"),
       CLPORT_TUNING_ACCESSORS(q8s)},
      {int_setting("q8s_items", 0, 65536, "work-items of the one-row integer GEMV, 0 = 4 per compute unit (default 0)"),
       CLPORT_TUNING_ACCESSORS(q8s_items)},
      {enum_setting("q8a_x8", kOffOnAuto,
                    "on repacks Q4_0 / Q4_1 / Q5_0 / Q5_1 / Q8_0 / Q4_K / Q6_K weights eight rows at a time for "
                    "the integer GEMV (a second copy in device memory), off keeps the plain layout, auto = on for "
                    "CPUs (default auto)"),
       CLPORT_TUNING_ACCESSORS(q8a_x8)},
      {int_setting("x8s_items", 0, 65536, "work-items of the one-row x8 GEMV, 0 = one per compute unit (default 0)"),
       CLPORT_TUNING_ACCESSORS(x8s_items)},
      {int_setting("x8f_rows", 0, 8,
                   "activation rows up to which the x8 GEMV quantizes them in each of its x8s_items work-items "
                   "(one launch) instead of a quantize launch in front (default 8)"),
       CLPORT_TUNING_ACCESSORS(x8f_rows)},
  };
  return table;
}
#undef CLPORT_TUNING_ACCESSORS

constexpr const char* kPrivateVectorArrays = "private_vector_arrays";

// The kernels that still declare private arrays of vectors, by the setting that selects them.
std::string private_vector_array_conflicts(const Tuning& t) {
  std::ostringstream err;
  if (t.gemv_split == 1) err << "gemv_split 1 (whole-run GEMV) ";
  if (t.int_dot == 1) err << "int_dot on (integer GEMV) ";
  if (t.att_serial == 1) err << "att_serial on (serial attention) ";
  if (t.gemv_packed == 1) err << "gemv_packed 1 (packed GEMV) ";
  const std::string which = err.str();
  return which.empty() ? "" : which + "runs kernels with private vector arrays, which private_vector_arrays false excludes; ";
}

}  // namespace

const std::vector<clport_setting_decl>& tuning_settings() {
  static const std::vector<clport_setting_decl> decls = [] {
    std::vector<clport_setting_decl> out;
    for (const Field& f : fields()) out.push_back(f.decl);
    return out;
  }();
  return decls;
}

clport_setting_decl private_vector_arrays_setting() {
  return bool_setting(kPrivateVectorArrays,
                      "false builds every kernel without private arrays of vectors, for drivers that mis-write them "
                      "(the GEMM stages its tiles straight into local memory; settings that select kernels with such "
                      "arrays are refused) (default true)");
}

std::vector<clport_setting_decl> with_tuning_settings(std::vector<clport_setting_decl> own) {
  const std::vector<clport_setting_decl>& tuning = tuning_settings();
  own.insert(own.end(), tuning.begin(), tuning.end());
  return own;
}

void Tuning::apply_settings(const sdk::Host& host) {
  for (const Field& f : fields()) {
    if (const clport_setting_value* v = host.setting(f.decl.name)) f.set(*this, v->int_value);
  }
  private_vector_arrays = host.setting_bool(kPrivateVectorArrays, private_vector_arrays);
}

int64_t Tuning::gemv_max_m_for(int32_t weight_dtype) const {
  const bool q4q8 = weight_dtype == CLPORT_DTYPE_Q4_0 || weight_dtype == CLPORT_DTYPE_Q4_1 ||
                    weight_dtype == CLPORT_DTYPE_Q8_0;
  return q4q8 && gemv_max_m_q4q8 > 0 ? gemv_max_m_q4q8 : gemv_max_m;
}

std::string Tuning::validate(uint32_t max_wg) const {
  std::ostringstream err;
  for (const Field& f : fields()) {
    const int64_t v = f.get(*this);
    if (v < f.decl.min_value || v > f.decl.max_value)
      err << f.decl.name << " must be in " << f.decl.min_value << ".." << f.decl.max_value << "; ";
  }
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
  if (gemm_rn == 0 || gemm_rm == 0 || gemm_tn % gemm_rn != 0 || gemm_tm % gemm_rm != 0)
    err << "gemm tiles must be multiples of the micro-tiles; ";
  else if ((gemm_tn / gemm_rn) * (gemm_tm / gemm_rm) > max_wg)
    err << "gemm work-group " << (gemm_tn / gemm_rn) * (gemm_tm / gemm_rm) << " > " << max_wg
        << "; ";
  // The micro-tile's accumulators live in registers; beyond 128 per work-item they spill.
  if (static_cast<uint64_t>(gemm_rn) * gemm_rm > 128) err << "gemm_rn * gemm_rm must be at most 128; ";
  if (gemv_split != 0 && gemv_split != 1 && gemv_split != 4) err << "gemv_split must be 0, 1 or 4; ";
  if (!private_vector_arrays) err << private_vector_array_conflicts(*this);
  return err.str();
}

void apply_device_defaults(Tuning& t, const clport_device_desc& device) {
  const bool gpu = (device.device_type & CL_DEVICE_TYPE_GPU) != 0;
  // The CPU shapes of the GEMV, the integer GEMV and the serial attention declare private
  // vector arrays: without them, every device gets the GPU choices of those.
  const bool cpu_shapes = !gpu && t.private_vector_arrays;
  const Tuning stock;
  // gemv_split 0 = auto. Quarter-run GEMV coalesces on GPUs but costs a CPU (PoCL) about 3x in
  // per-run overhead. With it, 128 x 4 rows measured fastest on an H200 (64 x 8 was up to 2.5x
  // slower at K = 14336), so a GPU left at the CPU-shaped stock (1 x 8) gets that.
  if (t.gemv_split == 0) {
    t.gemv_split = cpu_shapes ? 1 : 4;
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
  if (t.int_dot == 2) t.int_dot = cpu_shapes ? 1 : 0;
  if (t.q8a_x8 == 2) t.q8a_x8 = cpu_shapes && t.int_dot == 1 ? 1 : 0;
  // A GPU needs the work-group's threads; a CPU runs each barrier region as a loop of its own.
  if (t.att_serial == 2) t.att_serial = cpu_shapes ? 1 : 0;
  // Split decode attention: a GPU fills its units, a CPU's serial kernels spread a decode step's
  // few KV groups over the cores.
  if (t.att_split == 2) t.att_split = gpu || t.att_serial == 1 ? 1 : 0;
  // 4 per compute unit: the compute units share the rows evenly, and the redundant
  // quantization of the row stays small (SmolLM2 decode on PoCL, 2 cores: 4 per unit ran as
  // fast as the separate quantize launch, 8 per unit 5-10% slower, 32 per unit 30% slower).
  if (t.q8s_items == 0) t.q8s_items = 4 * std::max<uint32_t>(1, device.compute_units);
  if (t.x8s_items == 0) t.x8s_items = std::max<uint32_t>(1, device.compute_units);
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
