// Tuner: times a plugin's tunable kernel parameters (the settings it declares with a tuning group,
// e.g. the shared kernels' gemv_wg, gemv_rows, gemm_tn/tm/rn/rm, norm_wg) on LLaMA-like MUL_MAT GEMV / GEMM and
// RMS_NORM shapes with OpenCL profiling events, and stores the winners in the per-device tuning
// file that the runtime reads at plugin creation (tuner/tuner.h).
//
// A group is stored only when its best candidate beats the plugin's built-in defaults (by 2%
// unless Options::accept_within says otherwise), so the tuned result is never slower than the
// defaults as measured; every candidate must reproduce the CPU reference, so tuning never trades
// correctness for speed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "policy/plugin_settings.h"
#include "policy/policy.h"
#include "clport/status.h"
#include "tuner/tuner.h"

namespace clport {

class DeviceContext;
class LoadedPlugin;

namespace tuner {

struct Options {
  TuningLevel level = TuningLevel::Normal;  // None is treated as Fast
  bool tiny = false;            // tiny shapes (tests, very slow devices): same code paths
  int repeats = 0;              // timed runs per candidate (median); 0: from the level
  double accept_within = -0.02;  // store the best candidate when <= defaults * (1 + this)
  WrittenSettings policy_settings;  // the policy's settings for the plugin (kept in every trial)
  int32_t precision = 0;
};

struct Trial {
  std::vector<TypedSetting> settings;  // the candidate; empty = the plugin's built-in defaults
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
  std::map<std::string, std::string> stored;  // key -> value written to the file (value_text)
};

// Tunes `plugin` on the context's device and writes the winners (Stage::Config when the cache
// directory is off: nothing to store into, or when the policy's settings do not validate). The
// context should have profiling on.
Result<Report> tune(DeviceContext& context, const std::shared_ptr<LoadedPlugin>& plugin, const Options& options);

}  // namespace tuner
}  // namespace clport
