// Conformance: runs one plugin's ops on one device against the CPU reference (cpu::run_op) for
// a catalogue of (op, dtype, shape) cases, including awkward shapes, on fresh random inputs.
// A case passes when the plugin's output is within the op's NMSE threshold (NaN never passes),
// the guard bytes around and between the output elements are untouched, and no input changed.
// Cases the plugin does not support are reported as such (never as passes).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "clport/export.h"
#include "clport_plugin/plugin_abi.h"
#include "clport/status.h"
#include "policy/written_settings.h"

namespace clport {
class DeviceContext;
}

namespace clport::conformance {

struct Options {
  std::string plugin;         // a plugin name (searched like the runtime does) or a file path
  int device_index = 0;       // index into every device of the loaded OpenCL library
  bool small = false;         // small shapes only (for slow devices such as oclgrind)
  bool require_all = false;   // a catalogue case the plugin does not support is a failure
  std::string filter;         // run only cases whose name contains this text (or any of "a|b")
  uint64_t seed = 0;          // 0: derived from the clock (printed, so a failure can be re-run)
  int32_t precision = 0;      // handed to the plugin (0 auto, 1 fp32, 2 fp16)
  // The plugin's settings as a policy's section for it writes them (a settings file:
  // read_settings_file), checked and typed as at binding, so that a tuning or kernel variant is
  // checked exactly as it will run. Empty: defaults.
  WrittenSettings settings;
  // Profile the queue and name the kernels each case ran (CaseResult::kernels): which of a
  // plugin's kernel variants really served a case.
  bool record_kernels = false;
  // Called after each catalogue case with (cases done, cases in the catalogue): the driver
  // self-test's progress, which on a device never set up builds every program.
  std::function<void(size_t done, size_t total)> progress;
  // When set, only the cases it accepts, given the op kind and the dtype the op would be taken
  // out of service by (op_exclusion_dtype; -1 for an op of no dtype): the self-test checks the
  // dtypes one model uses. The cases left out are not counted at all.
  std::function<bool(int32_t kind, int32_t key_dtype)> case_filter;
};

struct CaseResult {
  std::string name;   // "mul_mat q4_K 4096x4096x1"
  std::string op;     // "mul_mat"
  std::string dtype;  // "q4_K", "f32->f16", "kv f16"
  std::string shape;  // "K=4096 N=4096 M=1"
  bool supported = false;
  bool passed = false;
  double nmse = 0.0;
  double threshold = 0.0;
  double millis = 0.0;  // wall time of the device op (enqueue + finish)
  std::string message;  // why it failed (or "not supported by the plugin")
  int32_t kind = -1;       // clport_op_kind (appended for the self-test)
  int32_t key_dtype = -1;  // op_exclusion_dtype() of the case's op (appended for the self-test)
  // The weight went through the plugin's prepare_weight first (its own layout, as a model's
  // weights do), so the case checked that layout's kernels.
  bool prepared = false;
  std::vector<std::string> kernels;  // with Options::record_kernels: kernels run, in order, once each
  // >= 0 when the plugin's result was judged as a mat-mul on quantized activations: its NMSE
  // against the reference that rounds the activations the same way, of the error beyond what
  // rounding activations that sit on a tie the other way explains (held to the case's own
  // threshold). nmse is then against the float reference and threshold what that was held to
  // (infinity where the float bound does not apply: fused patterns, a few outputs).
  double nmse_quantized = -1.0;
};

struct Report {
  std::string plugin, plugin_version, plugin_path, device;
  uint64_t seed = 0;
  std::vector<CaseResult> cases;
  int passed = 0, failed = 0, unsupported = 0;
  // Layer-group cases the plugin did not take (its ops then run one by one, each a case above):
  // grouping is optional, so these do not count as unsupported.
  int groups_not_taken = 0;
  bool ok(bool require_all) const { return failed == 0 && (!require_all || unsupported == 0) && passed > 0; }
};

// Never throws. A Status when the run could not start (no OpenCL, no such device or plugin,
// plugin declines the device or fails to create); per-case problems are in the report.
CLPORT_API Result<Report> run(const Options& options);

// For the driver self-test: runs the catalogue (options.small, filter, seed)
// on an instance that already exists, e.g. one bound by DeviceBinding on `context`. The plugin,
// device_index and precision fields of `options` are not used. Never throws; a plugin that
// throws through the C ABI anyway fails that case.
CLPORT_API Report run_on_instance(DeviceContext& context, const clport_plugin& table,
                                  clport_plugin_instance* instance, const Options& options);

}  // namespace clport::conformance
