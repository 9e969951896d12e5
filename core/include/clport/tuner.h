// Tuner: times a plugin's tunable kernel parameters (the flat `key: value` settings of the shared
// kernels: gemv_wg, gemv_rows, gemm_tn/tm/rn/rm, norm_wg) on LLaMA-like MUL_MAT GEMV / GEMM and
// RMS_NORM shapes with OpenCL profiling events, and stores the winners in a per-device tuning
// file, tuning-<key>.json in the program cache directory, key = SHA-256 over (device name,
// driver version, platform version, hash of the shared kernel sources). A kernel edit or a driver
// update therefore starts from the built-in defaults again.
//
// At plugin creation (DeviceBinding::create over a DeviceContext) settings_with_stored() puts the
// stored winners under the policy's explicit settings for that plugin: the policy wins, and
// `tuning: none` ignores the file. A group is stored only when its best candidate beats the
// plugin's built-in defaults (by 2% unless Options::accept_within says otherwise), so the tuned
// result is never slower than the defaults as measured; every candidate must reproduce the CPU
// reference, so tuning never trades correctness for speed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "clport/export.h"
#include "clport/policy.h"
#include "clport/status.h"

namespace clport {

class DeviceContext;
class LoadedPlugin;

namespace tuner {

struct Options {
  TuningLevel level = TuningLevel::Normal;  // None is treated as Fast
  bool tiny = false;            // tiny shapes (tests, very slow devices): same code paths
  int repeats = 0;              // timed runs per candidate (median); 0: from the level
  double accept_within = -0.02;  // store the best candidate when <= defaults * (1 + this)
  std::string policy_settings;  // the policy's settings for the plugin (kept in every trial)
  int32_t precision = 0;
};

struct Trial {
  std::string settings;  // flat YAML; "" = the plugin's built-in defaults
  bool ok = false;
  double ms = 0.0;       // median kernel time (profiling events; wall time without them)
  std::string error;
};

struct GroupResult {
  std::string group;  // "gemv", "gemm", "norm"
  std::string shape;  // "MUL_MAT q4_0 K=4096 N=4096 M=1"
  std::vector<Trial> trials;  // trials[0]: defaults
  int best = -1;               // index into trials
  bool stored = false;
};

struct Report {
  std::string plugin, device, file;
  bool profiled = false;  // times from profiling events (else wall clock)
  std::vector<GroupResult> groups;
  std::map<std::string, std::string> stored;  // key -> value written to the file
};

// Tunes `plugin` on the context's device and writes the winners (Stage::Config when the cache
// directory is off: nothing to store into). The context should have profiling on.
CLPORT_API Result<Report> tune(DeviceContext& context, const std::shared_ptr<LoadedPlugin>& plugin,
                               const Options& options);

// SHA-256 (hex) over every embedded shared kernel source, names included.
CLPORT_API std::string kernel_source_hash();
// The tuning file for the context's device; "" when the program cache directory is off.
CLPORT_API std::string tuning_file(const DeviceContext& context);
// The stored settings of `plugin` on this device (empty map: none). A corrupt or foreign file is
// ignored with a warning (Status for callers that want to know).
CLPORT_API Result<std::map<std::string, std::string>> load_stored(const DeviceContext& context,
                                                                  const std::string& plugin);
// The settings YAML a plugin instance gets: stored winners under `policy_yaml` (policy wins).
// Returns policy_yaml unchanged when level is None, nothing is stored, or anything goes wrong.
CLPORT_API std::string settings_with_stored(const DeviceContext& context, const std::string& plugin,
                                            const std::string& policy_yaml, TuningLevel level);
// Flat YAML merge: every key of `base` that `over` does not set, then `over` (which wins).
CLPORT_API std::string merge_settings(const std::map<std::string, std::string>& base, const std::string& over);

CLPORT_API const char* level_name(TuningLevel level);

}  // namespace tuner
}  // namespace clport
