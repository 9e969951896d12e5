// selftest::run: decides whether to test (mode, cached verdict), runs the small conformance
// catalogue on every bound instance, caches the verdict and turns failures into exclusions.
#include "selftest/self_test.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iterator>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

#include "binding/binding.h"
#include "conformance/conformance.h"
#include "runtime/device_context.h"
#include "common/dtype.h"
#include "common/logger.h"
#include "ops/op_registry.h"
#include "programs/program_cache.h"
#include "selftest/verdict_file.h"
#include "selftest/verdict_key.h"

namespace clport::selftest {
namespace {

std::atomic<uint64_t> g_runs{0};

SelfTestMode effective_mode(const Options& options) {
  if (!options.use_environment) return options.mode;
  const char* env = std::getenv("CLPORT_SELF_TEST");
  if (env == nullptr || *env == '\0') return options.mode;
  const std::string v(env);
  if (v == "off" || v == "0") return SelfTestMode::Off;
  if (v == "force") return SelfTestMode::Force;
  if (v == "auto") return SelfTestMode::Auto;
  logger("selftest")->warn("CLPORT_SELF_TEST='{}' is not off, force or auto; using the policy's setting", v);
  return options.mode;
}

std::string dtype_label(int32_t dtype) {
  if (dtype < 0) return "any dtype";
  return std::string(dtype_name(static_cast<DType>(dtype)));
}

std::vector<int32_t> sorted_unique(std::vector<int32_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

TestScope normalized(TestScope s) {
  return {sorted_unique(std::move(s.tensor_dtypes)), sorted_unique(std::move(s.kv_types))};
}

bool contains_all(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  return std::includes(a.begin(), a.end(), b.begin(), b.end());
}

// Whether cases over `tested` cover `wanted`.
bool covers(const TestScope& tested, const TestScope& wanted) {
  if (tested.everything()) return true;
  if (wanted.everything()) return false;
  return contains_all(tested.tensor_dtypes, wanted.tensor_dtypes) && contains_all(tested.kv_types, wanted.kv_types);
}

// Per list: what a has and b lacks (minus), or what either has (joined).
std::vector<int32_t> list_minus(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  std::vector<int32_t> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}
std::vector<int32_t> list_union(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  std::vector<int32_t> out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::vector<CaseVerdict> test_instances(DeviceContext& context, const DeviceBinding& binding, uint64_t seed,
                                       const std::function<void(size_t, size_t)>& progress,
                                       const TestScope& scope) {
  std::vector<CaseVerdict> out;
  conformance::Options options;
  options.small = true;
  options.seed = seed;
  if (!scope.everything())
    options.case_filter = [scope](int32_t kind, int32_t key_dtype) { return scope.includes(kind, key_dtype); };
  const size_t n_instances = binding.instances().size();
  size_t index = 0;
  for (const auto& inst : binding.instances()) {
    // One catalogue per instance: the progress counts over all of them.
    if (progress) {
      options.progress = [&, index](size_t done, size_t total) { progress(index * total + done, n_instances * total); };
    }
    ++index;
    // The cases run on a second instance of the plugin, gone when they are: the scratch they grow
    // is not kept by the instance the model runs on. Only when the plugin cannot make a second
    // instance do they run on the bound one.
    auto sibling = binding.sibling_of(*inst);
    if (!sibling.ok()) logger("selftest")->warn("{}; testing the bound instance", sibling.status().message());
    const BoundInstance& tested = sibling.ok() ? *sibling.value() : *inst;
    const conformance::Report report = conformance::run_on_instance(context, tested.table(), tested.handle(), options);
    for (const auto& c : report.cases) {
      if (!c.supported) continue;
      out.push_back({inst->name(), c.kind, c.key_dtype, c.name, c.passed, c.message});
    }
  }
  return out;
}

// Exclusions from the case verdicts, and one line per failing (plugin, op, dtype) saying where
// the op goes now: the next bound plugin (rank order) with no failure there, else the CPU.
void apply(DeviceBinding& binding, Verdict& verdict) {
  using Group = std::tuple<std::string, int32_t, int32_t>;  // plugin, op kind, dtype
  std::map<Group, const CaseVerdict*> first_failure;
  std::set<Group> tested;
  for (const auto& c : verdict.cases) {
    const Group g{c.plugin, c.op_kind, c.dtype};
    tested.insert(g);
    if (!c.passed && first_failure.count(g) == 0) first_failure[g] = &c;
  }
  // A case without a dtype (-1) that failed takes out every dtype of the op.
  auto failed = [&](const std::string& plugin, int32_t kind, int32_t dtype) {
    return first_failure.count({plugin, kind, dtype}) != 0 || first_failure.count({plugin, kind, -1}) != 0;
  };
  auto log = logger("selftest");
  for (const auto& [group, c] : first_failure) {
    const auto& [plugin, kind, dtype] = group;
    binding.exclude(plugin, kind, dtype, "self-test case '" + c->name + "' failed: " + c->message);
    std::string target = "the CPU path";
    bool after = false;
    for (const auto& inst : binding.instances()) {
      if (inst->name() == plugin) {
        after = true;
        continue;
      }
      if (after && tested.count({inst->name(), kind, dtype}) != 0 && !failed(inst->name(), kind, dtype)) {
        target = "plugin '" + inst->name() + "'";
        break;
      }
    }
    const std::string line = std::string(op_kind_name(kind)) + " " + dtype_label(dtype) + ": plugin '" + plugin +
                             "' failed the self-test (" + c->name + ": " + c->message + "); re-bound to " + target;
    log->warn("{}", line);
    verdict.rebound.push_back(line);
  }
}

}  // namespace

const char* source_name(Verdict::Source source) {
  switch (source) {
    case Verdict::Source::Ran: return "ran";
    case Verdict::Source::Cache: return "cached";
    default: return "skipped";
  }
}

uint64_t runs_in_process() { return g_runs.load(); }

bool TestScope::includes(int32_t op_kind, int32_t key_dtype) const {
  if (everything()) return true;
  const auto has = [key_dtype](const std::vector<int32_t>& v) { return std::binary_search(v.begin(), v.end(), key_dtype); };
  const ops::OpEntry* op = ops::find(op_kind);
  switch (op != nullptr ? op->key_kind : ops::KeyKind::Tensor) {
    case ops::KeyKind::KvCache: return has(kv_types);
    case ops::KeyKind::KvCacheOrTensor: return has(kv_types) || has(tensor_dtypes);  // COPY: the cache or a tensor
    default: return has(tensor_dtypes);
  }
}

TestScope model_scope(const std::vector<int32_t>& tensor_dtypes, int32_t kv_type_k, int32_t kv_type_v) {
  std::vector<int32_t> tensors = tensor_dtypes;
  tensors.insert(tensors.end(), {static_cast<int32_t>(DType::F32), -1});
  return normalized({std::move(tensors), {kv_type_k, kv_type_v}});
}

Verdict run(DeviceContext& context, DeviceBinding& binding, const Options& options) {
  Verdict verdict;
  auto log = logger("selftest");
  try {
    const SelfTestMode mode = effective_mode(options);
    if (mode == SelfTestMode::Off) {
      verdict.note = "self-test switched off (policy self_test: off or CLPORT_SELF_TEST=off)";
      return verdict;
    }
    if (!binding.has_device()) {
      verdict.note = "no plugin bound: nothing to test";
      return verdict;
    }
    const detail::VerdictIdentity id = detail::identity_of(context, binding);
    verdict.key = detail::key_of(id);
    const ProgramCache& cache = context.programs();
    if (cache.enabled() && !cache.directory().empty()) verdict.file = cache.directory() + "/selftest-" + verdict.key + ".json";

    TestScope wanted = normalized(options.scope);
    // A cached verdict over part of the wanted scope: the cases of the rest are added to it.
    std::vector<CaseVerdict> earlier;
    TestScope to_test = wanted;
    if ((mode == SelfTestMode::Auto || !options.run_if_missing) && !verdict.file.empty()) {
      auto cached = detail::load_verdict(verdict.file, verdict.key);
      if (cached.ok() && covers(cached->scope, wanted)) {
        verdict = std::move(cached.value());
        log->info("{}: self-test verdict from {} ({} cases, {} failed)", id.device, verdict.file,
                  verdict.cases.size(), verdict.failed());
        apply(binding, verdict);
        return verdict;
      }
      if (cached.ok() && !wanted.everything()) {
        earlier = std::move(cached->cases);
        const TestScope& had = cached->scope;
        to_test = {list_minus(wanted.tensor_dtypes, had.tensor_dtypes), list_minus(wanted.kv_types, had.kv_types)};
        wanted = {list_union(wanted.tensor_dtypes, had.tensor_dtypes), list_union(wanted.kv_types, had.kv_types)};
      } else if (!cached.ok() && cached.status().message() != "missing") {
        log->warn("ignoring the cached self-test verdict: {}; testing again", cached.status().message());
      }
    }
    if (!options.run_if_missing) {
      verdict.note = earlier.empty() ? "not run yet for this device, driver and clport version"
                                     : "run before for other dtypes than these";
      return verdict;
    }
    verdict.seed = options.seed != 0 ? options.seed
                                     : static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    log->info("{}: running the driver self-test{} (seed {})", id.device,
              to_test.everything() ? std::string() : " for this model's dtypes", verdict.seed);
    const auto t0 = std::chrono::steady_clock::now();
    verdict.cases = std::move(earlier);
    for (CaseVerdict& c : test_instances(context, binding, verdict.seed, options.progress, to_test))
      verdict.cases.push_back(std::move(c));
    verdict.scope = wanted;
    verdict.source = Verdict::Source::Ran;
    g_runs.fetch_add(1);
    log->info("{}: self-test ran {} cases in {:.1f} s, {} failed", id.device, verdict.cases.size(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), verdict.failed());
    if (verdict.file.empty()) {
      verdict.note = "program cache off: verdict not cached (the self-test runs at every start)";
    } else if (Status st = detail::save_verdict(verdict.file, id, verdict); !st.ok()) {
      verdict.note = "verdict not cached: " + st.message();
      log->warn("{}", verdict.note);
      verdict.file.clear();
    }
    apply(binding, verdict);
  } catch (const std::exception& e) {
    verdict.note = std::string("self-test failed to run: ") + e.what();
    log->warn("{}", verdict.note);
  }
  return verdict;
}

}  // namespace clport::selftest
