// YAML policy: which plugin serves which device, at what precision, with which settings.
//
// Layers, later over earlier: the shipped configs/default.yaml, the shipped configs/quirks.yaml
// (known driver problems as rules), then the user's file (--config or CLPORT_CONFIG). Every layer
// is parsed AND validated before anything is applied, so a bad file never leaves a half-read
// policy; each error carries file:line:column.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probe/device_info.h"
#include "probe/family_table.h"
#include "policy/source_mark.h"
#include "policy/written_settings.h"
#include "clport/export.h"
#include "clport/status.h"

namespace clport {

// A driver version reduced to comparable numbers. Schemes are only compared with themselves; the
// shipped ones (configs/device_families.yaml `driver_versions`) are "adreno-compiler"
// (Compiler E031.42.23.01 -> 31.42.23.1), "mali" (r32p1 -> 32.1) and "numeric" (the first dotted
// number run: Intel 31.0.101.4502, NVIDIA 550.54.14, PoCL 5.0).
struct DriverVersion {
  std::string scheme;
  std::vector<int64_t> parts;
  std::string text;  // what was parsed, for logs
};
// With the schemes of the device-family table (probe/device_classifier.h), the first whose regex
// is found; nullopt when none is, or the table is unusable.
CLPORT_API std::optional<DriverVersion> parse_driver_version(std::string_view driver_string);
// The same with the given schemes (a table under test).
CLPORT_API std::optional<DriverVersion> parse_driver_version(std::string_view driver_string,
                                                             const std::vector<probe::DriverVersionScheme>& schemes);
// <0, 0, >0 like strcmp; std::nullopt when the schemes differ (not comparable).
CLPORT_API std::optional<int> compare_driver_versions(const DriverVersion& a, const DriverVersion& b);

enum class Precision : int32_t { Auto = 0, Fp32 = 1, Fp16 = 2 };
CLPORT_API const char* precision_name(Precision p);

// Which devices a rule applies to. Every present field must match (regexes are Perl-compatible,
// compiled by PCRE2 with a step limit,
// case-insensitive, searched anywhere in the string; anchor with ^ $ when needed).
struct DeviceMatch {
  std::optional<std::string> name, vendor, driver, platform, family, generation;
  std::optional<DriverVersion> driver_min;  // inclusive
  std::optional<DriverVersion> driver_max;  // exclusive
  std::optional<int32_t> generation_min, generation_max;  // inclusive, on generation_number
  std::vector<std::string> extensions;                    // all required
  std::optional<std::string> device_type;                 // gpu / cpu / accelerator
};

struct PolicyRule {
  std::string id;
  std::string reason;  // what the rule is for (printed when it fires)
  std::string source;  // where the fact comes from (quirks)
  SourceMark mark;
  DeviceMatch match;
  std::optional<std::string> force_plugin;
  std::map<std::string, int32_t> prefer;  // plugin -> score bonus (may be negative)
  std::vector<std::string> deny_plugins;
  bool deny_device = false;
  std::optional<Precision> precision;
  std::map<std::string, WrittenSettings> settings;  // plugin -> its settings as written
};

// Driver self-test: auto = run once per device/driver/clport version and cache the
// verdict; off = never; force = run at every start (and refresh the cached verdict).
enum class SelfTestMode : int32_t { Auto = 0, Off = 1, Force = 2 };
// A device never set up with this driver and clport version, where the program starts on it:
// cpu_first = on the CPU path at once, moving to the device once it is ready (what `run`, `chat`
// and `serve` do, and the C API's cpu_first_start); wait = wait for the device's set-up.
enum class DeviceStartMode : int32_t { CpuFirst = 0, Wait = 1 };
// Stored tuner results: none = ignore them (built-in defaults); any other level uses
// them and is the level `clport tune` runs at when --level is not given.
enum class TuningLevel : int32_t { None = 0, Fast = 1, Normal = 2, Exhaustive = 3 };

struct PolicyGlobals {
  std::string plugin_dir;
  bool allow_insecure_plugin_dirs = false;
  std::string log_level;       // "" = leave as is
  std::string opencl_library;  // "" = search
  std::string cache_dir;       // "" = default
  Precision precision = Precision::Auto;
  SelfTestMode self_test = SelfTestMode::Auto;   // `self_test:`
  DeviceStartMode device_start = DeviceStartMode::CpuFirst;  // `device_start:`
  TuningLevel tuning = TuningLevel::Normal;       // `tuning:`
  // The KV cache types (`cache_type_k:` / `cache_type_v:`, llama.cpp's names f16, f32, q8_0,
  // q4_0; "" = not set) and the memory limit (`memory_limit:` bytes, or with a unit: 512M,
  // 2G; 0 = none), for a model loaded without its own (command line, C API options).
  std::string cache_type_k, cache_type_v;
  uint64_t memory_limit_bytes = 0;
};

// What the policy says about one device (a pure function of the rules and the device).
struct DevicePolicy {
  bool device_denied = false;
  std::string deny_reason;
  std::optional<std::string> forced_plugin;
  std::map<std::string, int32_t> bonus;      // summed over rules
  std::map<std::string, std::string> denied;  // plugin -> rule id
  Precision precision = Precision::Auto;      // already clamped to what the device can do
  // plugin -> its settings as written, merged per key over the rules that fired (later wins);
  // typed against the plugin's declarations at binding (policy/plugin_settings.h).
  std::map<std::string, WrittenSettings> settings;
  std::vector<std::string> fired;             // "rule <id> (<file:line>): <what it did>"
  std::vector<std::string> notes;             // e.g. fp16 requested but absent

  // The plugin's merged settings (empty when the policy sets none).
  const WrittenSettings& settings_for(const std::string& plugin) const;
  int32_t precision_code() const { return static_cast<int32_t>(precision); }
};

class CLPORT_API Policy {
 public:
  // Built-in defaults only (the embedded copy of default.yaml + quirks.yaml).
  static Result<Policy> defaults();
  // Layers: shipped files (found next to the install, else the embedded copy), then the user
  // file when not empty (else CLPORT_CONFIG when set and use_environment).
  static Result<Policy> load(const std::string& user_file = "", bool use_environment = true);
  // Parses one YAML text as a layer over *this; on error *this is unchanged.
  Status add_layer(const std::string& text, const std::string& file_name);

  const PolicyGlobals& globals() const { return globals_; }
  const std::vector<PolicyRule>& rules() const { return rules_; }
  const std::vector<std::string>& layers() const { return layers_; }
  DevicePolicy evaluate(const DeviceInfo& device) const;

 private:
  PolicyGlobals globals_;
  std::vector<PolicyRule> rules_;
  std::vector<std::string> layers_;
};

}  // namespace clport
