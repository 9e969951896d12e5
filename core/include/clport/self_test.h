// Driver self-test: the first time a (device name, driver version, platform version, clport
// version, bound plugins) combination is seen, every op of every bound plugin instance runs a
// few small conformance cases (fresh random data, CPU reference). A (plugin, op, dtype) with a
// failing case is taken out of service in the DeviceBinding, so the op goes to the next plugin
// that passed it or to the CPU path, with a warning naming the op, the plugin and the error.
//
// The verdict is cached as selftest-<key>.json in the program cache directory (so
// CLPORT_CACHE_DIR=off, or an unwritable directory, means: test at every start, cache nothing).
// Later starts read the cached verdict and apply the same exclusions without running anything.
// Mode: the policy's `self_test:` (auto / off / force), overridden by CLPORT_SELF_TEST.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "clport/export.h"
#include "clport/policy.h"

namespace clport {

class DeviceBinding;
class DeviceContext;

namespace selftest {

struct CaseVerdict {
  std::string plugin;
  int32_t op_kind = 0;
  int32_t dtype = -1;  // op_exclusion_dtype of the case
  std::string name;    // "rms_norm f32 +w 7x3"
  bool passed = false;
  std::string message;  // why it failed
};

struct Verdict {
  enum class Source { Skipped, Ran, Cache };
  Source source = Source::Skipped;
  std::string key;        // 64 hex digits
  std::string file;       // cache file ("" when caching is off)
  std::string note;       // why skipped / why not cached / cache problems
  uint64_t seed = 0;
  std::vector<CaseVerdict> cases;  // what ran (or what the cache recorded)
  std::vector<std::string> rebound;  // "RMS_NORM f32: plugin 'x' failed (...); now on cpu"
  int passed() const {
    int n = 0;
    for (const auto& c : cases) n += c.passed ? 1 : 0;
    return n;
  }
  int failed() const { return static_cast<int>(cases.size()) - passed(); }
};

struct Options {
  SelfTestMode mode = SelfTestMode::Auto;
  bool use_environment = true;  // CLPORT_SELF_TEST=off|force|auto overrides `mode`
  bool run_if_missing = true;   // false: only read a cached verdict (`clport devices`)
  uint64_t seed = 0;            // 0: from the clock
  // When it runs: (cases done, cases) over every bound plugin instance.
  std::function<void(size_t done, size_t total)> progress;
};

// Tests (or reads) the binding's instances and applies the exclusions to `binding`. Never
// throws and never fails the caller: problems land in Verdict::note and the log.
CLPORT_API Verdict run(DeviceContext& context, DeviceBinding& binding, const Options& options = {});

// How many self-tests actually ran cases in this process (evidence for "cached: not re-run").
CLPORT_API uint64_t runs_in_process();

CLPORT_API const char* source_name(Verdict::Source source);

}  // namespace selftest
}  // namespace clport
