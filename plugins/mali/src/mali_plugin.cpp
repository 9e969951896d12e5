// Arm Mali plugin. Probe: Bifrost, Valhall and 5th-gen Mali (Midgard is left to generic), from
// the classifier's family/generation. Serves the decode hot path (vendor_ops.hpp) with Mali
// tuning of the shared kernels; workarounds arrive as settings from configs/quirks.yaml.
#include <memory>
#include <string>

#include "clport/plugin_sdk.hpp"
#include "clport_common/op_runner.hpp"
#include "vendor_ops.hpp"

namespace {

using clport::plugin_common::OpRunner;
using clport::plugin_common::Tuning;

// Mali shader cores prefer modest work-groups (register file is split between resident
// threads); keep GEMV/norm groups at 64 with fewer rows per group.
Tuning mali_tuning(const clport_device_desc& d) {
  Tuning t = clport::plugin_common::default_tuning(d.max_work_group_size);
  Tuning small = t;
  small.gemv_wg = 64;
  small.gemv_rows = 2;
  small.norm_wg = 64;
  small.elt_wg = 64;
  return small.validate(d.max_work_group_size).empty() ? small : t;
}

class MaliInstance final : public clport_plugin_instance {
 public:
  MaliInstance(const clport_host& host, const clport_device_desc& d, Tuning t) : runner_(host, d, std::move(t)) {}
  bool supports(const clport_op& op) override { return vendor::in_served_subset(op) && runner_.supports(op); }
  void enqueue(const clport_op& op) override {
    if (!vendor::in_served_subset(op)) throw clport::sdk::unsupported("mali: op not served by this plugin");
    runner_.enqueue(op);
  }

 private:
  OpRunner runner_;
};

struct MaliPlugin {
  static constexpr const char* kName = "mali";
  static constexpr const char* kVersion = "0.1.0";
  static constexpr bool kHasPrepareWeight = false;

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
    if (vendor::opencl_c_level(d.opencl_c_version) < 12) {
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
    if (std::string bad = t.apply_overrides(h.config_yaml()); !bad.empty()) h.log(CLPORT_LOG_WARN, "mali: ignoring " + bad);
    if (std::string bad = t.validate(d.max_work_group_size); !bad.empty()) {
      throw clport::sdk::Failure("mali: invalid tuning from the policy: " + bad);
    }
    return std::make_unique<MaliInstance>(host, d, std::move(t));
  }
};

}  // namespace

CLPORT_DEFINE_PLUGIN(MaliPlugin)
