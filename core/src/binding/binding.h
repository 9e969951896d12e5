// Binding of plugins to one device: every loaded plugin probes the device, the policy adjusts
// (deny / force / prefer), instances are created for the plugins that can serve it, and each op
// goes to the highest-ranked instance that supports it; nullptr from select() means "CPU path".
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "probe/device_info.h"
#include "clport/export.h"
#include "clport_plugin/plugin_abi.h"
#include "plugins/plugin_manager.h"
#include "policy/policy.h"
#include "clport/status.h"

namespace clport {

class DeviceContext;

// What happened to one plugin for this device (for `clport devices`).
struct PluginCandidate {
  std::string plugin;
  std::string path;
  int32_t probe_score = 0;
  std::string probe_reason;
  int32_t bonus = 0;          // from prefer rules
  int64_t rank_score = 0;     // probe_score + bonus (forced plugins rank first regardless)
  bool forced = false;
  bool bound = false;         // an instance exists
  std::string outcome;        // "bound", "denied by rule 'x'", "cannot serve", "create failed: ..."
};

// One live plugin instance; keeps its library loaded.
class CLPORT_API BoundInstance {
 public:
  // `keepalive` holds what the instance's host table points into (the DeviceContext).
  // `settings`: the policy's settings the instance was created with, described (written_settings.h).
  // `host`: the host table it was created with (a sibling shares it).
  BoundInstance(std::shared_ptr<LoadedPlugin> plugin, clport_plugin_instance* instance, int64_t rank,
                std::shared_ptr<void> keepalive, std::string settings = {}, const clport_host* host = nullptr);
  ~BoundInstance();
  BoundInstance(const BoundInstance&) = delete;
  BoundInstance& operator=(const BoundInstance&) = delete;

  const std::string& name() const { return plugin_->name(); }
  const clport_plugin& table() const { return plugin_->table(); }
  clport_plugin_instance* handle() const { return instance_; }
  int64_t rank() const { return rank_; }
  const std::string& settings() const { return settings_; }
  const std::string& path() const { return plugin_->path(); }
  bool supports(const clport_op& op) const;  // guarded: a throwing plugin says no

 private:
  friend class DeviceBinding;  // sibling_of
  std::shared_ptr<void> keepalive_;  // destroyed after the instance (declared first)
  std::shared_ptr<LoadedPlugin> plugin_;
  const clport_host* host_;
  clport_plugin_instance* instance_;
  int64_t rank_;
  std::string settings_;
};

// A weight repacked by a plugin; the layout is released with the owning instance's
// release_layout when this object dies (the instance outlives it through the shared_ptr).
class CLPORT_API WeightLayout {
 public:
  WeightLayout() = default;
  // `owns_weight`: the plugin said its layout no longer reads the plain copy.
  WeightLayout(std::shared_ptr<BoundInstance> owner, void* layout, bool owns_weight = false);
  ~WeightLayout();
  WeightLayout(WeightLayout&& other) noexcept;
  WeightLayout& operator=(WeightLayout&& other) noexcept;
  WeightLayout(const WeightLayout&) = delete;
  WeightLayout& operator=(const WeightLayout&) = delete;

  void* layout() const { return layout_; }  // NULL: plain GGUF layout
  const BoundInstance* owner() const { return owner_.get(); }
  bool owns_weight() const { return owns_weight_; }

 private:
  void reset();
  std::shared_ptr<BoundInstance> owner_;
  void* layout_ = nullptr;
  bool owns_weight_ = false;
};

// A plugin's launch of one op, prepared at plan time (prepare_launch) and released with the
// instance's release_launch when this object dies.
class CLPORT_API PreparedLaunch {
 public:
  // `keepalive` (may be null) keeps the instance alive as long as the launch.
  static Result<PreparedLaunch> prepare(const clport_plugin& table, clport_plugin_instance* instance,
                                        const std::string& plugin_name, const clport_op& op,
                                        std::shared_ptr<const void> keepalive = nullptr);
  // One launch for ops[0 .. n) in order (ABI 2.1 prepare_group). Stage::Unsupported when the
  // table has no prepare_group or the plugin does not take this sequence.
  static Result<PreparedLaunch> prepare_group(const clport_plugin& table, clport_plugin_instance* instance,
                                              const std::string& plugin_name, const std::vector<const clport_op*>& ops,
                                              std::shared_ptr<const void> keepalive = nullptr);
  ~PreparedLaunch();
  PreparedLaunch(PreparedLaunch&& other) noexcept;
  PreparedLaunch& operator=(PreparedLaunch&& other) noexcept;
  PreparedLaunch(const PreparedLaunch&) = delete;
  PreparedLaunch& operator=(const PreparedLaunch&) = delete;

  // Enqueues the launch with this step's position.
  Status enqueue(int32_t n_past) const;

 private:
  PreparedLaunch() = default;
  static PreparedLaunch adopt(const clport_plugin& table, clport_plugin_instance* instance,
                              const std::string& plugin_name, std::shared_ptr<const void> keepalive,
                              clport_launch* launch);
  void reset();
  const clport_plugin* table_ = nullptr;
  clport_plugin_instance* instance_ = nullptr;
  std::string plugin_name_;
  std::shared_ptr<const void> keepalive_;
  clport_launch* launch_ = nullptr;
};

// A one-off run of op through a plugin table: prepare_launch, enqueue_launch at op.n_past,
// release_launch. Returns the plugin status; *error is the failing call's error object (the
// caller releases it), NULL on success.
CLPORT_API int32_t enqueue_once(const clport_plugin& table, clport_plugin_instance* instance, const clport_op& op,
                                clport_plugin_error** error);

// A scratch buffer a plugin instance would hold to run an op (clport_plugin.scratch_needs).
struct ScratchNeed {
  std::string plugin;
  std::string name;  // the buffer's name, one buffer per name within the plugin
  uint64_t bytes = 0;
};

// One row of the per-op summary: which plugin serves this op / dtype ("cpu" when none).
struct OpBindingRow {
  std::string op;       // "MUL_MAT"
  std::string dtype;    // weight / input dtype ("f32", "q4_0", ...)
  std::string variant;  // "" or "gemv" / "gemm"
  std::string plugin;   // plugin name or "cpu"
};

// Builds the host table for one plugin: (the plugin, its settings as the policy writes them,
// precision code). An error (settings the plugin does not declare, ...) leaves the plugin unbound.
using HostFactory = std::function<Result<const clport_host*>(const LoadedPlugin&, const WrittenSettings&, int32_t)>;

class CLPORT_API DeviceBinding {
 public:
  // Never fails: a device nobody can serve yields a binding with no instances (every op on the
  // CPU) and the reasons in the log. `manager` receives refusals for plugins that throw.
  static std::unique_ptr<DeviceBinding> create(PluginManager& manager, const DeviceInfo& device,
                                               const DevicePolicy& policy, const HostFactory& make_host,
                                               std::shared_ptr<void> keepalive = nullptr);
  // Convenience over a DeviceContext (its make_host).
  static std::unique_ptr<DeviceBinding> create(PluginManager& manager, const Policy& policy,
                                               const std::shared_ptr<DeviceContext>& context);
  ~DeviceBinding();

  // True when at least one plugin instance is bound (otherwise: "no device", CPU path).
  bool has_device() const { return !instances_.empty(); }
  // The instance that runs `op`, nullptr for the CPU path. A weight with a layout from
  // prepare_weight goes to the instance that made the layout.
  const BoundInstance* select(const clport_op& op) const;
  // Runs `op` on the selected instance. Unsupported (CPU path) when none supports it.
  Status enqueue(const clport_op& op) const;
  // Runs `op` on an instance select() returned for it (the caller selected already).
  Status enqueue_on(const BoundInstance& instance, const clport_op& op) const;
  // Plan time: the launch of `op` on an instance select() returned for it.
  Result<PreparedLaunch> prepare_launch(const BoundInstance& instance, const clport_op& op) const;
  // Plan time: one launch for ops that select() gives to `instance`, in order; Stage::Unsupported
  // when the plugin does not group them.
  Result<PreparedLaunch> prepare_group(const BoundInstance& instance, const std::vector<const clport_op*>& ops) const;
  // Plan time, before weights are placed: the scratch the instance select() gives `op` to would
  // hold for it at 1 .. op's rows and n_past up to op.n_past (ABI 3.1 scratch_needs; none when
  // the CPU path runs op or the plugin's table predates it).
  Result<std::vector<ScratchNeed>> scratch_needs(const clport_op& op) const;
  // The shared owner of an instance of this binding (null when it is not one).
  std::shared_ptr<BoundInstance> shared(const BoundInstance* instance) const;
  // Repacks a weight for the instance that will run `kind` (MUL_MAT or GET_ROWS) on it.
  // A WeightLayout with layout() == NULL means the plain layout is used.
  Result<WeightLayout> prepare_weight(clport_op_kind kind, const clport_tensor& weight) const;
  // Whether every MUL_MAT on `weight` (carrying its layout) with 1 .. max_rows activation rows
  // goes to the plugin that made the layout. Only then is an owned weight's plain copy unread:
  // a MUL_MAT that plugin declines runs on the CPU path, from the plain copy.
  bool layout_owner_runs_every_mul_mat(const clport_tensor& weight, uint32_t max_rows) const;
  // The same for GET_ROWS of 1 .. max_rows rows of `weight` (a tied token embedding is both the
  // output projection and the lookup table).
  bool layout_owner_runs_get_rows(const clport_tensor& weight, uint32_t max_rows) const;

  const std::vector<PluginCandidate>& candidates() const { return candidates_; }
  const std::vector<std::string>& decision_log() const { return log_; }
  const DevicePolicy& policy() const { return policy_; }
  std::vector<OpBindingRow> summary() const;
  const std::vector<std::shared_ptr<BoundInstance>>& instances() const { return instances_; }
  // A second instance of a bound instance's plugin, with its host table and settings, on the same
  // device, bound to nothing. The driver self-test runs its small cases on one, so that what they
  // leave in a plugin (scratch grown to their shapes) goes with it instead of staying in the
  // instance that runs the model.
  Result<std::unique_ptr<BoundInstance>> sibling_of(const BoundInstance& instance) const;

  // For the driver self-test: takes (plugin, op kind, dtype) out of service,
  // so select() passes over that plugin for such ops (next plugin, else the CPU path).
  // dtype -1 = any; otherwise compared with op_exclusion_dtype(op). Call before weights are
  // prepared: a weight already repacked by a plugin still goes to that plugin.
  struct Exclusion {
    std::string plugin;
    int32_t op_kind = 0;
    int32_t dtype = -1;
    std::string reason;
  };
  void exclude(const std::string& plugin, int32_t op_kind, int32_t dtype, std::string reason);
  std::vector<Exclusion> exclusions() const;
  bool excluded(const std::string& plugin, const clport_op& op) const;

 private:
  DeviceBinding() = default;
  const BoundInstance* owner_of_layout(const clport_op& op) const;

  std::shared_ptr<void> keepalive_;  // the DeviceContext behind the host tables (null in tests)
  DeviceInfo device_;                // what the instances were created for
  DevicePolicy policy_;
  std::vector<PluginCandidate> candidates_;
  std::vector<std::string> log_;
  std::vector<std::shared_ptr<BoundInstance>> instances_;  // best first
  mutable std::mutex layouts_mutex_;
  mutable std::vector<std::pair<void*, std::weak_ptr<BoundInstance>>> layouts_;
  mutable std::mutex exclusions_mutex_;
  std::vector<Exclusion> exclusions_;
};

// The dtype that tells variants of an op apart for exclusions: that of the operand the op's
// registry entry names (key_source: the KV cache for the attention ops and the KV stores, the
// destination for COPY, else the first source, the weight of MUL_MAT / GET_ROWS and the fused
// mat-muls); -1 when the op has no such operand.
CLPORT_API int32_t op_exclusion_dtype(const clport_op& op);

}  // namespace clport
