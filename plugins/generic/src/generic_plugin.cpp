// The generic plugin: every op on any conformant OpenCL 1.2 device, through the shared kernels
// and the launch code in plugins/common with default tuning (overridable from the plugin's
// policy section, e.g. "gemv_wg: 128"; the settings are plugins/common's tuning_settings() and
// private_vector_arrays). Low probe score, so any vendor plugin that serves a device wins and
// this one remains the per-op fallback.
#include <memory>
#include <string>
#include <vector>

#include "clport_plugin/opencl_version.h"
#include "clport_plugin/plugin_sdk.hpp"
#include "clport_common/op_runner.hpp"
#include "clport_common/tuning.hpp"

namespace {

using clport::plugin_common::OpRunner;
using clport::plugin_common::Tuning;

class GenericInstance final : public clport_plugin_instance {
 public:
  GenericInstance(const clport_host& host, const clport_device_desc& device, Tuning tuning)
      : runner_(host, device, std::move(tuning)) {}
  bool supports(const clport_op& op) override { return runner_.supports(op); }
  void enqueue(const clport_op& op) override { runner_.enqueue(op); }
  std::vector<clport_scratch_need> scratch_needs(const clport_op& op) override { return runner_.scratch_needs(op); }
  // The packed GEMV layout for Q4_0 / Q4_1 / Q8_0 weights when the policy enables it
  // (gemv_packed: 1); otherwise weights stay in the plain GGUF layout.
  void* prepare_weight(const clport_tensor& weight) override { return runner_.prepare_weight(weight); }
  // The eight-row layout of CPU devices serves every mat-mul on its weight: the plain copy can go.
  bool owns_weight(const void* layout) const override { return runner_.owns_weight(layout); }
  void release_layout(void* layout) override { runner_.release_layout(layout); }

 private:
  OpRunner runner_;
};

struct GenericPlugin {
  static constexpr const char* kName = "generic";
  static constexpr const char* kVersion = "0.1.0";
  static constexpr bool kHasPrepareWeight = true;

  // Every kernel it runs is a shared one, so it honours private_vector_arrays everywhere.
  static const std::vector<clport_setting_decl>& settings() {
    static const std::vector<clport_setting_decl> decls =
        clport::plugin_common::with_tuning_settings({clport::plugin_common::private_vector_arrays_setting()});
    return decls;
  }

  static int32_t probe(const clport_device_desc& d, const char** reason) {
    if (clport_opencl_version(d.device_version) < 102) {
      *reason = "device is older than OpenCL 1.2";
      return 0;
    }
    if (d.opencl_c_version != nullptr && clport_opencl_version(d.opencl_c_version) < 102) {
      *reason = "device compiler is older than OpenCL C 1.2";
      return 0;
    }
    if (d.max_work_group_size < 16) {
      *reason = "max work-group size below 16";
      return 0;
    }
    *reason = "portable OpenCL 1.2 kernels (fallback for every conformant device)";
    return 10;
  }

  static std::unique_ptr<clport_plugin_instance> create(const clport_host& host,
                                                        const clport_device_desc& device) {
    clport::sdk::Host h(host);
    Tuning tuning = clport::plugin_common::default_tuning(device.max_work_group_size);
    tuning.apply_settings(h);
    // The kernels keep half as storage only (vload_half/vstore_half): correct everywhere, and
    // the precision the CPU reference checks. fp16 compute is not implemented here.
    if (host.precision == 2)
      h.log(CLPORT_LOG_INFO, "generic: fp16 requested; generic kernels compute in fp32 "
                             "(half is storage only)");
    return std::make_unique<GenericInstance>(host, device, std::move(tuning));
  }
};

}  // namespace

CLPORT_DEFINE_PLUGIN(GenericPlugin)
