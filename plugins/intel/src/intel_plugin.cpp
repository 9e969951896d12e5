// Intel GPU plugin. Probe: Gen9 and newer GPUs from the classifier, with cl_intel_subgroups
// (the sub-group kernels of issue 6 need it; PoCL implements it, so they run here too). Serves
// the decode hot path (vendor_ops.hpp) with Intel tuning of the shared kernels.
#include <memory>
#include <string>

#include "clport/plugin_sdk.hpp"
#include "clport_common/op_runner.hpp"
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
  IntelInstance(const clport_host& host, const clport_device_desc& d, Tuning t) : runner_(host, d, std::move(t)) {}
  bool supports(const clport_op& op) override { return vendor::in_served_subset(op) && runner_.supports(op); }
  void enqueue(const clport_op& op) override {
    if (!vendor::in_served_subset(op)) throw clport::sdk::unsupported("intel: op not served by this plugin");
    runner_.enqueue(op);
  }

 private:
  OpRunner runner_;
};

struct IntelPlugin {
  static constexpr const char* kName = "intel";
  static constexpr const char* kVersion = "0.1.0";
  static constexpr bool kHasPrepareWeight = false;

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
    if (std::string bad = t.apply_overrides(h.config_yaml()); !bad.empty()) h.log(CLPORT_LOG_WARN, "intel: ignoring " + bad);
    if (std::string bad = t.validate(d.max_work_group_size); !bad.empty()) {
      throw clport::sdk::Failure("intel: invalid tuning from the policy: " + bad);
    }
    return std::make_unique<IntelInstance>(host, d, std::move(t));
  }
};

}  // namespace

CLPORT_DEFINE_PLUGIN(IntelPlugin)
