// selftest::run: decides whether to test (mode, cached verdict), runs the small conformance
// catalogue on every bound instance, caches the verdict and turns failures into exclusions.
#include "clport/self_test.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>
#include <set>
#include <tuple>

#include "clport/binding.h"
#include "clport/conformance.h"
#include "clport/device_context.h"
#include "clport/dtype.h"
#include "clport/embedded_kernel.h"
#include "clport/log.h"
#include "clport/program_cache.h"
#include "clport/version.h"
#include "programs/cache_key.h"
#include "selftest/verdict_file.h"

extern const clport::EmbeddedKernel clport_shared_kernels[];

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

// "<bytes>@<mtime>" of a plugin file: a rebuilt plugin (new kernels inside, same version string)
// is a new combination. Cheap (one stat), unlike hashing the file on every start.
std::string file_stamp(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return "?";
  const auto mtime = std::filesystem::last_write_time(path, ec);
  if (ec) return std::to_string(size) + "@?";
  return std::to_string(size) + "@" + std::to_string(mtime.time_since_epoch().count());
}

// The core's embedded shared kernels, and the files of CLPORT_KERNEL_DIR when it is set (the
// plugins read their kernel sources from there instead).
std::string shared_kernel_fingerprint() {
  std::vector<std::string> fields;
  for (const EmbeddedKernel* k = clport_shared_kernels; k->name != nullptr; ++k) {
    fields.emplace_back(k->name);
    fields.emplace_back(k->source, k->size);
  }
  if (const char* dir = std::getenv("CLPORT_KERNEL_DIR"); dir != nullptr && *dir != '\0') {
    fields.emplace_back(dir);
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec))
      if (e.is_regular_file() && e.path().extension() == ".cl") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      fields.push_back(f.string());
      fields.push_back(text.str());
    }
  }
  return programs::to_hex(programs::sha256_fields(fields));
}

detail::VerdictIdentity identity_of(const DeviceContext& context, const DeviceBinding& binding) {
  detail::VerdictIdentity id;
  id.device = context.info().name;
  id.driver = context.info().driver_version;
  id.platform = context.info().platform_version;
  id.clport_version = CLPORT_VERSION_STRING;
  for (const auto& inst : binding.instances()) {
    const char* version = inst->table().version;
    id.plugins.push_back(inst->name() + " " + (version != nullptr ? version : "?") + " file " +
                         file_stamp(inst->path()) + " settings " +
                         programs::to_hex(programs::sha256_fields({inst->settings()})));
  }
  id.kernels = shared_kernel_fingerprint();
  return id;
}

// A plugin upgrade or rebuild, other policy settings for a plugin (they pick other kernels or
// build options, e.g. gemv_packed), edited shared kernels, or a different set of bound plugins
// is a new combination: test again.
std::string key_of(const detail::VerdictIdentity& id) {
  std::vector<std::string> fields = {"clport-selftest-v2", id.device, id.driver, id.platform, id.clport_version,
                                     id.kernels};
  fields.insert(fields.end(), id.plugins.begin(), id.plugins.end());
  return programs::to_hex(programs::sha256_fields(fields));
}

std::string dtype_label(int32_t dtype) {
  if (dtype < 0) return "any dtype";
  return std::string(dtype_name(static_cast<DType>(dtype)));
}

std::vector<CaseVerdict> test_instances(DeviceContext& context, const DeviceBinding& binding, uint64_t seed) {
  std::vector<CaseVerdict> out;
  conformance::Options options;
  options.small = true;
  options.seed = seed;
  for (const auto& inst : binding.instances()) {
    const conformance::Report report = conformance::run_on_instance(context, inst->table(), inst->handle(), options);
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
    const detail::VerdictIdentity id = identity_of(context, binding);
    verdict.key = key_of(id);
    const ProgramCache& cache = context.programs();
    if (cache.enabled() && !cache.directory().empty()) verdict.file = cache.directory() + "/selftest-" + verdict.key + ".json";

    if ((mode == SelfTestMode::Auto || !options.run_if_missing) && !verdict.file.empty()) {
      auto cached = detail::load_verdict(verdict.file, verdict.key);
      if (cached.ok()) {
        verdict = std::move(cached.value());
        log->info("{}: self-test verdict from {} ({} cases, {} failed)", id.device, verdict.file,
                  verdict.cases.size(), verdict.failed());
        apply(binding, verdict);
        return verdict;
      }
      if (cached.status().message() != "missing") {
        log->warn("ignoring the cached self-test verdict: {}; testing again", cached.status().message());
      }
    }
    if (!options.run_if_missing) {
      verdict.note = "not run yet for this device, driver and clport version";
      return verdict;
    }
    verdict.seed = options.seed != 0 ? options.seed
                                     : static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    log->info("{}: running the driver self-test (seed {})", id.device, verdict.seed);
    const auto t0 = std::chrono::steady_clock::now();
    verdict.cases = test_instances(context, binding, verdict.seed);
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
