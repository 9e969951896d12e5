// Driver self-test: the first time a (device name, driver version, platform version, clport
// version, bound plugins) combination is seen, every op of every bound plugin instance runs a
// few small conformance cases (fresh random data, CPU reference). A (plugin, op, dtype) with a
// failing case is taken out of service in the DeviceBinding, so the op goes to the next plugin
// that passed it or to the CPU path, with a warning naming the op, the plugin and the error. The
// cases run on a second instance of each plugin (DeviceBinding::sibling_of), gone when they are:
// the scratch they grow does not stay in the instance that runs the model.
//
// A model's load tests the dtypes that model uses (TestScope: its tensors' for the ops that read
// tensors, its KV cache's for the attention ops); a later model with other dtypes tests what it
// adds, and the verdict grows.
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
#include "policy/policy.h"

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

// The dtypes a self-test covers (op_exclusion_dtype values, sorted): those of the tensors ops read
// (weights, activations; -1 for ops of no dtype), and the KV cache types the attention and KV
// store ops read and write (a COPY counts under either). Both empty: the whole catalogue.
struct TestScope {
  std::vector<int32_t> tensor_dtypes;
  std::vector<int32_t> kv_types;
  bool everything() const { return tensor_dtypes.empty() && kv_types.empty(); }
  // Whether a case of this op kind and key dtype is in the scope.
  CLPORT_API bool includes(int32_t op_kind, int32_t key_dtype) const;
};

struct Verdict {
  enum class Source { Skipped, Ran, Cache };
  Source source = Source::Skipped;
  std::string key;        // 64 hex digits
  std::string file;       // cache file ("" when caching is off)
  std::string note;       // why skipped / why not cached / cache problems
  uint64_t seed = 0;
  std::vector<CaseVerdict> cases;  // what ran (or what the cache recorded)
  TestScope scope;  // what the cases cover
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
  // What to have tested (a model's: model_scope); everything by default. A cached verdict of a
  // narrower scope counts as missing for run_if_missing = false, and is completed otherwise.
  TestScope scope;
  // When it runs: (cases done, cases) over every bound plugin instance.
  std::function<void(size_t done, size_t total)> progress;
};

// Tests (or reads) the binding's instances and applies the exclusions to `binding`. Never
// throws and never fails the caller: problems land in Verdict::note and the log.
CLPORT_API Verdict run(DeviceContext& context, DeviceBinding& binding, const Options& options = {});

// How many self-tests actually ran cases in this process (evidence for "cached: not re-run").
CLPORT_API uint64_t runs_in_process();

CLPORT_API const char* source_name(Verdict::Source source);

// The scope of a model: its tensors' dtypes with F32 (activations) and -1 (ops of no dtype), and
// its K and V cache types.
CLPORT_API TestScope model_scope(const std::vector<int32_t>& tensor_dtypes, int32_t kv_type_k, int32_t kv_type_v);

}  // namespace selftest
}  // namespace clport
