// describe_plugins (plugins_report.h): for one device, every plugin's probe score and reason,
// every policy rule that fired, plugin files that were refused, and the final per-op binding —
// the same decision the runtime makes (same policy, same search, same DeviceBinding).
#include <iomanip>
#include <map>
#include <optional>

#include "binding/binding.h"
#include "runtime/device_context.h"
#include "selftest/device_failure.h"
#include "plugins/plugin_manager.h"
#include "policy/policy.h"
#include "selftest/self_test.h"
#include "report/plugins_report.h"
#include "ops/op_registry.h"

namespace clport::report {
namespace {

using nlohmann::json;

// "MUL_MAT gemv" -> plugin -> dtypes, so the binding reads as a few lines per op.
using Grouped = std::vector<std::pair<std::string, std::map<std::string, std::vector<std::string>>>>;
Grouped group_rows(const std::vector<OpBindingRow>& rows) {
  Grouped out;
  for (const auto& row : rows) {
    const std::string key = row.op + (row.variant.empty() ? "" : " " + row.variant);
    if (out.empty() || out.back().first != key) out.push_back({key, {}});
    out.back().second[row.plugin].push_back(row.dtype);
  }
  return out;
}

void write_text(std::ostream& o, const Policy& policy, const PluginManager& manager, const DeviceBinding& b,
                const std::string& context_problem) {
  o << "  policy layers:    ";
  for (size_t i = 0; i < policy.layers().size(); ++i) o << (i ? ", " : "") << policy.layers()[i];
  o << "\n  rules fired:      " << (b.policy().fired.empty() ? "(none)" : "") << "\n";
  for (const auto& line : b.policy().fired) o << "    " << line << "\n";
  for (const auto& line : b.policy().notes) o << "    note: " << line << "\n";
  o << "  precision:        " << precision_name(b.policy().precision) << "\n";
  if (!context_problem.empty()) o << "  context:          " << context_problem << "\n";
  o << "  plugins:          " << (b.candidates().empty() ? "(none installed)" : "") << "\n";
  for (const auto& c : b.candidates()) {
    o << "    " << std::left << std::setw(10) << c.plugin << " score " << std::setw(4) << c.probe_score;
    if (c.bonus != 0) o << " (" << (c.bonus > 0 ? "+" : "") << c.bonus << ")";
    o << "  " << c.outcome << "  -- " << c.probe_reason << "\n";
  }
  o << "  plugin search:   ";
  for (const auto& dir : manager.searched()) o << " " << dir << ";";
  o << "\n";
  if (!manager.refusals().empty()) {
    o << "  refused plugin files:\n";
    for (const auto& r : manager.refusals()) {
      o << "    " << r.path << (r.plugin.empty() ? "" : " (" + r.plugin + ")") << ": " << r.reason << "\n";
    }
  }
  o << "  binding:          " << (b.has_device() ? "" : "no plugin: every op on the CPU") << "\n";
  if (!b.has_device()) return;
  for (const auto& [op, by_plugin] : group_rows(b.summary())) {
    o << "    " << std::left << std::setw(15) << op << ' ';  // a label of 15 or more still gets its space
    bool first = true;
    for (const auto& [plugin, dtypes] : by_plugin) {
      o << (first ? "" : "; ") << plugin;
      if (by_plugin.size() > 1 || dtypes.size() > 1) {
        o << " (";
        for (size_t i = 0; i < dtypes.size(); ++i) o << (i ? ", " : "") << dtypes[i];
        o << ")";
      }
      first = false;
    }
    o << "\n";
  }
}

json to_json(const Policy& policy, const PluginManager& manager, const DeviceBinding& b,
             const std::string& context_problem) {
  json plugins = json::array();
  for (const auto& c : b.candidates()) {
    plugins.push_back({{"name", c.plugin}, {"path", c.path}, {"score", c.probe_score},
                       {"reason", c.probe_reason}, {"bonus", c.bonus}, {"forced", c.forced},
                       {"bound", c.bound}, {"outcome", c.outcome}});
  }
  json refusals = json::array();
  for (const auto& r : manager.refusals()) refusals.push_back({{"path", r.path}, {"plugin", r.plugin}, {"reason", r.reason}});
  json binding = json::array();
  for (const auto& row : b.summary()) {
    binding.push_back({{"op", row.op}, {"dtype", row.dtype}, {"variant", row.variant}, {"plugin", row.plugin}});
  }
  json searched = json::array();
  for (const auto& s : manager.searched()) searched.push_back(s);
  return json{{"policy", {{"layers", policy.layers()}, {"rules_fired", b.policy().fired},
                          {"notes", b.policy().notes}, {"precision", precision_name(b.policy().precision)},
                          {"device_denied", b.policy().device_denied}}},
              {"context_error", context_problem},
              {"plugins", plugins},
              {"plugin_search", searched},
              {"plugin_refusals", refusals},
              {"has_device", b.has_device()},
              {"binding", binding},
              {"decision_log", b.decision_log()}};
}

// The driver self-test's cached verdict (core/src/selftest): failures and where the op went.
void write_self_test(std::ostream& o, const selftest::Verdict& v) {
  o << "  self-test:        ";
  if (v.source == selftest::Verdict::Source::Skipped) {
    o << v.note << "\n";
    return;
  }
  o << v.passed() << " passed, " << v.failed() << " failed (" << selftest::source_name(v.source)
    << (v.file.empty() ? "" : ", " + v.file) << ")\n";
  for (const auto& line : v.rebound) o << "    " << line << "\n";
}

json self_test_json(const selftest::Verdict& v) {
  json failures = json::array();
  for (const auto& c : v.cases)
    if (!c.passed) failures.push_back({{"plugin", c.plugin}, {"op", op_kind_name(c.op_kind)}, {"case", c.name}, {"message", c.message}});
  return json{{"source", selftest::source_name(v.source)}, {"file", v.file}, {"note", v.note},
              {"passed", v.passed()}, {"failed", v.failed()}, {"failures", failures}, {"rebound", v.rebound}};
}

}  // namespace

void describe_plugins(const std::shared_ptr<OpenClLibrary>& library, const DeviceInfo& device,
                      const Policy& policy, PluginManager& manager, const std::string& cache_dir,
                      std::ostream* text, nlohmann::json* out) {
  try {
    std::unique_ptr<DeviceBinding> binding;
    std::string context_problem;
    const DevicePolicy device_policy = policy.evaluate(device);
    DeviceContextOptions context_options;
    context_options.cache_dir = cache_dir;                             // the application's, if any
    context_options.policy_cache_dir = policy.globals().cache_dir;  // the verdict `run` reads
    auto context = device_policy.device_denied ? Result<std::shared_ptr<DeviceContext>>(Status(Stage::DeviceUnusable, "denied by policy"))
                                               : DeviceContext::create(library, device, context_options);
    selftest::Verdict verdict;  // driver self-test section: the cached verdict only
    std::optional<DeviceFailureRecord> failure;  // a failure during an earlier run
    if (context.ok()) {
      binding = DeviceBinding::create(manager, policy, context.value());
      failure = find_device_failure(*context.value(), *binding);
      selftest::Options st;
      st.mode = policy.globals().self_test == SelfTestMode::Off ? SelfTestMode::Off : SelfTestMode::Auto;
      st.run_if_missing = false;  // `clport devices` reports; the first model start tests
      verdict = selftest::run(*context.value(), *binding, st);
    } else {
      // Without a context nothing can be created; still show what each plugin's probe says.
      if (!device_policy.device_denied) context_problem = context.status().to_string();
      HostFactory none = [](const LoadedPlugin&, const WrittenSettings&, int32_t) -> Result<const clport_host*> {
        return static_cast<const clport_host*>(nullptr);
      };
      binding = DeviceBinding::create(manager, device, device_policy, none);
    }
    if (text) write_text(*text, policy, manager, *binding, context_problem);
    if (text && context.ok()) write_self_test(*text, verdict);
    if (text && failure) {
      *text << "  avoided:          failed during an earlier run (" << failure->when << ": " << failure->what
            << "); `run` binds the CPU path until the driver, clport or the plugins change (" << failure->file
            << ")\n";
    }
    if (out) {
      json section = to_json(policy, manager, *binding, context_problem);
      for (auto& [key, value] : section.items()) (*out)[key] = value;
      if (context.ok()) (*out)["self_test"] = self_test_json(verdict);
      (*out)["failure_record"] = failure ? json{{"file", failure->file}, {"what", failure->what}, {"when", failure->when}}
                                         : json(nullptr);
    }
  } catch (const std::exception& e) {
    if (text) *text << "  plugins:          internal error: " << e.what() << "\n";
    if (out) (*out)["plugins_error"] = e.what();
  }
}

}  // namespace clport::report
