// Intel GPU plugin. Probe: Gen9 and newer GPUs from the classifier, with cl_intel_subgroups.
// Serves the decode hot path (vendor_ops.hpp): MUL_MAT GEMV with its own sub-group kernels
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
#include "clport_common/op_checks.hpp"
#include "clport_common/op_runner.hpp"
#include "clport_common/setting_decls.hpp"
#include "clport_common/tuning.hpp"
#include "intel_gemv.hpp"
#include "vendor_ops.hpp"

namespace {

using clport::plugin_common::OpRunner;
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

class IntelInstance final : public clport_plugin_instance {
 public:
  IntelInstance(const clport_host& host, const clport_device_desc& d, Tuning t, intel::SubgroupConfig sg)
      : runner_(host, d, std::move(t)), gemv_(host, std::move(sg)) {}
  // The sub-group GEMV takes exactly the operands the shared mul_mat takes (plain layout, whole
  // blocks per row), so check_op answers for both paths.
  bool supports(const clport_op& op) override { return vendor::in_served_subset(op) && runner_.supports(op); }
  void enqueue(const clport_op& op) override {
    if (!vendor::in_served_subset(op)) throw clport::sdk::unsupported("intel: op not served by this plugin");
    if (!takes_sub_group_gemv(op)) return runner_.enqueue(op);
    if (std::string why = clport::plugin_common::check_op(op, runner_.tuning()); !why.empty())
      throw clport::sdk::unsupported(why);
    for (const clport_tensor* t : {op.src[0], op.src[1], op.dst}) {
      if (t->buffer == nullptr) throw clport::sdk::Failure("intel: operand without a buffer");
      if (t->offset % clport::plugin_common::offset_alignment(t->dtype) != 0)
        throw clport::sdk::Failure("intel: operand offset " + std::to_string(t->offset) + " is misaligned");
    }
    gemv_.enqueue(op);
  }

 private:
  bool takes_sub_group_gemv(const clport_op& op) const {
    return op.kind == CLPORT_OP_MUL_MAT && op.src[1] != nullptr && op.src[1]->ne[1] <= runner_.tuning().gemv_max_m &&
           intel::IntelGemv::has_kernel(op.src[0]->dtype);
  }

  OpRunner runner_;
  intel::IntelGemv gemv_;
};

intel::SubgroupConfig subgroup_config(const clport::sdk::Host& h, const clport_device_desc& d) {
  intel::SubgroupConfig sg;
  sg.reqd_size = vendor::has_extension(d.extensions, "cl_intel_required_subgroup_size");
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
    if (!vendor::has_extension(d.extensions, "cl_intel_subgroups")) {
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
