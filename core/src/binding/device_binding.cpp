// Ranking: probe every plugin, apply the policy, create instances best first.
#include <algorithm>

#include "binding/binding.h"
#include "policy/plugin_settings.h"
#include "runtime/device_context.h"
#include "common/logger.h"
#include "tuner/tuner.h"

namespace clport {
namespace {

constexpr int64_t kForcedRank = int64_t{1} << 40;  // above any probe score + bonus

// Probes without letting anything escape; returns false (with *problem) when the plugin threw.
bool guarded_probe(const LoadedPlugin& plugin, const clport_device_desc& desc, int32_t* score,
                   std::string* reason, std::string* problem) {
  try {
    const char* text = nullptr;
    *score = plugin.table().probe(&desc, &text);
    *reason = text != nullptr ? text : "";
    return true;
  } catch (const std::exception& e) {
    *problem = std::string("probe threw: ") + e.what();
  } catch (...) {
    *problem = "probe threw a non-standard exception";
  }
  return false;
}

// Creates an instance; empty string on success, else why not. *threw tells a broken plugin
// (refused) from one that declined this device.
std::string guarded_create(const LoadedPlugin& plugin, const clport_host* host,
                           const clport_device_desc& desc, clport_plugin_instance** out, bool* threw) {
  *threw = false;
  const clport_plugin& t = plugin.table();
  clport_plugin_error* error = nullptr;
  try {
    const int32_t rc = t.create(host, &desc, out, &error);
    if (rc == CLPORT_PLUGIN_OK && *out != nullptr) return "";
    std::string why = "create returned status " + std::to_string(rc);
    if (error != nullptr) {
      const char* message = t.error_message(error);
      why = message != nullptr ? message : why;
      t.release_error(error);
    }
    if (rc == CLPORT_PLUGIN_OK) why = "create returned no instance";
    return why;
  } catch (const std::exception& e) {
    *threw = true;
    return std::string("create threw: ") + e.what();
  } catch (...) {
    *threw = true;
    return "create threw a non-standard exception";
  }
}

}  // namespace

DeviceBinding::~DeviceBinding() = default;

std::unique_ptr<DeviceBinding> DeviceBinding::create(PluginManager& manager, const Policy& policy,
                                                     const std::shared_ptr<DeviceContext>& context) {
  HostFactory hosts = [ctx = context.get(), tuning = policy.globals().tuning](
                          const LoadedPlugin& plugin, const WrittenSettings& written,
                          int32_t precision) -> Result<const clport_host*> {
    // The policy's settings must validate. Stored tuner winners (core/src/tuner) go under them:
    // the policy wins, `tuning: none` ignores them, and a stored value that no longer validates
    // (tuned for another version of the plugin) is dropped with a warning: the cache must never
    // keep a plugin unbound.
    auto from_policy = check_plugin_settings(plugin.table(), written);
    if (!from_policy.ok()) return from_policy.status();
    return ctx->make_host(plugin.name(),
                          tuner::settings_with_stored(*ctx, plugin.table(), plugin.name(), from_policy.value(), tuning),
                          precision);
  };
  return create(manager, context->info(), policy.evaluate(context->info()), hosts, context);
}

std::unique_ptr<DeviceBinding> DeviceBinding::create(PluginManager& manager, const DeviceInfo& device,
                                                     const DevicePolicy& policy,
                                                     const HostFactory& make_host,
                                                     std::shared_ptr<void> keepalive) {
  std::unique_ptr<DeviceBinding> b(new DeviceBinding());
  b->keepalive_ = std::move(keepalive);
  b->device_ = device;
  b->policy_ = policy;
  auto log = logger("plugins");
  auto note = [&](std::string line) {
    log->info("{}: {}", device.name, line);
    b->log_.push_back(std::move(line));
  };
  note("device '" + device.name + "' (" + device.vendor + "), family " + device.klass.family +
       (device.klass.generation.empty() ? "" : " " + device.klass.generation) + ", driver '" +
       device.driver_version + "'");
  for (const auto& line : policy.fired) note("policy: " + line);
  for (const auto& line : policy.notes) note("policy: " + line);
  if (policy.device_denied) {
    note("device denied by policy (" + policy.deny_reason + "): every op uses the CPU path");
    return b;
  }
  if (policy.forced_plugin) {
    const bool installed = std::any_of(manager.plugins().begin(), manager.plugins().end(),
                                       [&](const auto& p) { return p->name() == *policy.forced_plugin; });
    if (!installed) note("forced plugin '" + *policy.forced_plugin + "' is not installed; ranking as usual");
  }

  const clport_device_desc desc = device.to_desc();
  std::vector<std::pair<PluginCandidate, std::shared_ptr<LoadedPlugin>>> ranked;
  for (const auto& plugin : manager.plugins()) {
    PluginCandidate c;
    c.plugin = plugin->name();
    c.path = plugin->path();
    std::string problem;
    if (!guarded_probe(*plugin, desc, &c.probe_score, &c.probe_reason, &problem)) {
      manager.add_refusal({plugin->path(), plugin->name(), problem});
      c.outcome = "refused: " + problem;
      note("plugin '" + c.plugin + "': " + c.outcome);
      b->candidates_.push_back(c);
      continue;
    }
    c.probe_score = std::max<int32_t>(c.probe_score, 0);
    note("plugin '" + c.plugin + "' probe score " + std::to_string(c.probe_score) + ": " + c.probe_reason);
    auto bonus = policy.bonus.find(c.plugin);
    c.bonus = bonus == policy.bonus.end() ? 0 : bonus->second;
    c.forced = policy.forced_plugin && *policy.forced_plugin == c.plugin;
    c.rank_score = c.probe_score + c.bonus + (c.forced ? kForcedRank : 0);
    auto denied = policy.denied.find(c.plugin);
    if (denied != policy.denied.end()) {
      c.outcome = "denied by rule '" + denied->second + "'";
    } else if (c.probe_score == 0) {
      c.outcome = c.forced ? "forced, but its probe says it cannot serve this device" : "cannot serve this device";
    } else if (c.rank_score <= 0) {
      c.outcome = "demoted to " + std::to_string(c.rank_score) + " by prefer rules";
    }
    if (!c.outcome.empty()) {
      note("plugin '" + c.plugin + "': " + c.outcome);
      b->candidates_.push_back(c);
      continue;
    }
    ranked.emplace_back(std::move(c), plugin);
  }
  // Best first; equal scores by name so the result never depends on load order.
  std::sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
    if (x.first.rank_score != y.first.rank_score) return x.first.rank_score > y.first.rank_score;
    return x.first.plugin < y.first.plugin;
  });
  for (auto& [c, plugin] : ranked) {
    const WrittenSettings& settings = policy.settings_for(c.plugin);
    const Result<const clport_host*> host = make_host(*plugin, settings, policy.precision_code());
    clport_plugin_instance* instance = nullptr;
    bool threw = false;
    if (!host.ok()) log->error("{}: {}", device.name, host.status().message());
    const std::string why = !host.ok()                ? "settings rejected: " + host.status().message()
                            : host.value() == nullptr ? "no host table for the plugin"
                                                      : guarded_create(*plugin, host.value(), desc, &instance, &threw);
    if (!why.empty()) {
      if (threw) manager.add_refusal({plugin->path(), plugin->name(), why});
      c.outcome = (threw ? "refused: " : "create failed: ") + why;
      note("plugin '" + c.plugin + "': " + c.outcome);
      b->candidates_.push_back(c);
      continue;
    }
    c.bound = true;
    c.outcome = c.forced ? "bound (forced)" : "bound";
    note("plugin '" + c.plugin + "' bound, rank " + std::to_string(b->instances_.size() + 1) +
         " (score " + std::to_string(c.probe_score) + (c.bonus ? ", bonus " + std::to_string(c.bonus) : "") + ")");
    b->instances_.push_back(
        std::make_shared<BoundInstance>(plugin, instance, c.rank_score, b->keepalive_, describe(settings),
                                        host.value()));
    b->candidates_.push_back(c);
  }
  // Report order: bound plugins best first, then the others by name.
  std::stable_sort(b->candidates_.begin(), b->candidates_.end(), [](const PluginCandidate& x, const PluginCandidate& y) {
    if (x.bound != y.bound) return x.bound;
    if (x.bound) return x.rank_score > y.rank_score;
    return x.plugin < y.plugin;
  });
  if (b->instances_.empty()) note("no plugin can serve this device: every op uses the CPU path");
  return b;
}

Result<std::unique_ptr<BoundInstance>> DeviceBinding::sibling_of(const BoundInstance& instance) const {
  if (instance.host_ == nullptr) return Status(Stage::Internal, "plugin '" + instance.name() + "': no host table kept");
  const clport_device_desc desc = device_.to_desc();
  clport_plugin_instance* sibling = nullptr;
  bool threw = false;
  const std::string why = guarded_create(*instance.plugin_, instance.host_, desc, &sibling, &threw);
  if (!why.empty()) return Status(Stage::Plugin, "plugin '" + instance.name() + "': a second instance: " + why);
  return std::make_unique<BoundInstance>(instance.plugin_, sibling, instance.rank(), keepalive_, instance.settings(),
                                         instance.host_);
}

}  // namespace clport
