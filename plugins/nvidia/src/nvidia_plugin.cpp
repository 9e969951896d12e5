// NVIDIA GPU plugin. Probe: the classifier's `nvidia` family with OpenCL C 1.2. On create it
// asks the driver once whether inline PTX builds and computes right (ptx_probe.hpp); with it,
// the GEMV's integer dot products are PTX dp4a, without it the same kernels in plain OpenCL C.
//
// What it serves itself: MUL_MAT with a few activation rows (decode) and the fused
// RMS_NORM_MUL_MAT / MUL_MAT_ADD / RMS_NORM_MUL_MAT_SWIGLU patterns on Q4_0 / Q4_1 / Q8_0 weights,
// through the GEMV on 8-bit activations of nv_gemv.hpp. To give that GEMV 16-byte loads, every
// such weight is repacked at load (plugins/common's packed layout; the plain copy stays for the
// prompt's GEMM and get_rows). Every other op, and those weights' prompt-sized mat-muls, run on
// the shared kernels (plugins/common) with GPU tuning.
//
// Settings (the plugin's policy section): ptx (default true; false keeps plain OpenCL C),
// nv_gemv_wg (512), nv_gemv_rows_per_warp (2), nv_gemv_groups_per_cu (2), and the shared
// kernels' tuning keys.
#include <memory>
#include <string>

#include "clport/plugin_sdk.hpp"
#include "clport_common/op_checks.hpp"
#include "clport_common/op_runner.hpp"
#include "clport_common/plugin_settings.hpp"
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
  NvidiaInstance(const clport_host& host, const clport_device_desc& d, Tuning t, nvidia::GemvConfig g)
      : runner_(host, d, std::move(t)), gemv_(host, g, d.local_mem_bytes, d.compute_units) {}

  bool supports(const clport_op& op) override { return takes_nv_gemv(op) || runner_.supports(op); }

  void enqueue(const clport_op& op) override {
    const PackedWeight* up = nullptr;
    const PackedWeight* w = nv_gemv_weights(op, &up);
    if (w == nullptr) return runner_.enqueue(op);
    // The weights are read through their packed arrays; activations, norm weight, residual and
    // dst are F32 buffers at element offsets.
    for (const clport_tensor* t : {op.src[1], op.kind == CLPORT_OP_MUL_MAT ? op.src[1] : op.src[2], op.dst}) {
      if (t->buffer == nullptr) throw clport::sdk::Failure("nvidia: operand without a buffer");
      if (t->offset % 4 != 0) throw clport::sdk::Failure("nvidia: operand offset " + std::to_string(t->offset) + " is misaligned");
    }
    gemv_.enqueue(op, *w, up);
  }

  void* prepare_weight(const clport_tensor& weight) override { return runner_.prepare_weight(weight); }
  void release_layout(void* layout) override { runner_.release_layout(layout); }

 private:
  bool takes_nv_gemv(const clport_op& op) const { return nv_gemv_weights(op, nullptr) != nullptr; }

  // The packed weights when the NVIDIA GEMV serves op (and *up, the SwiGLU's second one), else
  // NULL: a GEMV kind on weights this plugin packed, whose plain description passes the shared
  // checks (shapes, dtypes, rows for the GEMV path) and whose row fits local memory.
  const PackedWeight* nv_gemv_weights(const clport_op& op, const PackedWeight** up) const {
    if (!is_gemv_kind(op.kind) || op.n_src < 2 || op.src[0] == nullptr || op.src[1] == nullptr) return nullptr;
    if (!nvidia::NvGemv::covers(op.src[0]->dtype) || !gemv_.fits(op.src[0]->ne[0])) return nullptr;
    const PackedWeight* w = runner_.packed_layout(*op.src[0]);
    if (w == nullptr) return nullptr;
    const bool swiglu = op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU;
    const PackedWeight* u = nullptr;
    if (swiglu) {
      if (op.n_src < 4 || op.src[3] == nullptr || (u = runner_.packed_layout(*op.src[3])) == nullptr) return nullptr;
    }
    if (op.kind == CLPORT_OP_MUL_MAT && op.src[1]->ne[1] > runner_.tuning().gemv_max_m_for(op.src[0]->dtype))
      return nullptr;
    // The same checks as on the plain layout (the fused kinds also limit the rows to the GEMV's).
    clport_tensor plain_w = *op.src[0], plain_u{};
    plain_w.layout = nullptr;
    clport_op plain = op;
    plain.src[0] = &plain_w;
    if (swiglu) {
      plain_u = *op.src[3];
      plain_u.layout = nullptr;
      plain.src[3] = &plain_u;
    }
    if (!clport::plugin_common::check_op(plain, runner_.tuning()).empty()) return nullptr;
    if (up != nullptr) *up = u;
    return w;
  }

  OpRunner runner_;
  nvidia::NvGemv gemv_;
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
    return std::make_unique<NvidiaInstance>(host, d, std::move(t), g);
  }
};

}  // namespace

CLPORT_DEFINE_PLUGIN(NvidiaPlugin)
