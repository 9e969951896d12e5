// NVIDIA GPU plugin. Probe: the classifier's `nvidia` family with OpenCL C 1.2. On create it
// asks the driver once whether inline PTX builds and computes right (ptx_probe.hpp); with it,
// the GEMV's integer dot products are PTX dp4a, without it the same kernels in plain OpenCL C.
//
// What it serves itself: MUL_MAT and the fused RMS_NORM_MUL_MAT / MUL_MAT_ADD /
// RMS_NORM_MUL_MAT_SWIGLU patterns on Q4_0 / Q4_1 / Q8_0 weights: with a few activation rows
// (decode) through the GEMV of nv_gemv.hpp on 8-bit activations; with more (prompt) through the
// tensor-core GEMM on 8-bit activations of nv_gemm.hpp, or from 65 rows, where the tensor cores
// take it, the GEMM on f16 operands of nv_gemm_half.hpp; on Q4_K weights, read in place, the same GEMV
// (nv_gemv_q4_k.cl) and both GEMMs; on Q6_K weights, in place, the GEMV (nv_gemv_q6_k.cl); a prompt's
// ATTENTION / ROPE_ATTENTION through the tiled kernel of nv_attention.hpp, the decode attention of several sequences
// (ROPE_ATTENTION_CELLS) through nv_attention_cells.hpp; a whole decode layer of those ops as one
// launch (nv_layer.hpp, the plan's prepare_group). Every such weight is repacked at load
// (plugins/common's packed layout: aligned 16-byte quant words), and the layout is its only copy.
// Every other op runs on the shared kernels (plugins/common) with GPU tuning.
//
// Settings (the plugin's policy section, declared in NvidiaPlugin::settings): ptx (default true;
// false keeps plain OpenCL C), nv_gemm (default true; false leaves prompt-sized mat-muls to the
// shared float GEMM), nv_gemm_f16 (default auto: the f16 GEMM where the tensor cores take it; off
// keeps the 8-bit one), nv_attention (default true; false leaves the prompt's attention and the
// several sequences' decode attention to the shared kernels), the GEMV launches' nv_gemv_wg,
// nv_gemv_rows_per_warp, nv_gemv_blocks_per_trip and nv_gemv_groups_per_cu (tunable, group gemv;
// defaults per architecture, arch_defaults.hpp), and the shared kernels' tuning keys but
// gemv_packed (always on here); nv_layer (default true), nv_layer_groups (0), nv_layer_gqa
// (4) and nv_layer_gqa_keys (0) for the one-launch decode layer of nv_layer.hpp, offered as a plan
// group, whose GEMV shape is the architecture's.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "clport_plugin/plugin_sdk.hpp"
#include "clport_common/device_strings.hpp"
#include "clport_plugin/opencl_version.h"
#include "clport_common/op_checks.hpp"
#include "clport_common/op_runner.hpp"
#include "clport_common/setting_decls.hpp"
#include "clport_common/tuning.hpp"
#include "arch_defaults.hpp"
#include "nv_attention.hpp"
#include "nv_attention_cells.hpp"
#include "nv_gemm.hpp"
#include "nv_gemm_half.hpp"
#include "nv_gemv.hpp"
#include "nv_layer.hpp"
#include "ptx_probe.hpp"

namespace {

using clport::plugin_common::OpRunner;
using clport::plugin_common::PackedWeight;
using clport::plugin_common::Tuning;

bool is_gemv_kind(int32_t kind) {
  return kind == CLPORT_OP_MUL_MAT || kind == CLPORT_OP_RMS_NORM_MUL_MAT || kind == CLPORT_OP_MUL_MAT_ADD ||
         kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU;
}

class NvidiaInstance final : public clport_plugin_instance {
 public:
  NvidiaInstance(const clport_host& host, const clport_device_desc& d, Tuning t, nvidia::GemvConfig g,
                 nvidia::GemvConfig layer_gemv, bool gemm, nvidia::GemmConfig gemm_config, bool gemm_half,
                 nvidia::HalfGemmConfig gemm_half_config, bool attention, uint32_t attention_cells_groups,
                 bool attention_cells_mma, bool attention_mma, bool tensor_cores, bool async_copies,
                 nvidia::LayerConfig layer)
      : runner_(host, d, std::move(t)), gemv_(host, g, d.local_mem_bytes, d.compute_units),
        gemm_(host, tensor_cores, gemm_config, d.compute_units),
        gemm_half_(host, tensor_cores, d.local_mem_bytes, d.compute_units, gemm_half_config),
        attention_(host, d.local_mem_bytes, tensor_cores && attention_mma, async_copies),
        attention_cells_(host, d.compute_units, attention_cells_groups, tensor_cores, attention_cells_mma),
        layer_(host, d, layer_gemv, layer),
        gemm_enabled_(gemm),
        gemm_half_enabled_(gemm_half && gemm_half_.fits()),
        attention_enabled_(attention), float_activations_(host.precision == 1) {}

  // A decode layer (nv_layer.hpp) whose mat-muls run on the NVIDIA GEMV (the host offers only
  // ops this instance claimed, so the attention op needs no second check).
  std::unique_ptr<clport_launch> prepare_group(const clport_op* const* ops, size_t n) override {
    if (!layer_.takes(ops, n)) return nullptr;
    nvidia::NvLayer::Weights w{};
    // The mat-mul ops 0, 2, 3, 4 give the Weights slots Q/K/V, output, gate (+ up), down.
    const size_t op_of[4] = {0, 2, 3, 4}, slot_of[4] = {0, 1, 2, 4};
    for (size_t m = 0; m < 4; ++m) {
      const PackedWeight* up = nullptr;
      bool gemm = true;
      const PackedWeight* packed = nv_weights(*ops[op_of[m]], &up, &gemm);
      if (packed == nullptr || gemm) return nullptr;
      w[slot_of[m]] = packed;
      if (up != nullptr) w[3] = up;
    }
    return layer_.prepare(ops, w);
  }

  bool supports(const clport_op& op) override {
    return nv_weights(op, nullptr, nullptr) != nullptr || gemv_in_place(op) || gemm_in_place(op) ||
           runner_.supports(op);
  }

  // Plan time, before the weights are packed: the shared kernels' scratch for op, or the decode
  // attention's, or the GEMM's over the rows past the GEMV's (the f16 GEMM's from its first row
  // on, the 8-bit GEMM's below them).
  std::vector<clport_scratch_need> scratch_needs(const clport_op& op) override {
    if (attention_enabled_ && nvidia::NvAttentionCells::takes(op)) return attention_cells_.scratch_needs(op);
    std::vector<clport_scratch_need> needs = runner_.scratch_needs(op);
    if (float_activations_ || !gemm_enabled_ || !is_gemv_kind(op.kind) || op.n_src < 2 || op.src[0] == nullptr ||
        op.src[1] == nullptr || !nvidia::NvGemm::covers(op.src[0]->dtype))
      return needs;
    const int32_t dtype = op.src[0]->dtype;
    const bool in_place = nvidia::NvGemm::reads_in_place(dtype);
    if (in_place && !gemm_in_place(op)) return needs;
    const int64_t M = op.src[1]->ne[1], K = op.src[0]->ne[0], N = op.src[0]->ne[1];
    const int64_t gemv_rows = runner_.tuning().gemv_max_m_for(dtype);
    if (M <= gemv_rows) return needs;
    const bool half = gemm_half_enabled_ && M >= gemm_half_.min_rows();
    const int64_t last_8bit = half ? gemm_half_.min_rows() - 1 : M;
    const bool swiglu = op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU;
    for (const clport_scratch_need& n : gemm_.scratch_needs(gemv_rows + 1, last_8bit, K, N, swiglu, dtype))
      needs.push_back(n);
    if (half)
      for (const clport_scratch_need& n : gemm_half_.scratch_needs(M, K, N, swiglu)) needs.push_back(n);
    return needs;
  }

  void enqueue(const clport_op& op) override {
    const PackedWeight* up = nullptr;
    bool gemm = false;
    const PackedWeight* w = nv_weights(op, &up, &gemm);
    const bool gemv_file = w == nullptr && gemv_in_place(op), gemm_file = w == nullptr && !gemv_file && gemm_in_place(op);
    if (gemv_file || gemm_file) {
      check_operands(op);
      const bool swiglu = op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU;
      const nvidia::WeightView first = nvidia::WeightView::file_layout(*op.src[0]);
      const nvidia::WeightView second = swiglu ? nvidia::WeightView::file_layout(*op.src[3]) : first;
      if (first.q == nullptr || second.q == nullptr) throw clport::sdk::Failure("nvidia: weight without a buffer");
      if (gemv_file) return gemv_.enqueue(op, first, swiglu ? &second : nullptr);
      if (gemm_half_enabled_ && op.src[1]->ne[1] >= gemm_half_.min_rows() &&
          gemm_half_.enqueue(op, first, swiglu ? &second : nullptr))
        return;
      if (gemm_.enqueue(op, first, swiglu ? &second : nullptr)) return;
      // No device memory for the quantized activations: the shared kernels read the same weights.
      return runner_.enqueue(op);
    }
    if (w == nullptr) {
      if (attention_enabled_ && attention_.takes(op) && runner_.supports(op)) return attention_.enqueue(op);
      if (attention_enabled_ && nvidia::NvAttentionCells::takes(op) && runner_.supports(op))
        return attention_cells_.enqueue(op);
      return runner_.enqueue(op);
    }
    check_operands(op);
    if (!gemm) {
      const nvidia::WeightView packed_up = up != nullptr ? nvidia::WeightView::packed(*up) : nvidia::WeightView{};
      return gemv_.enqueue(op, nvidia::WeightView::packed(*w), up != nullptr ? &packed_up : nullptr);
    }
    const nvidia::WeightView packed_up = up != nullptr ? nvidia::WeightView::packed(*up) : nvidia::WeightView{};
    const nvidia::WeightView packed = nvidia::WeightView::packed(*w);
    if (gemm_half_enabled_ && op.src[1]->ne[1] >= gemm_half_.min_rows() &&
        gemm_half_.enqueue(op, packed, up != nullptr ? &packed_up : nullptr))
      return;
    if (gemm_.enqueue(op, packed, up != nullptr ? &packed_up : nullptr)) return;
    // No device memory for the quantized activations. The packed layout is the weight's only
    // copy (owns_weight), so there is no float GEMM to fall back on: an error, met when the plan
    // is prepared (the SDK records this enqueue then), which the host's recovery handles.
    throw clport::sdk::Failure("nvidia: no device memory for the GEMM's quantized activations",
                               CLPORT_PLUGIN_OUT_OF_MEMORY);
  }

  void* prepare_weight(const clport_tensor& weight) override { return runner_.prepare_weight(weight); }
  // Every mat-mul on a packed weight runs on its layout: the NVIDIA GEMV and GEMM (or the shared
  // packed GEMV where a row does not fit the GEMV's local memory), and get_rows reads it too. With
  // the NVIDIA GEMM off (or float activations) prompt-sized mat-muls take the shared float GEMM,
  // which reads the plain copy.
  bool owns_weight(const void* layout) const override {
    return gemm_enabled_ && !float_activations_ && runner_.find_split16(layout);
  }
  void release_layout(void* layout) override { runner_.release_layout(layout); }

 private:
  // The weights are read through their packed arrays (or in place); activations, norm weight,
  // residual and dst are F32 buffers at element offsets.
  static void check_operands(const clport_op& op) {
    for (const clport_tensor* t : {op.src[1], op.kind == CLPORT_OP_MUL_MAT ? op.src[1] : op.src[2], op.dst}) {
      if (t->buffer == nullptr) throw clport::sdk::Failure("nvidia: operand without a buffer");
      if (t->offset % 4 != 0) throw clport::sdk::Failure("nvidia: operand offset " + std::to_string(t->offset) + " is misaligned");
    }
  }

  // Whether op passes the shared kernels' checks on its plain description (shapes, dtypes). With
  // `gemm_rows` the fused kinds' rows, which those checks hold to the GEMV's limit, are lifted to
  // op's own: the GEMM takes any number.
  bool passes_plain_checks(const clport_op& op, bool gemm_rows) const {
    // (A copy of the tuning only then: this runs for every op of every decode step.)
    const Tuning* limits = &runner_.tuning();
    Tuning lifted;
    if (gemm_rows) {
      lifted = *limits;
      lifted.gemv_max_m = lifted.gemv_max_m_q4q8 = op.src[1]->ne[1];
      limits = &lifted;
    }
    clport_tensor plain_w = *op.src[0], plain_u{};
    plain_w.layout = nullptr;
    clport_op plain = op;
    plain.src[0] = &plain_w;
    if (op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU) {
      plain_u = *op.src[3];
      plain_u.layout = nullptr;
      plain.src[3] = &plain_u;
    }
    return clport::plugin_common::check_op(plain, *limits).empty();
  }

  // Whether the NVIDIA GEMV serves op on Q4_K or Q6_K weights read in place: the GEMV's rows
  // (decode), weights with no layout in the file's own whose activation row fits the local memory
  // (SwiGLU: Q4_K only).
  bool gemv_in_place(const clport_op& op) const {
    if (float_activations_ || !is_gemv_kind(op.kind) || op.n_src < 2 || op.src[0] == nullptr || op.src[1] == nullptr)
      return false;
    const clport_tensor& w = *op.src[0];
    if (w.layout != nullptr || !gemv_.can_read_in_place(w) || !gemv_.fits(w.ne[0]) ||
        op.src[1]->ne[1] > runner_.tuning().gemv_max_m_for(w.dtype))
      return false;
    if (op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU &&
        (!nvidia::NvGemv::has_swiglu_in_place(w.dtype) || op.n_src < 4 || op.src[3] == nullptr ||
         op.src[3]->layout != nullptr || op.src[3]->dtype != w.dtype || !gemv_.can_read_in_place(*op.src[3])))
      return false;
    return passes_plain_checks(op, false);
  }

  // Whether the NVIDIA GEMM serves op on Q4_K weights read in place: rows beyond the shared GEMV's
  // (a prompt's, or several sequences'), weights with no layout in the file's own.
  bool gemm_in_place(const clport_op& op) const {
    if (float_activations_ || !gemm_enabled_ || !is_gemv_kind(op.kind) || op.n_src < 2 || op.src[0] == nullptr ||
        op.src[1] == nullptr)
      return false;
    const clport_tensor& w = *op.src[0];
    if (w.layout != nullptr || !nvidia::NvGemm::can_read_in_place(w) ||
        op.src[1]->ne[1] <= runner_.tuning().gemv_max_m_for(w.dtype))
      return false;
    if (op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU &&
        (op.n_src < 4 || op.src[3] == nullptr || op.src[3]->layout != nullptr || op.src[3]->dtype != w.dtype ||
         !nvidia::NvGemm::can_read_in_place(*op.src[3])))
      return false;
    return passes_plain_checks(op, true);
  }

  // The packed weights when the NVIDIA GEMV or GEMM serves op (and *up, the SwiGLU's second
  // one; *gemm, which of the two), else NULL: a mat-mul kind on weights this plugin packed, whose
  // plain description passes the shared checks (shapes, dtypes); up to the GEMV's rows the GEMV
  // (when the row fits its local memory), beyond them the GEMM.
  const PackedWeight* nv_weights(const clport_op& op, const PackedWeight** up, bool* gemm) const {
    // Its GEMV and GEMM quantize the activations to 8 bits: the policy's `precision: fp32` leaves
    // every mat-mul to the shared float kernels.
    if (float_activations_ || !is_gemv_kind(op.kind) || op.n_src < 2 || op.src[0] == nullptr || op.src[1] == nullptr)
      return nullptr;
    const bool rows_for_gemv = op.src[1]->ne[1] <= runner_.tuning().gemv_max_m_for(op.src[0]->dtype);
    if (rows_for_gemv ? !nvidia::NvGemv::covers(op.src[0]->dtype) || !gemv_.fits(op.src[0]->ne[0])
                      : !gemm_enabled_ || !nvidia::NvGemm::covers(op.src[0]->dtype))
      return nullptr;
    const PackedWeight* w = runner_.packed_layout(*op.src[0]);
    if (w == nullptr) return nullptr;
    const bool swiglu = op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU;
    const PackedWeight* u = nullptr;
    if (swiglu) {
      if (op.n_src < 4 || op.src[3] == nullptr || (u = runner_.packed_layout(*op.src[3])) == nullptr) return nullptr;
    }
    // The same checks as on the plain layout, the GEMM's rows lifted.
    if (!passes_plain_checks(op, !rows_for_gemv)) return nullptr;
    if (up != nullptr) *up = u;
    if (gemm != nullptr) *gemm = !rows_for_gemv;
    return w;
  }

  OpRunner runner_;
  nvidia::NvGemv gemv_;
  nvidia::NvGemm gemm_;
  nvidia::NvGemmHalf gemm_half_;
  nvidia::NvAttention attention_;
  nvidia::NvAttentionCells attention_cells_;
  nvidia::NvLayer layer_;
  bool gemm_enabled_, gemm_half_enabled_, attention_enabled_, float_activations_;
};

const char* const kOffOnAuto[] = {"off", "on", "auto"};
const int64_t kGemvWgCandidates[] = {256, 512, 1024};
const int64_t kGemvRowsPerWarpCandidates[] = {1, 2, 4};
const int64_t kGemvBlocksPerTripCandidates[] = {2, 4};
const int64_t kGemvGroupsPerCuCandidates[] = {0, 2, 4};

// The plugin's own settings, then the shared kernels' tuning but gemv_packed: the NVIDIA GEMV
// and GEMM read only the packed layout, so it is always on.
std::vector<clport_setting_decl> nvidia_settings() {
  using namespace clport::plugin_common;
  std::vector<clport_setting_decl> decls = with_tuning_settings({
      bool_setting("ptx",
                   "false keeps the GEMV and GEMM in plain OpenCL C; true uses inline PTX (dp4a, tensor cores) "
                   "where the driver builds it and computes right (default true)"),
      bool_setting("nv_gemm",
                   "false leaves prompt-sized mat-muls to the shared float GEMM instead of the 8-bit tensor-core "
                   "GEMM (default true)"),
      enum_setting("nv_gemm_f16", kOffOnAuto,
                   "prompt-sized mat-muls (more than 64 rows) on f16 operands, the weights decoded to f16 as they are "
                   "staged: on, off (the 8-bit GEMM), auto = on where the tensor cores take it (default auto)"),
      int_setting("nv_gemm_f16_rows", 2, 1 << 20,
                  "activation rows from which a mat-mul takes the f16 GEMM (where nv_gemm_f16 is on) instead of the "
                  "8-bit one; a decode step of fewer sequences than this stays on the 8-bit GEMM (default 65)"),
      int_setting("nv_gemm_f16_tile", 0, 128,
                  "activation rows a work-group of the f16 GEMM computes: 32, 64 or 128; 0 = 128 from 65 rows, "
                  "else the smallest that holds them (default 0)"),
      int_setting("nv_gemm_f16_cols", 64, 128,
                  "staged weight rows a work-group of the f16 GEMM's 128-row tiles takes: 64 (two warps, twice the "
                  "groups) or 128 (default 128)"),
      bool_setting("nv_gemm_f16_split",
                   "false keeps K whole in the f16 GEMM even where its tiles leave compute units idle; true cuts "
                   "it into ranges summed afterwards (default true)"),
      int_setting("nv_gemm_rows", 0, 128,
                  "activation rows a GEMM work-group computes: 64 or 128; 0 = 128 for batches of more than 64 "
                  "rows, else 64 (default 0)"),
      int_setting("nv_gemv_rows_groups_per_cu", 0, 64,
                  "work-groups per compute unit of the GEMV of several activation rows (a decode step of 2 to "
                  "gemv_max_m sequences); 0 = one per chunk of rows (default 1)"),
      int_setting("nv_gemv_rows_blocks_per_trip", 0, 8,
                  "blocks of 32 weights each lane of the GEMV of several activation rows loads per loop trip: "
                  "0 (as nv_gemv_blocks_per_trip), 1, 2, 4 or 8 (default 1)"),
      int_setting("nv_gemm_split_groups", 0, 64,
                  "work-groups per compute unit that a GEMM of at most 64 rows (a decode step of several "
                  "sequences) reaches by splitting K into ranges summed afterwards; 0 = 8 up to 32 rows, "
                  "2 above (default 0)"),
      int_setting("nv_gemm_split_blocks", 2, 8,
                  "blocks of 32 values along K whose loads each work-group of the split GEMM of up to 32 rows "
                  "has in flight: 2 (one step ahead), 4 or 8 (2 or 4 steps ahead in registers; more rows stay "
                  "one step ahead) (default 4)"),
      bool_setting("nv_gemm_split_async",
                   "false keeps the split GEMM of 16 to 64 rows on its register-staged kernels instead of the ring "
                   "of asynchronous copies (used where the driver's cp.async probe passed; default true)"),
      int_setting("nv_gemm_split_stages", 2, 8,
                  "steps of the asynchronously staged split GEMM's ring, stages - 1 of them in flight; fewer where "
                  "they do not fit 44 KiB of local memory (default 4)"),
      int_setting("nv_gemm_async_blocks", 2, 8,
                  "blocks of 32 values a step of that ring in its plain kernels: 2, 4 or 8, longer runs of each "
                  "weight row a step (default 2)"),
      int_setting("nv_gemm_async_swiglu_blocks", 2, 8,
                  "the same for the ring's SwiGLU kernels, whose stages hold two weights (default 4)"),
      bool_setting("nv_attention",
                   "false leaves a prompt's attention and the decode attention of several sequences to the shared "
                   "kernels instead of the nvidia ones (default true)"),
      int_setting("nv_attention_cells_groups", 1, 64,
                  "work-groups per compute unit that the decode attention of several sequences aims for by "
                  "splitting each sequence's keys into ranges (default 8)"),
      bool_setting("nv_attention_mma",
                   "false keeps a prompt's attention on an F16 cache in plain OpenCL C instead of the tensor cores "
                   "(inline PTX; default true)"),
      bool_setting("nv_attention_cells_mma",
                   "false keeps the decode attention of several sequences on an F16 cache of head size 64 or 128 "
                   "on the CUDA cores instead of the tensor cores; true without inline PTX runs the tensor-core "
                   "kernel's emulation, for checking it (default true where the tensor cores take inline PTX)"),
      bool_setting("nv_async_copy",
                   "false stages the tensor-core prompt attention's key and value tiles by plain loads and reads "
                   "their fragments by 32-bit loads, instead of asynchronous copies and ldmatrix, and keeps the "
                   "split GEMM on its register-staged kernels (compute capability 8.0, probed; default true)"),
      tuned_int_setting("nv_gemv_wg", 32, 1024, "gemv", kGemvWgCandidates,
                        "GEMV work-group size, a power of two >= 32 within the device's limit (default: the "
                        "architecture's, 512 on sm_90)"),
      tuned_int_setting("nv_gemv_rows_per_warp", 1, 8, "gemv", kGemvRowsPerWarpCandidates,
                        "weight rows per warp of the GEMV (default: the architecture's, 2 on sm_90)"),
      tuned_int_setting("nv_gemv_blocks_per_trip", 1, 8, "gemv", kGemvBlocksPerTripCandidates,
                        "blocks of 32 weights each lane of the GEMV loads per loop trip: 1, 2, 4 or 8 (default: the "
                        "architecture's, 2 on sm_90)"),
      bool_setting("nv_layer",
                   "true runs a decode layer (norm + Q/K/V, RoPE + cache store + attention, output + residual, norm + "
                   "gate/up + SwiGLU, down + residual) as one launch with grid barriers; false as five (default true)"),
      int_setting("nv_layer_groups", 0, 4096,
                  "work-groups of the one-launch layer, all resident at once; 0 = one per compute unit on a GPU, "
                  "1 elsewhere (default 0)"),
      int_setting("nv_layer_gqa", 1, 4,
                  "query heads of one KV head the one-launch layer's attention takes at once in a step of many "
                  "keys, reading each key once for all of them: 1, 2 or 4 (default 4)"),
      int_setting("nv_layer_gqa_keys", 0, 1 << 20,
                  "cached keys from which the one-launch layer's attention items take nv_layer_gqa heads; 0 = once "
                  "every key range would take two trips at the most ranges such items give (default 0)"),
      tuned_int_setting("nv_gemv_groups_per_cu", 0, 64, "gemv", kGemvGroupsPerCuCandidates,
                        "GEMV work-groups per compute unit, each quantizing the activation row once; 0 = one per "
                        "chunk of rows (default: the architecture's, 2 on sm_90)"),
  });
  // The tuner times its gemv group on a Q4_0 mat-mul, which this plugin's own GEMV serves: the
  // shared GEMV's knobs (still settings: it serves the other dtypes) would be timed on nothing.
  for (clport_setting_decl& d : decls) {
    if (std::strcmp(d.name, "gemv_wg") == 0 || std::strcmp(d.name, "gemv_rows") == 0) {
      d.tuning_group = nullptr;
      d.candidates = nullptr;
      d.n_candidates = 0;
    }
  }
  decls.erase(std::remove_if(decls.begin(), decls.end(),
                             [](const clport_setting_decl& d) { return std::strcmp(d.name, "gemv_packed") == 0; }),
              decls.end());
  return decls;
}

struct NvidiaPlugin {
  static constexpr const char* kName = "nvidia";
  static constexpr const char* kVersion = "0.1.0";
  static constexpr bool kHasPrepareWeight = true;

  static const std::vector<clport_setting_decl>& settings() {
    static const std::vector<clport_setting_decl> decls = nvidia_settings();
    return decls;
  }

  static int32_t probe(const clport_device_desc& d, const char** reason) {
    const std::string family = d.family != nullptr ? d.family : "";
    if (family != "nvidia") {
      *reason = "not an NVIDIA GPU";
      return 0;
    }
    if (clport_opencl_version(d.opencl_c_version) < 102) {
      *reason = "driver offers OpenCL C below 1.2";
      return 0;
    }
    *reason = "NVIDIA GPU: integer GEMV on 8-bit activations (dp4a through inline PTX where the driver takes it)";
    return 100;
  }

  static std::unique_ptr<clport_plugin_instance> create(const clport_host& host, const clport_device_desc& d) {
    clport::sdk::Host h(host);
    Tuning t = clport::plugin_common::default_tuning(d.max_work_group_size);
    t.apply_settings(h);
    // The NVIDIA GEMV reads the packed layout only; with `precision: fp32` it serves nothing and
    // the shared float kernels (fused patterns included) keep the plain layout.
    if (host.precision != 1) t.gemv_packed = 1;
    // The GEMM's and the prompt attention's mma.sync shapes (and cvt to f16x2) need compute
    // capability 8.0; below it those two build in plain OpenCL C while the GEMV keeps dp4a.
    nvidia::PtxProbe ptx;
    if (h.setting_bool("ptx", true)) {
      ptx = nvidia::probe_inline_ptx(host, d.device);
      if (ptx.usable)
        h.log(CLPORT_LOG_INFO, "nvidia: compute capability " + std::to_string(ptx.compute_major) + "." +
                                   std::to_string(ptx.compute_minor) + ", inline PTX in use (dp4a" +
                                   (ptx.compute_major >= 8 ? ", tensor cores)" : "; no tensor cores below 8.0)"));
      else
        h.log(CLPORT_LOG_INFO, "nvidia: inline PTX is not usable here, plain OpenCL C instead: " + ptx.why);
    }
    const bool tensor_cores = ptx.usable && ptx.compute_major >= 8;
    const bool attention = h.setting_bool("nv_attention", true);
    const auto attention_cells_groups = static_cast<uint32_t>(h.setting_int("nv_attention_cells_groups", 8));
    const bool attention_mma = h.setting_bool("nv_attention_mma", true);
    // On the tensor cores where they take inline PTX (H100, 64 sequences: 94 against 108 us a
    // layer, docs/nvidia.md); the emulation elsewhere only when asked for.
    const bool attention_cells_mma = h.setting_bool("nv_attention_cells_mma", tensor_cores);
    // The asynchronous copies and matrix loads (compute capability 8.0) of the tensor-core prompt
    // attention's pipeline and the split GEMM's ring, probed where the tensor cores are.
    bool async_copies = false;
    if (tensor_cores && h.setting_bool("nv_async_copy", true)) {
      const nvidia::AsyncProbe async = nvidia::probe_async_copies(host, ptx);
      async_copies = async.usable;
      h.log(CLPORT_LOG_INFO, async.usable ? std::string("nvidia: asynchronous copies (cp.async, ldmatrix) in use")
                                          : "nvidia: no asynchronous copies: " + async.why);
    }
    const nvidia::ArchDefaults arch = nvidia::arch_defaults(ptx.compute_major, ptx.compute_minor);
    if (!arch.measured)
      h.log(CLPORT_LOG_INFO, "nvidia: no measured defaults for " + arch.arch + ", " + arch.source + "'s are used");
    nvidia::GemvConfig g = arch.gemv, layer_gemv = arch.layer;
    // A device whose work-group limit is below the default takes the largest power of two it
    // allows; a value from the policy must fit as given.
    for (nvidia::GemvConfig* c : {&g, &layer_gemv}) {
      while (c->wg > 32 && c->wg > d.max_work_group_size) c->wg /= 2;
      c->ptx = ptx.usable;
    }
    g.wg = static_cast<uint32_t>(h.setting_int("nv_gemv_wg", g.wg));
    g.rows_per_warp = static_cast<uint32_t>(h.setting_int("nv_gemv_rows_per_warp", g.rows_per_warp));
    g.groups_per_cu = static_cast<uint32_t>(h.setting_int("nv_gemv_groups_per_cu", g.groups_per_cu));
    g.blocks_per_trip = static_cast<uint32_t>(h.setting_int("nv_gemv_blocks_per_trip", g.blocks_per_trip));
    g.rows_groups_per_cu = static_cast<uint32_t>(h.setting_int("nv_gemv_rows_groups_per_cu", g.rows_groups_per_cu));
    g.rows_blocks_per_trip =
        static_cast<uint32_t>(h.setting_int("nv_gemv_rows_blocks_per_trip", g.rows_blocks_per_trip));
    if (std::string why = g.validate(d.max_work_group_size); !why.empty())
      throw clport::sdk::Failure("nvidia: invalid settings: " + why);
    const bool gemm = h.setting_bool("nv_gemm", true);
    nvidia::GemmConfig gemm_config;
    gemm_config.rows = static_cast<uint32_t>(h.setting_int("nv_gemm_rows", gemm_config.rows));
    if (gemm_config.rows != 0 && gemm_config.rows != 64 && gemm_config.rows != 128)
      throw clport::sdk::Failure("nvidia: invalid settings: nv_gemm_rows must be 0, 64 or 128, not " +
                                 std::to_string(gemm_config.rows));
    gemm_config.split_groups_per_cu =
        static_cast<uint32_t>(h.setting_int("nv_gemm_split_groups", gemm_config.split_groups_per_cu));
    gemm_config.split_blocks = static_cast<uint32_t>(h.setting_int("nv_gemm_split_blocks", gemm_config.split_blocks));
    gemm_config.split_async = h.setting_bool("nv_gemm_split_async", gemm_config.split_async);
    gemm_config.split_stages = static_cast<uint32_t>(h.setting_int("nv_gemm_split_stages", gemm_config.split_stages));
    gemm_config.async_blocks = static_cast<uint32_t>(h.setting_int("nv_gemm_async_blocks", gemm_config.async_blocks));
    gemm_config.async_swiglu_blocks =
        static_cast<uint32_t>(h.setting_int("nv_gemm_async_swiglu_blocks", gemm_config.async_swiglu_blocks));
    gemm_config.async_copies = async_copies;
    if (std::string why = gemm_config.validate(); !why.empty())
      throw clport::sdk::Failure("nvidia: invalid settings: " + why);
    // auto: the f16 GEMM where the tensor cores take it (its plain OpenCL C form is for checking the
    // kernel elsewhere, far slower than the 8-bit GEMM's).
    const int64_t gemm_half_mode = h.setting_int("nv_gemm_f16", 2);
    const bool gemm_half = gemm_half_mode == 1 || (gemm_half_mode == 2 && tensor_cores);
    nvidia::HalfGemmConfig half;
    half.min_rows = h.setting_int("nv_gemm_f16_rows", half.min_rows);
    half.tile_rows = static_cast<uint32_t>(h.setting_int("nv_gemm_f16_tile", half.tile_rows));
    half.split = h.setting_bool("nv_gemm_f16_split", half.split);
    half.tile_cols = static_cast<uint32_t>(h.setting_int("nv_gemm_f16_cols", half.tile_cols));
    if (half.tile_cols != 64 && half.tile_cols != 128)
      throw clport::sdk::Failure("nvidia: invalid settings: nv_gemm_f16_cols must be 64 or 128, not " +
                                 std::to_string(half.tile_cols));
    if (half.tile_rows != 0 && half.tile_rows != 32 && half.tile_rows != 64 && half.tile_rows != 128)
      throw clport::sdk::Failure("nvidia: invalid settings: nv_gemm_f16_tile must be 0, 32, 64 or 128, not " +
                                 std::to_string(half.tile_rows));
    // LayerConfig's members are the settings' defaults.
    nvidia::LayerConfig layer;
    layer.enabled = h.setting_bool("nv_layer", layer.enabled);
    layer.groups = static_cast<uint32_t>(h.setting_int("nv_layer_groups", layer.groups));
    layer.heads_per_item = static_cast<uint32_t>(h.setting_int("nv_layer_gqa", layer.heads_per_item));
    layer.gqa_from_keys = static_cast<uint32_t>(h.setting_int("nv_layer_gqa_keys", layer.gqa_from_keys));
    if (layer.heads_per_item == 3)
      throw clport::sdk::Failure("nvidia: invalid settings: nv_layer_gqa must be 1, 2 or 4, not 3");
    return std::make_unique<NvidiaInstance>(host, d, std::move(t), g, layer_gemv, gemm, gemm_config, gemm_half,
                                            half, attention, attention_cells_groups, attention_cells_mma,
                                            attention_mma, tensor_cores,
                                            async_copies, layer);
  }
};

}  // namespace

CLPORT_DEFINE_PLUGIN(NvidiaPlugin)
