// Out-of-tree test plugin on the installed shared launch code (clport::plugin_common): every op
// the shared kernels run, with default tuning under the policy's values of the shared tuning
// settings, as a vendor plugin would start before replacing what it does better. Scores above the
// generic plugin so that it is the one bound.
#include <memory>
#include <utility>
#include <vector>

#include "clport_common/op_runner.hpp"
#include "clport_common/tuning.hpp"
#include "clport_plugin/plugin_sdk.hpp"

namespace {

using clport::plugin_common::OpRunner;
using clport::plugin_common::Tuning;

class OotSharedInstance final : public clport_plugin_instance {
 public:
  OotSharedInstance(const clport_host& host, const clport_device_desc& device, Tuning tuning)
      : runner_(host, device, std::move(tuning)) {}
  bool supports(const clport_op& op) override { return runner_.supports(op); }
  void enqueue(const clport_op& op) override { runner_.enqueue(op); }
  std::vector<clport_scratch_need> scratch_needs(const clport_op& op) override { return runner_.scratch_needs(op); }

 private:
  OpRunner runner_;
};

struct OotSharedPlugin {
  static constexpr const char* kName = "oot_shared";
  static constexpr const char* kVersion = "1.0-test";
  static constexpr bool kHasPrepareWeight = false;
  static int32_t probe(const clport_device_desc&, const char** reason) {
    *reason = "out-of-tree test plugin: the shared kernels through clport::plugin_common";
    return 20;
  }
  static const std::vector<clport_setting_decl>& settings() {
    static const std::vector<clport_setting_decl> decls = clport::plugin_common::with_tuning_settings({});
    return decls;
  }
  static std::unique_ptr<clport_plugin_instance> create(const clport_host& host, const clport_device_desc& device) {
    Tuning tuning = clport::plugin_common::default_tuning(device.max_work_group_size);
    tuning.apply_settings(clport::sdk::Host(host));
    return std::make_unique<OotSharedInstance>(host, device, std::move(tuning));
  }
};

}  // namespace

CLPORT_DEFINE_PLUGIN(OotSharedPlugin)
