// conformance::run: loads OpenCL, picks the device, loads and binds the plugin (through the
// plugin manager), then runs every catalogue case the plugin supports against cpu::run_op.
#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <utility>

#include "binding/binding.h"
#include "conformance/conformance.h"
#include "ops/cpu_ops.h"
#include "runtime/device_context.h"
#include "common/logger.h"
#include "common/nmse.h"
#include "loader/opencl_loader.h"
#include "ops/op_registry.h"
#include "plugins/plugin_manager.h"
#include "conformance_cases.h"
#include "conformance_groups.h"
#include "conformance_operands.h"
#include "quantized_activations.h"

namespace clport::conformance {
namespace {

using detail::CaseSpec;
using detail::Operand;


// A created plugin instance, destroyed with the plugin's own destroy().
struct Instance {
  std::shared_ptr<LoadedPlugin> plugin;
  clport_plugin_instance* handle = nullptr;
  ~Instance() {
    if (handle != nullptr) plugin->table().destroy(handle);
  }
};

Result<std::shared_ptr<LoadedPlugin>> find_plugin(const std::string& spec) {
  std::string reason;
  const bool is_path = spec.find('/') != std::string::npos ||
                       (spec.size() > 3 && spec.compare(spec.size() - 3, 3, ".so") == 0);
  if (is_path) {
    auto p = PluginManager::load_file(spec, "command line", false, &reason);
    if (p == nullptr) return Status(Stage::Plugin, "plugin file " + spec + " refused: " + reason);
    return p;
  }
  auto manager = PluginManager::discover(PluginSearchOptions{});
  for (const auto& p : manager->plugins())
    if (p->name() == spec) return p;
  std::ostringstream msg;
  msg << "no plugin named '" << spec << "' found (searched:";
  for (const auto& s : manager->searched()) msg << " " << s;
  msg << "); pass a file path or set CLPORT_PLUGIN_PATH";
  for (const auto& r : manager->refusals())
    if (r.plugin == spec) msg << "; " << r.path << " was refused: " << r.reason;
  return Status(Stage::Plugin, msg.str());
}

class CaseRunner {
 public:
  CaseRunner(DeviceContext& ctx, const clport_plugin& table, clport_plugin_instance* inst,
             uint64_t seed)
      : ctx_(ctx), table_(table), inst_(inst), rng_(seed) {}

  detail::CaseSpec const* current = nullptr;

  CaseResult run(const CaseSpec& spec) {
    CaseResult r;
    r.name = spec.name();
    r.op = spec.op;
    r.dtype = spec.dtype;
    r.shape = spec.shape;
    r.threshold = spec.threshold;
    std::vector<Operand> src;
    for (const auto& s : spec.src) src.push_back(detail::make_operand(s, false, rng_));
    Operand dst = detail::make_operand(spec.dst, true, rng_);

    // Ask first, with no buffers: only kinds, dtypes, shapes and params count.
    std::vector<clport_tensor> views;
    clport_op op = make_op(spec, src, dst, false, views);
    r.kind = op.kind;
    r.key_dtype = op_exclusion_dtype(op);
    // A fused mat-mul may be served only on the weight layout the plugin makes at load (as in a
    // model, whose weights are all prepared): then the answer comes after preparing them.
    const bool plain_supported = table_.claim_op(inst_, &op) != 0;
    if (!plain_supported && !(table_.prepare_weight != nullptr && is_fused_mat_mul(op.kind))) {
      r.message = "not supported by the plugin";
      return r;
    }
    r.supported = true;
    Status st = execute(spec, src, dst, r, plain_supported);
    for (Operand* o : all(src, dst))
      if (o->buffer != nullptr) ctx_.cl().clReleaseMemObject(o->buffer);
    if (st.stage() == Stage::Unsupported) {
      r.supported = false;
      r.message = "not supported by the plugin";
      return r;
    }
    if (!st.ok()) r.message = st.message();
    r.passed = st.ok();
    return r;
  }

 private:
  static std::vector<Operand*> all(std::vector<Operand>& src, Operand& dst) {
    std::vector<Operand*> v;
    for (auto& s : src) v.push_back(&s);
    v.push_back(&dst);
    return v;
  }

  static clport_op make_op(const CaseSpec& spec, const std::vector<Operand>& src,
                           const Operand& dst, bool with_buffers, std::vector<clport_tensor>& views) {
    views.clear();
    views.reserve(src.size() + 1);
    for (const auto& s : src) views.push_back(s.device_view(with_buffers));
    views.push_back(dst.device_view(with_buffers));
    clport_op op{};
    op.struct_size = sizeof(clport_op);
    op.kind = spec.kind;
    op.n_src = static_cast<int32_t>(src.size());
    for (size_t i = 0; i < src.size(); ++i) op.src[i] = &views[i];
    op.dst = &views.back();
    op.n_past = spec.params.n_past;
    op.params = spec.params.abi();
    return op;
  }

  static bool is_fused_mat_mul(int32_t kind) {
    const ops::OpEntry* op = ops::find(kind);
    return op != nullptr && op->fused && op->mat_mul;
  }

  Status execute(const CaseSpec& spec, std::vector<Operand>& src, Operand& dst, CaseResult& r, bool plain_supported) {
    const clport_cl_api& cl = ctx_.cl();
    for (Operand* o : all(src, dst)) {
      cl_int err = CL_SUCCESS;
      o->buffer = cl.clCreateBuffer(ctx_.context(), CL_MEM_READ_WRITE, o->initial.size(), nullptr, &err);
      if (o->buffer == nullptr || err != CL_SUCCESS)
        return Status(Stage::OutOfMemory, std::string("clCreateBuffer failed: ") + cl_error_name(err));
      CLPORT_RETURN_IF_ERROR(ctx_.write(o->buffer, 0, o->initial.data(), o->initial.size()));
    }
    // Reference on the host copies.
    detail::HostReference host;
    Status ref = detail::run_host_reference(spec, src, dst, false, &host);
    if (!ref.ok()) return Status(Stage::Internal, "CPU reference failed: " + ref.to_string());
    const std::vector<std::vector<uint8_t>>& host_src = host.src;
    const std::vector<uint8_t>& host_dst = host.dst;

    std::vector<clport_tensor> views;
    clport_op op = make_op(spec, src, dst, true, views);
    // The layouts are released on every way out, after the queue has drained.
    std::vector<void*> layouts;
    std::unique_ptr<std::vector<void*>, std::function<void(std::vector<void*>*)>> release(
        &layouts, [this](std::vector<void*>* all) { release_layouts(*all); });
    CLPORT_RETURN_IF_ERROR(prepare_weights(op, views, plain_supported, layouts));
    r.prepared = !layouts.empty();
    (void)ctx_.take_timings();  // only this case's kernels below
    const auto t0 = std::chrono::steady_clock::now();
    clport_plugin_error* error = nullptr;
    const int32_t rc = enqueue_once(table_, inst_, op, &error);
    if (rc != CLPORT_PLUGIN_OK)
      return Status(Stage::Plugin,
                    "the launch returned " + std::to_string(rc) + ": " + detail::take_plugin_error(table_, error));
    CLPORT_RETURN_IF_ERROR(ctx_.finish());
    r.millis = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (const KernelTiming& t : ctx_.take_timings())
      if (std::find(r.kernels.begin(), r.kernels.end(), t.name) == r.kernels.end()) r.kernels.push_back(t.name);

    std::vector<uint8_t> got(dst.initial.size());
    CLPORT_RETURN_IF_ERROR(ctx_.read(dst.buffer, 0, got.data(), got.size()));
    for (size_t i = 0; i < src.size(); ++i) {
      std::vector<uint8_t> after(src[i].initial.size());
      CLPORT_RETURN_IF_ERROR(ctx_.read(src[i].buffer, 0, after.data(), after.size()));
      if (static_cast<int>(i) == spec.inout_src) {
        const std::vector<float> want = detail::gather_values(src[i], host_src[i]);
        const std::vector<float> have = detail::gather_values(src[i], after);
        const double e = nmse(want.data(), have.data(), want.size());
        if (!(e <= spec.threshold))
          return Status(Stage::Device, "updated input " + std::to_string(i) + ": NMSE " + std::to_string(e) +
                                           " above threshold");
        if (std::string damage = detail::check_untouched(src[i], after); !damage.empty())
          return Status(Stage::Device, "updated input " + std::to_string(i) + ": " + damage);
        continue;
      }
      if (after != src[i].initial)
        return Status(Stage::Device, "input " + std::to_string(i) + " was modified by the op");
    }
    if (std::string damage = detail::check_untouched(dst, got); !damage.empty())
      return Status(Stage::Device, damage);
    const std::vector<float> want = detail::gather_values(dst, host_dst);
    const std::vector<float> have = detail::gather_values(dst, got);
    r.nmse = nmse(want.data(), have.data(), want.size());
    if (!(r.nmse <= spec.threshold) && detail::takes_quantized_activations(spec, src)) {
      // An integer mat-mul on 8-bit activations (quantized_activations.h).
      auto want_q = detail::quantized_activation_reference(spec, src, dst);
      if (!want_q.ok()) return want_q.status();
      bool float_bounded = false;
      const std::string why = detail::judge_quantized_activations(spec, r.nmse, have, want_q.value(),
                                                                  &r.nmse_quantized, &float_bounded);
      // The threshold column is what the float NMSE was held to (none: infinity).
      r.threshold = float_bounded ? detail::kQuantizedActivationNmse : std::numeric_limits<double>::infinity();
      return why.empty() ? Status() : Status(Stage::Device, why);
    }
    if (!(r.nmse <= spec.threshold)) {
      std::ostringstream m;
      m << "NMSE " << r.nmse << " above threshold " << spec.threshold;
      for (size_t i = 0; i < want.size(); ++i) {
        if (want[i] != have[i] && !(spec.threshold > 0 && std::abs(want[i] - have[i]) <= 1e-3f * std::abs(want[i]))) {
          m << "; first mismatch at element " << i << ": expected " << want[i] << ", got " << have[i];
          break;
        }
      }
      return Status(Stage::Device, m.str());
    }
    return Status();
  }

  void release_layouts(std::vector<void*>& layouts) {
    if (layouts.empty()) return;
    (void)ctx_.finish();
    for (void* l : layouts) table_.release_layout(inst_, l);
    layouts.clear();
  }

  // The weights of an op (its registry entry's weight_sources: src0 of MUL_MAT, GET_ROWS and the
  // fused mat-muls, and the SwiGLU's up weight src3) go through the plugin's prepare_weight when
  // it has one, as a model's weights do at load: the case then checks the kernels of the
  // plugin's own layout. Layouts made are put into the views and appended to `layouts`. A fused op the plugin does not take on its prepared weights runs
  // on the plain ones when it takes those (plain_supported), else is Stage::Unsupported. A
  // weight the plugin says its layout owns reaches the op without its plain buffer, as a
  // model's does once the host freed it: the case then shows that nothing reads it.
  Status prepare_weights(clport_op& op, std::vector<clport_tensor>& views, bool plain_supported,
                         std::vector<void*>& layouts) {
    const bool fused = is_fused_mat_mul(op.kind);
    const ops::OpEntry* entry = ops::find(op.kind);
    std::vector<int> weights;
    for (int i = 0; entry != nullptr && i < op.n_src; ++i)
      if ((entry->weight_sources >> i) & 1u) weights.push_back(i);
    if (table_.prepare_weight == nullptr || weights.empty()) return Status();
    std::vector<cl_mem> plain(views.size(), nullptr);
    for (int i : weights) {
      void* layout = nullptr;
      int32_t owns_weight = 0;
      clport_plugin_error* error = nullptr;
      const int32_t rc = table_.prepare_weight(inst_, &views[i], &layout, &owns_weight, &error);
      if (rc == CLPORT_PLUGIN_UNSUPPORTED) {
        if (error != nullptr) detail::take_plugin_error(table_, error);
        continue;
      }
      if (rc != CLPORT_PLUGIN_OK)
        return Status(Stage::Plugin, "prepare_weight returned " + std::to_string(rc) + ": " +
                                         detail::take_plugin_error(table_, error));
      if (layout == nullptr) continue;
      views[i].layout = layout;
      layouts.push_back(layout);
      if (owns_weight != 0) std::swap(plain[i], views[i].buffer);
    }
    if (layouts.empty() || table_.claim_op(inst_, &op)) {
      if (layouts.empty() && !plain_supported) return Status(Stage::Unsupported, "not supported by the plugin");
      return Status();
    }
    if (!fused) return Status(Stage::Plugin, "the plugin does not support the op on the weight it prepared");
    release_layouts(layouts);
    for (int i : weights) {
      views[i].layout = nullptr;
      if (plain[i] != nullptr) views[i].buffer = plain[i];
    }
    return plain_supported ? Status() : Status(Stage::Unsupported, "not supported by the plugin");
  }

  DeviceContext& ctx_;
  const clport_plugin& table_;
  clport_plugin_instance* inst_;
  std::mt19937_64 rng_;
};

// Options::filter: cases whose name contains any of its '|'-separated parts (all when empty).
bool selected(const std::string& filter, const std::string& name) {
  if (filter.empty()) return true;
  size_t from = 0;
  while (from <= filter.size()) {
    const size_t bar = std::min(filter.find('|', from), filter.size());
    const std::string part = filter.substr(from, bar - from);
    if (!part.empty() && name.find(part) != std::string::npos) return true;
    from = bar + 1;
  }
  return false;
}

// The dtype a case's op is taken out of service by (op_exclusion_dtype), from the spec alone.
int32_t case_key_dtype(const CaseSpec& spec) {
  std::array<clport_tensor, 5> tensors{};
  clport_op op{};
  op.kind = spec.kind;
  op.n_src = static_cast<int32_t>(std::min<size_t>(spec.src.size(), 4));
  for (int32_t i = 0; i < op.n_src; ++i) {
    tensors[static_cast<size_t>(i)].dtype = static_cast<int32_t>(spec.src[static_cast<size_t>(i)].dtype);
    op.src[i] = &tensors[static_cast<size_t>(i)];
  }
  tensors[4].dtype = static_cast<int32_t>(spec.dst.dtype);
  op.dst = &tensors[4];
  return op_exclusion_dtype(op);
}

bool accepted(const Options& options, const CaseSpec& spec) {
  return selected(options.filter, spec.name()) &&
         (!options.case_filter || options.case_filter(spec.kind, case_key_dtype(spec)));
}

Result<Report> run_impl(const Options& options) {
  LoadReport load = load_opencl();
  if (load.library == nullptr) return load.status;
  auto devices = probe_all_devices(load.library->api());
  if (!devices.ok()) return devices.status();
  if (options.device_index < 0 || options.device_index >= static_cast<int>(devices->size()))
    return Status(Stage::InvalidArgument, "device index " + std::to_string(options.device_index) +
                                              " out of range: " + std::to_string(devices->size()) +
                                              " device(s); see `clport devices`");
  DeviceInfo info = (*devices)[static_cast<size_t>(options.device_index)];
  auto plugin = find_plugin(options.plugin);
  if (!plugin.ok()) return plugin.status();
  const clport_plugin& table = plugin.value()->table();

  DeviceContextOptions context_options;
  context_options.profiling = options.record_kernels;
  auto ctx = DeviceContext::create(load.library, info, context_options);
  if (!ctx.ok()) return ctx.status();
  const DeviceInfo& dev = ctx.value()->info();
  const clport_device_desc desc = dev.to_desc();
  const char* reason = nullptr;
  const int32_t score = table.probe(&desc, &reason);
  if (score <= 0)
    return Status(Stage::Plugin, "plugin " + options.plugin + " declines device '" + dev.name +
                                     "': " + (reason ? reason : "no reason given"));
  auto settings = check_plugin_settings(table, options.settings);
  if (!settings.ok()) return settings.status();
  const clport_host* host = ctx.value()->make_host(plugin.value()->name(), settings.value(), options.precision);
  Instance inst;
  inst.plugin = plugin.value();
  clport_plugin_error* error = nullptr;
  if (table.create(host, &desc, &inst.handle, &error) != CLPORT_PLUGIN_OK || inst.handle == nullptr) {
    inst.handle = nullptr;
    return Status(Stage::Plugin, "plugin create failed: " + detail::take_plugin_error(table, error));
  }

  Report report;
  report.plugin = plugin.value()->name();
  report.plugin_version = plugin.value()->version();
  report.plugin_path = plugin.value()->path();
  report.device = dev.name + " (" + dev.platform_name + ", " + dev.driver_version + ")";
  report.seed = options.seed != 0 ? options.seed
                                  : static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  CaseRunner runner(*ctx.value(), table, inst.handle, report.seed);
  auto log = logger("conformance");
  const auto count = [&](CaseResult r) {
    if (!r.supported) {
      ++report.unsupported;
    } else if (r.passed) {
      ++report.passed;
    } else {
      ++report.failed;
      log->error("{}: {}", r.name, r.message);
    }
    report.cases.push_back(std::move(r));
  };
  for (const CaseSpec& spec : detail::catalogue(options.small)) {
    if (accepted(options, spec)) count(runner.run(spec));
  }
  // Plan groups the plugin may take (ABI 2.1), after the single ops.
  std::mt19937_64 group_rng(report.seed + 1);
  for (const detail::LayerGroupSpec& spec : detail::layer_group_catalogue(options.small)) {
    if (!selected(options.filter, spec.name())) continue;
    CaseResult r = detail::run_layer_group(*ctx.value(), table, inst.handle, spec, group_rng);
    if (r.supported) {
      count(std::move(r));
    } else {
      ++report.groups_not_taken;
      report.cases.push_back(std::move(r));
    }
  }
  return report;
}

}  // namespace

Result<Report> run(const Options& options) {
  try {
    return run_impl(options);
  } catch (const std::exception& e) {
    return Status(Stage::Internal, std::string("conformance run failed: ") + e.what());
  }
}

// Appended for the driver self-test: the same case loop as run_impl over a caller's instance.
Report run_on_instance(DeviceContext& context, const clport_plugin& table, clport_plugin_instance* instance,
                       const Options& options) {
  Report report;
  report.device = context.info().name;
  report.seed = options.seed != 0 ? options.seed
                                  : static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  CaseRunner runner(context, table, instance, report.seed);
  const std::vector<CaseSpec> catalogue = detail::catalogue(options.small);
  std::vector<const CaseSpec*> chosen;
  for (const CaseSpec& spec : catalogue)
    if (accepted(options, spec)) chosen.push_back(&spec);
  size_t done = 0;
  for (const CaseSpec* case_spec : chosen) {
    const CaseSpec& spec = *case_spec;
    if (options.progress) options.progress(done, chosen.size());
    ++done;
    CaseResult r;
    try {
      r = runner.run(spec);
    } catch (const std::exception& e) {
      r.name = spec.name();
      r.op = spec.op;
      r.dtype = spec.dtype;
      r.shape = spec.shape;
      r.kind = spec.kind;
      r.supported = true;
      r.message = std::string("case threw: ") + e.what();
    }
    if (!r.supported) {
      ++report.unsupported;
    } else if (r.passed) {
      ++report.passed;
    } else {
      ++report.failed;
    }
    report.cases.push_back(std::move(r));
  }
  if (options.progress) options.progress(chosen.size(), chosen.size());
  return report;
}

}  // namespace clport::conformance
