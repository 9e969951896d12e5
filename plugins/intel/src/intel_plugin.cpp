// Intel GPU plugin. Probe: Gen9 and newer GPUs from the classifier, with cl_intel_subgroups.
// Serves the decode hot path (own_gemv_instance.hpp): MUL_MAT GEMV with its own sub-group kernels
// (intel_gemv.hpp), GEMM and RMS_NORM with Intel tuning of the shared kernels.
//
// Settings (policy section `intel:`, declared in IntelPlugin::settings): use_subgroups (default
// true; false builds the kernels' local-memory fallback), sg_size (default: 16 or what the device
// lists), sg_rows (rows per work-group, default 4), plus every shared-kernel tuning key
// (gemv_max_m, gemm_*, norm_wg ...).
#include <memory>
#include <string>
#include <vector>

#include "clport_plugin/plugin_sdk.hpp"
#include "clport_common/device_strings.hpp"
#include "clport_common/own_gemv_instance.hpp"
#include "clport_common/setting_decls.hpp"
#include "clport_common/tuning.hpp"
#include "intel_gemv.hpp"

namespace {

using clport::plugin_common::OwnGemvInstance;
using clport::plugin_common::Tuning;

// Intel EUs run SIMD8/16/32; 128-wide GEMV groups with 8 rows map to whole sub-groups.
Tuning intel_tuning(const clport_device_desc& d) {
  Tuning t = clport::plugin_common::default_tuning(d.max_work_group_size);
  Tuning wide = t;
  wide.gemv_wg = 128;
  wide.gemv_rows = 8;
  wide.norm_wg = 256;
  return wide.validate(d.max_work_group_size).empty() ? wide : t;
}

// MUL_MAT with an F16 / Q4_0 / Q4_1 / Q8_0 / Q4_K / Q6_K weight (the weight types with a
// sub-group GEMV in intel_gemv.cl; the shared GEMM for prompts) and RMS_NORM.
class IntelInstance final : public OwnGemvInstance {
 public:
  IntelInstance(const clport_host& host, const clport_device_desc& d, Tuning t, intel::SubgroupConfig sg)
      : OwnGemvInstance(host, d, std::move(t), "intel",
                        {CLPORT_DTYPE_F16, CLPORT_DTYPE_Q4_0, CLPORT_DTYPE_Q4_1, CLPORT_DTYPE_Q8_0, CLPORT_DTYPE_Q4_K,
                         CLPORT_DTYPE_Q6_K}),
        gemv_(host, std::move(sg)) {}

 private:
  bool gemv_has_kernel(int32_t weight_dtype) const override { return intel::IntelGemv::has_kernel(weight_dtype); }
  void gemv_enqueue(const clport_op& op) override { gemv_.enqueue(op); }

  intel::IntelGemv gemv_;
};

intel::SubgroupConfig subgroup_config(const clport::sdk::Host& h, const clport_device_desc& d) {
  intel::SubgroupConfig sg;
  sg.reqd_size = clport::plugin_common::has_extension(d.extensions, "cl_intel_required_subgroup_size");
  // Asked only when the policy leaves sg_size to the device.
  sg.sg_size = h.setting("sg_size") != nullptr ? static_cast<uint32_t>(h.setting_int("sg_size", 0))
                                                : intel::choose_sub_group_size(h.cl(), d.device);
  sg.sg_rows = static_cast<uint32_t>(h.setting_int("sg_rows", sg.sg_rows));
  if (!h.setting_bool("use_subgroups", true)) sg.extra_options = "-DCLPORT_NO_SUBGROUPS=1";
  return sg;
}

struct IntelPlugin {
  static constexpr const char* kName = "intel";
  static constexpr const char* kVersion = "0.1.0";
  static constexpr bool kHasPrepareWeight = false;

  static const std::vector<clport_setting_decl>& settings() {
    using namespace clport::plugin_common;
    static const std::vector<clport_setting_decl> decls = with_tuning_settings({
        bool_setting("use_subgroups",
                     "false builds the GEMV's local-memory reduction instead of the sub-group one (default true)"),
        int_setting("sg_size", 4, 64,
                    "lanes per sub-group of the GEMV, a power of two the device lists (default device dependent: "
                    "16, else the smallest listed size >= 8)"),
        int_setting("sg_rows", 1, 64,
                    "sub-groups (output rows) per GEMV work-group; sg_size * sg_rows <= the device's work-group "
                    "limit (default 4)"),
    });
    return decls;
  }

  static int32_t probe(const clport_device_desc& d, const char** reason) {
    const std::string family = d.family != nullptr ? d.family : "";
    const std::string gen = d.generation != nullptr ? d.generation : "";
    if (family != "intel" || (d.device_type & CL_DEVICE_TYPE_GPU) == 0) {
      *reason = "not an Intel GPU";
      return 0;
    }
    if (!clport::plugin_common::has_extension(d.extensions, "cl_intel_subgroups")) {
      *reason = "Intel GPU without cl_intel_subgroups (Beignet-era driver?)";
      return 0;
    }
    if (gen == "xe" || gen == "xe-lpg" || gen == "xe-hpg" || gen == "xe2") {
      *reason = "Intel Xe-class GPU with cl_intel_subgroups";
      return 100;
    }
    if (gen == "gen9" || gen == "gen11") {
      *reason = "Intel Gen9/Gen11 GPU with cl_intel_subgroups";
      return 80;
    }
    *reason = "Intel GPU of unknown generation with cl_intel_subgroups";
    return 50;
  }

  static std::unique_ptr<clport_plugin_instance> create(const clport_host& host, const clport_device_desc& d) {
    clport::sdk::Host h(host);
    Tuning t = intel_tuning(d);
    t.apply_settings(h);
    if (std::string bad = t.validate(d.max_work_group_size); !bad.empty()) {
      throw clport::sdk::Failure("intel: invalid tuning from the policy: " + bad);
    }
    intel::SubgroupConfig sg = subgroup_config(h, d);
    if (std::string bad = sg.validate(d.max_work_group_size); !bad.empty()) {
      throw clport::sdk::Failure("intel: invalid sub-group settings: " + bad);
    }
    return std::make_unique<IntelInstance>(host, d, std::move(t), std::move(sg));
  }
};

}  // namespace

CLPORT_DEFINE_PLUGIN(IntelPlugin)
