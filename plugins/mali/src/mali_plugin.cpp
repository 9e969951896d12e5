// Arm Mali plugin. Probe: Bifrost, Valhall and 5th-gen Mali (Midgard is left to generic), from
// the classifier's family/generation. Serves the decode hot path (plugins/common's
// own_gemv_instance.hpp): MUL_MAT GEMV with its own vectorised kernels (mali_gemv.hpp), GEMM and
// RMS_NORM with per-architecture tuning (mali_config.hpp) of the shared kernels. Settings (MaliPlugin::settings):
// private_vector_arrays (a driver workaround: false builds the shared kernels with
// -DCLPORT_NO_PRIVATE_VECTOR_ARRAYS=1; the plugin's own GEMV holds no private arrays at all),
// int8_dot (default true: arm_dot for Q8_0 when the policy asks for fp16 precision), and the
// shared kernels' tuning.
#include <memory>
#include <string>
#include <vector>

#include "clport_plugin/plugin_sdk.hpp"
#include "clport_common/device_strings.hpp"
#include "clport_plugin/opencl_version.h"
#include "clport_common/own_gemv_instance.hpp"
#include "clport_common/setting_decls.hpp"
#include "clport_common/tuning.hpp"
#include "mali_config.hpp"
#include "mali_gemv.hpp"

namespace {

using clport::plugin_common::OwnGemvInstance;
using clport::plugin_common::Tuning;

// The architecture's configuration (mali_config.hpp) over the defaults; the defaults when it
// does not fit this device's work-group limit.
Tuning mali_tuning(const clport_device_desc& d) {
  Tuning t = clport::plugin_common::default_tuning(d.max_work_group_size);
  const mali::ArchConfig& a = mali::arch_config(d.generation != nullptr ? d.generation : "");
  Tuning arch = t;
  arch.gemv_wg = a.gemv_wg;
  arch.gemv_rows = a.gemv_rows;
  arch.gemm_tn = a.gemm_tn;
  arch.gemm_tm = a.gemm_tm;
  arch.gemm_rn = a.gemm_rn;
  arch.gemm_rm = a.gemm_rm;
  arch.norm_wg = a.norm_wg;
  arch.elt_wg = 64;
  return arch.validate(d.max_work_group_size).empty() ? arch : t;
}

// MUL_MAT with an F16 / Q4_0 / Q8_0 weight (the GEMV's vectorised kernels, the shared GEMM for
// prompts) and RMS_NORM.
class MaliInstance final : public OwnGemvInstance {
 public:
  MaliInstance(const clport_host& host, const clport_device_desc& d, Tuning t, mali::GemvConfig g)
      : OwnGemvInstance(host, d, std::move(t), "mali", {CLPORT_DTYPE_F16, CLPORT_DTYPE_Q4_0, CLPORT_DTYPE_Q8_0}),
        gemv_(host, d.device, std::move(g)) {}

 private:
  bool gemv_has_kernel(int32_t weight_dtype) const override { return mali::MaliGemv::has_kernel(weight_dtype); }
  void gemv_enqueue(const clport_op& op) override { gemv_.enqueue(op); }

  mali::MaliGemv gemv_;
};

mali::GemvConfig gemv_config(const clport::sdk::Host& h, const clport_device_desc& d, const Tuning& t) {
  mali::GemvConfig g;
  g.wg = t.gemv_wg;
  g.rows = t.gemv_rows < 1 ? 1 : (t.gemv_rows > 4 ? 4 : t.gemv_rows);
  g.int8_dot = h.precision() == 2 && clport::plugin_common::has_extension(d.extensions, "cl_arm_integer_dot_product_int8") &&
               h.setting_bool("int8_dot", true);
  return g;
}

struct MaliPlugin {
  static constexpr const char* kName = "mali";
  static constexpr const char* kVersion = "0.1.0";
  static constexpr bool kHasPrepareWeight = false;

  static const std::vector<clport_setting_decl>& settings() {
    using namespace clport::plugin_common;
    static const std::vector<clport_setting_decl> decls = with_tuning_settings({
        bool_setting("int8_dot",
                     "arm_dot on 8-bit activations for Q8_0 weights where the device has "
                     "cl_arm_integer_dot_product_int8 and the policy asks for fp16 precision (default true)"),
        private_vector_arrays_setting(),
    });
    return decls;
  }

  static int32_t probe(const clport_device_desc& d, const char** reason) {
    const std::string family = d.family != nullptr ? d.family : "";
    const std::string gen = d.generation != nullptr ? d.generation : "";
    if (family != "mali") {
      *reason = "not a Mali GPU";
      return 0;
    }
    if (gen == "midgard") {
      *reason = "Mali Midgard (T-series) is not served (generic kernels instead)";
      return 0;
    }
    if (clport_opencl_version(d.opencl_c_version) < 102) {
      *reason = "driver offers OpenCL C below 1.2";
      return 0;
    }
    if (gen == "valhall" || gen == "5th-gen") {
      *reason = d.has_fp16 ? "Mali Valhall / 5th gen with fp16" : "Mali Valhall / 5th gen without fp16";
      return d.has_fp16 ? 100 : 40;
    }
    if (gen == "bifrost") {
      *reason = "Mali Bifrost";
      return 70;
    }
    *reason = "Mali of unknown generation";
    return 30;
  }

  static std::unique_ptr<clport_plugin_instance> create(const clport_host& host, const clport_device_desc& d) {
    clport::sdk::Host h(host);
    Tuning t = mali_tuning(d);
    t.apply_settings(h);
    if (std::string bad = t.validate(d.max_work_group_size); !bad.empty()) {
      throw clport::sdk::Failure("mali: invalid tuning from the policy: " + bad);
    }
    mali::GemvConfig g = gemv_config(h, d, t);
    if (std::string bad = g.validate(d.max_work_group_size); !bad.empty()) {
      throw clport::sdk::Failure("mali: invalid GEMV settings: " + bad);
    }
    return std::make_unique<MaliInstance>(host, d, std::move(t), std::move(g));
  }
};

}  // namespace

CLPORT_DEFINE_PLUGIN(MaliPlugin)
