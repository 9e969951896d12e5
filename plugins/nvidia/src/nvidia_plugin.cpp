// NVIDIA GPU plugin. Probe: the classifier's `nvidia` family with OpenCL C 1.2. On create it
// asks the driver once whether inline PTX builds and computes right (ptx_probe.hpp); with it,
// the GEMV's integer dot products are PTX dp4a, without it the same kernels in plain OpenCL C.
//
// What it serves itself: MUL_MAT and the fused RMS_NORM_MUL_MAT / MUL_MAT_ADD /
// RMS_NORM_MUL_MAT_SWIGLU patterns on Q4_0 / Q4_1 / Q8_0 weights, on 8-bit activations: with a few
// activation rows (decode) through the GEMV of nv_gemv.hpp, with more (prompt) through the
// tensor-core GEMM of nv_gemm.hpp; a prompt's ATTENTION / ROPE_ATTENTION through the tiled kernel of
// nv_attention.hpp. Every such weight is repacked at load (plugins/common's packed
// layout: aligned 16-byte quant words; the plain copy stays for get_rows). Every other op runs on
// the shared kernels (plugins/common) with GPU tuning.
//
// Settings (the plugin's policy section): ptx (default true; false keeps plain OpenCL C),
// nv_gemm (default true; false leaves prompt-sized mat-muls to the shared float GEMM),
// nv_attention (default true; false leaves the prompt's attention to the shared kernel),
// nv_gemv_wg (512), nv_gemv_rows_per_warp (2), nv_gemv_groups_per_cu (2), and the shared
// kernels' tuning keys.
#include <memory>
#include <string>

#include "clport_plugin/plugin_sdk.hpp"
#include "clport_common/op_checks.hpp"
#include "clport_common/op_runner.hpp"
#include "clport_common/plugin_settings.hpp"
#include "nv_attention.hpp"
#include "nv_gemm.hpp"
#include "nv_gemv.hpp"
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
  NvidiaInstance(const clport_host& host, const clport_device_desc& d, Tuning t, nvidia::GemvConfig g, bool gemm,
                 bool attention)
      : runner_(host, d, std::move(t)), gemv_(host, g, d.local_mem_bytes, d.compute_units), gemm_(host, g.ptx),
        attention_(host, d.local_mem_bytes), gemm_enabled_(gemm), attention_enabled_(attention) {}

  bool supports(const clport_op& op) override {
    return nv_weights(op, nullptr, nullptr) != nullptr || runner_.supports(op);
  }

  void enqueue(const clport_op& op) override {
    const PackedWeight* up = nullptr;
    bool gemm = false;
    const PackedWeight* w = nv_weights(op, &up, &gemm);
    if (w == nullptr) {
      if (attention_enabled_ && attention_.takes(op) && runner_.supports(op)) return attention_.enqueue(op);
      return runner_.enqueue(op);
    }
    // The weights are read through their packed arrays; activations, norm weight, residual and
    // dst are F32 buffers at element offsets.
    for (const clport_tensor* t : {op.src[1], op.kind == CLPORT_OP_MUL_MAT ? op.src[1] : op.src[2], op.dst}) {
      if (t->buffer == nullptr) throw clport::sdk::Failure("nvidia: operand without a buffer");
      if (t->offset % 4 != 0) throw clport::sdk::Failure("nvidia: operand offset " + std::to_string(t->offset) + " is misaligned");
    }
    if (!gemm) return gemv_.enqueue(op, *w, up);
    if (gemm_.enqueue(op, *w, up)) return;
    // No device memory for the quantized activations: a plain MUL_MAT still has the shared float
    // GEMM on the plain copy; a fused kind has nothing else here.
    if (op.kind == CLPORT_OP_MUL_MAT) return runner_.enqueue(op);
    throw clport::sdk::Failure("nvidia: no device memory for the GEMM's quantized activations",
                               CLPORT_PLUGIN_OUT_OF_MEMORY);
  }

  void* prepare_weight(const clport_tensor& weight) override { return runner_.prepare_weight(weight); }
  void release_layout(void* layout) override { runner_.release_layout(layout); }

 private:
  // The packed weights when the NVIDIA GEMV or GEMM serves op (and *up, the SwiGLU's second
  // one; *gemm, which of the two), else NULL: a mat-mul kind on weights this plugin packed, whose
  // plain description passes the shared checks (shapes, dtypes); up to the GEMV's rows the GEMV
  // (when the row fits its local memory), beyond them the GEMM.
  const PackedWeight* nv_weights(const clport_op& op, const PackedWeight** up, bool* gemm) const {
    if (!is_gemv_kind(op.kind) || op.n_src < 2 || op.src[0] == nullptr || op.src[1] == nullptr) return nullptr;
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
    // The same checks as on the plain layout; the fused kinds' rows are checked against the GEMV's
    // limit there, which the GEMM lifts.
    // (A copy of the tuning only then: this runs for every op of every decode step.)
    const Tuning* limits = &runner_.tuning();
    Tuning lifted;
    if (!rows_for_gemv) {
      lifted = *limits;
      lifted.gemv_max_m = lifted.gemv_max_m_q4q8 = op.src[1]->ne[1];
      limits = &lifted;
    }
    clport_tensor plain_w = *op.src[0], plain_u{};
    plain_w.layout = nullptr;
    clport_op plain = op;
    plain.src[0] = &plain_w;
    if (swiglu) {
      plain_u = *op.src[3];
      plain_u.layout = nullptr;
      plain.src[3] = &plain_u;
    }
    if (!clport::plugin_common::check_op(plain, *limits).empty()) return nullptr;
    if (up != nullptr) *up = u;
    if (gemm != nullptr) *gemm = !rows_for_gemv;
    return w;
  }

  OpRunner runner_;
  nvidia::NvGemv gemv_;
  nvidia::NvGemm gemm_;
  nvidia::NvAttention attention_;
  bool gemm_enabled_, attention_enabled_;
};

struct NvidiaPlugin {
  static constexpr const char* kName = "nvidia";
  static constexpr const char* kVersion = "0.1.0";
  static constexpr bool kHasPrepareWeight = true;

  static int32_t probe(const clport_device_desc& d, const char** reason) {
    const std::string family = d.family != nullptr ? d.family : "";
    if (family != "nvidia") {
      *reason = "not an NVIDIA GPU";
      return 0;
    }
    if (clport::plugin_common::opencl_c_level(d.opencl_c_version) < 12) {
      *reason = "driver offers OpenCL C below 1.2";
      return 0;
    }
    *reason = "NVIDIA GPU: integer GEMV on 8-bit activations (dp4a through inline PTX where the driver takes it)";
    return 100;
  }

  static std::unique_ptr<clport_plugin_instance> create(const clport_host& host, const clport_device_desc& d) {
    clport::sdk::Host h(host);
    const std::string settings = h.config_yaml();
    Tuning t = clport::plugin_common::default_tuning(d.max_work_group_size);
    if (std::string bad = t.apply_overrides(settings); !bad.empty()) h.log(CLPORT_LOG_WARN, "nvidia: ignoring " + bad);
    t.gemv_packed = 1;  // the NVIDIA GEMV reads the packed layout only
    std::string bad;
    nvidia::GemvConfig g;
    // The default group fits every NVIDIA GPU with OpenCL 1.2 (1024 work-items); a smaller limit
    // takes the largest power of two it allows, a value from the policy must fit as given.
    while (g.wg > 32 && g.wg > d.max_work_group_size) g.wg /= 2;
    g.wg = clport::plugin_common::setting_uint(settings, "nv_gemv_wg", g.wg, &bad);
    g.rows_per_warp = clport::plugin_common::setting_uint(settings, "nv_gemv_rows_per_warp", g.rows_per_warp, &bad);
    g.groups_per_cu = clport::plugin_common::setting_uint(settings, "nv_gemv_groups_per_cu", g.groups_per_cu, &bad);
    if (!bad.empty()) throw clport::sdk::Failure("nvidia: unreadable settings: " + bad);
    if (std::string why = g.validate(d.max_work_group_size); !why.empty())
      throw clport::sdk::Failure("nvidia: invalid settings: " + why);
    if (clport::plugin_common::setting_bool(settings, "ptx", true)) {
      const nvidia::PtxProbe ptx = nvidia::probe_inline_ptx(host, d.device);
      g.ptx = ptx.usable;
      if (ptx.usable)
        h.log(CLPORT_LOG_INFO, "nvidia: compute capability " + std::to_string(ptx.compute_major) + "." +
                                   std::to_string(ptx.compute_minor) + ", inline PTX (dp4a) in use");
      else
        h.log(CLPORT_LOG_INFO, "nvidia: inline PTX is not usable here, plain OpenCL C instead: " + ptx.why);
    }
    const bool gemm = clport::plugin_common::setting_bool(settings, "nv_gemm", true);
    const bool attention = clport::plugin_common::setting_bool(settings, "nv_attention", true);
    return std::make_unique<NvidiaInstance>(host, d, std::move(t), g, gemm, attention);
  }
};

}  // namespace

CLPORT_DEFINE_PLUGIN(NvidiaPlugin)
