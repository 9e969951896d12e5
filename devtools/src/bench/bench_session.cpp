// Opens the device and binds the plugins for `clport bench ops`, the same way the engine does
// (policy, plugin search, DeviceBinding), but on a context with profiling switched on.
#include "bench_session.h"

#include <algorithm>
#include <sstream>

#include "engine/device_selection.h"
#include "plugins/plugin_manager.h"
#include "policy/policy.h"

namespace clport::bench::detail {
namespace {

bool looks_like_path(const std::string& spec) {
  return spec.find('/') != std::string::npos ||
         (spec.size() > 3 && spec.compare(spec.size() - 3, 3, ".so") == 0);
}

std::string describe_candidates(const DeviceBinding& binding) {
  std::ostringstream out;
  for (const auto& c : binding.candidates()) out << "; " << c.plugin << ": " << c.outcome;
  return out.str();
}

// The name of the plugin the user asked for (a file path resolves to the plugin it holds).
Result<std::string> requested_name(const PluginManager& manager, const std::string& spec) {
  if (!looks_like_path(spec)) return spec;
  for (const auto& p : manager.plugins())
    if (p->path() == spec || p->origin() == "search path") return p->name();
  for (const auto& r : manager.refusals())
    if (r.path == spec) return Status(Stage::Plugin, "plugin file " + spec + " refused: " + r.reason);
  return Status(Stage::Plugin, "plugin file " + spec + " was not loaded");
}

}  // namespace

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (mem_ != nullptr) cl_->clReleaseMemObject(mem_);
    cl_ = o.cl_;
    mem_ = o.mem_;
    o.mem_ = nullptr;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (mem_ != nullptr) cl_->clReleaseMemObject(mem_);
}

const BoundInstance* Session::instance_for(const clport_op& op) const {
  if (forced_plugin.empty()) return binding->select(op);
  for (const auto& inst : binding->instances())
    if (inst->name() == forced_plugin) return inst->supports(op) ? inst.get() : nullptr;
  return nullptr;
}

Result<Session> open_session(const OpsOptions& options) {
  DeviceInventory inventory = discover_devices();
  if (inventory.devices.empty()) return inventory.status;
  const int count = static_cast<int>(inventory.devices.size());
  const int index = options.device_index < 0 ? best_device_index(inventory.devices)
                                             : options.device_index;
  if (index < 0 || index >= count)
    return Status(Stage::InvalidArgument, "device index " + std::to_string(index) +
                                              " out of range: " + std::to_string(count) +
                                              " device(s); see `clport devices`");
  const AvailableDevice& chosen = inventory.devices[static_cast<size_t>(index)];

  Session s;
  s.device_index = index;
  s.library = chosen.library;
  auto policy = Policy::load(options.config_file);
  if (!policy.ok()) return policy.status();
  DeviceContextOptions ctx_options;
  ctx_options.profiling = true;
  ctx_options.policy_cache_dir = policy->globals().cache_dir;
  auto context = DeviceContext::create(chosen.library, chosen.info, ctx_options);
  if (!context.ok()) return context.status();
  s.context = context.value();

  PluginSearchOptions search;
  search.plugin_dir = policy->globals().plugin_dir;
  search.allow_insecure_dirs = policy->globals().allow_insecure_plugin_dirs;
  if (looks_like_path(options.plugin)) search.paths.push_back(options.plugin);
  s.manager = PluginManager::discover(search);
  s.binding = DeviceBinding::create(*s.manager, policy.value(), s.context);

  if (!options.plugin.empty()) {
    auto name = requested_name(*s.manager, options.plugin);
    if (!name.ok()) return name.status();
    const auto& instances = s.binding->instances();
    const bool bound = std::any_of(instances.begin(), instances.end(),
                                   [&](const auto& i) { return i->name() == name.value(); });
    if (!bound)
      return Status(Stage::Plugin, "plugin '" + name.value() + "' is not bound to device '" +
                                       chosen.info.name + "'" + describe_candidates(*s.binding) +
                                       " (see `clport devices`)");
    s.forced_plugin = name.value();
  } else if (!s.binding->has_device()) {
    return Status(Stage::Plugin, "no plugin serves device '" + chosen.info.name + "'" +
                                     describe_candidates(*s.binding) +
                                     "; set CLPORT_PLUGIN_PATH or pass --plugin FILE");
  }
  return s;
}

Result<DeviceBuffer> create_buffer(DeviceContext& ctx, size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem mem = ctx.cl().clCreateBuffer(ctx.context(), CL_MEM_READ_WRITE, bytes, nullptr, &err);
  if (mem == nullptr || err != CL_SUCCESS)
    return Status(Stage::OutOfMemory, "clCreateBuffer(" + std::to_string(bytes) +
                                          " bytes) failed: " + cl_error_name(err));
  return DeviceBuffer(&ctx.cl(), mem);
}

Stats summarize(std::vector<double> samples) {
  Stats s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  s.median_ms = n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.min_ms = samples.front();
  return s;
}

double span_ms(const std::vector<KernelTiming>& timings) {
  uint64_t first = 0, last = 0;
  for (const auto& t : timings) {
    if (t.start_ns == 0 || t.end_ns == 0) continue;
    if (first == 0 || t.start_ns < first) first = t.start_ns;
    last = std::max(last, t.end_ns);
  }
  return last > first ? static_cast<double>(last - first) * 1e-6 : 0.0;
}

}  // namespace clport::bench::detail
