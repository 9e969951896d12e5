// clport_runtime: the options every model load shares, checked once (device choice, threads,
// policy file and text), and the devices report judged with them.
#include "capi/capi_internal.h"
#include "engine/engine_backend.h"
#include "engine/engine_core.h"
#include "common/logger.h"
#include "policy/policy.h"
#include "report/report.h"

namespace {

using clport::capi::guarded;
using clport::capi::invalid;

const char* runtime_text_or_empty(const char* s) { return s == nullptr ? "" : s; }

bool runtime_valid_device(const std::string& device) {
  if (device == "auto" || device == "cpu") return true;
  if (device.empty() || device.size() > 4 || device.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  return std::stoi(device) <= 1023;
}

}  // namespace

extern "C" {

void clport_runtime_options_init(clport_runtime_options* options) {
  if (options == nullptr) return;
  *options = clport_runtime_options{};
  options->struct_size = sizeof(clport_runtime_options);
}

clport_status clport_runtime_create(const clport_runtime_options* options, clport_runtime** out_runtime) {
  static const char* fn = "clport_runtime_create";
  if (out_runtime == nullptr) return clport::capi::null_argument(fn, "out_runtime");
  *out_runtime = nullptr;
  return guarded(nullptr, fn, [&] {
    clport_runtime_options o;
    clport_runtime_options_init(&o);
    clport_status st = CLPORT_OK;
    if (options != nullptr && !clport::capi::read_options(options, &o, fn, "options", nullptr, &st)) return st;
    auto rt = std::make_unique<clport_runtime>();
    clport::EngineOptions& e = rt->engine;
    e.device = o.device == nullptr ? "auto" : o.device;
    if (!runtime_valid_device(e.device)) {
      return invalid(nullptr, std::string(fn) + ": device '" + e.device +
                                  "' is not auto, cpu, or a device index 0 to 1023");
    }
    if (o.n_threads < 0 || o.n_threads > 1024) {
      return invalid(nullptr, std::string(fn) + ": n_threads " + std::to_string(o.n_threads) +
                                  " is out of range 0 to 1024 (0 = all cores)");
    }
    e.n_threads = o.n_threads;
    e.plugin = runtime_text_or_empty(o.plugin);
    // The name goes into a policy rule as YAML: a plain word only.
    if (e.plugin.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
        std::string::npos) {
      return invalid(nullptr, std::string(fn) + ": plugin '" + e.plugin +
                                  "' is not a plugin name (letters, digits, '_', '.', '-')");
    }
    e.config_path = runtime_text_or_empty(o.policy_file);
    if (o.policy_yaml != nullptr) e.config_texts.push_back(o.policy_yaml);
    e.cache_dir = runtime_text_or_empty(o.cache_dir);
    // Read the policy and look for the plugin now, so that a malformed file or text (with its
    // line and column), a plugin that is not there or a relative cache directory fails here
    // rather than at the first model load.
    const clport::Status checked = clport::detail::check_engine_choices(e);
    if (!checked.ok()) return clport::capi::from_status(nullptr, checked);
    *out_runtime = rt.release();
    return clport::capi::ok(nullptr);
  });
}

void clport_runtime_free(clport_runtime* runtime) { delete runtime; }

const char* clport_runtime_error(const clport_runtime* runtime) {
  return runtime == nullptr ? "" : runtime->error.c_str();
}

clport_status clport_runtime_report_json(clport_runtime* runtime, char** out_json, size_t* out_length) {
  static const char* fn = "clport_runtime_report_json";
  if (out_json != nullptr) *out_json = nullptr;
  if (out_length != nullptr) *out_length = 0;
  if (runtime == nullptr) return clport::capi::null_argument(fn, "runtime");
  return clport::capi::locked(runtime->mutex, &runtime->error, fn, [&] {
    if (out_json == nullptr) return clport::capi::invalid(&runtime->error, std::string(fn) + ": out_json is NULL");
    auto policy = clport::engine_policy(runtime->engine);
    if (!policy.ok()) return clport::capi::from_status(&runtime->error, policy.status());
    clport::DevicesReportOptions options;
    options.policy = &policy.value();
    options.opencl_library = policy->globals().opencl_library;
    options.cache_dir = runtime->engine.cache_dir;
    const clport::DevicesReport report = clport::devices_report(options);
    *out_json = clport::capi::copy_text(report.json);
    if (out_length != nullptr) *out_length = report.json.size();
    return clport::capi::ok(&runtime->error);
  });
}

clport_status clport_cache_export(clport_runtime* runtime, const char* path) {
  static const char* fn = "clport_cache_export";
  if (runtime == nullptr) return clport::capi::null_argument(fn, "runtime");
  return clport::capi::locked(runtime->mutex, &runtime->error, fn, [&] {
    if (path == nullptr || *path == '\0') return clport::capi::invalid(&runtime->error, std::string(fn) + ": path is NULL or empty");
    auto written = clport::export_program_bundle(runtime->engine, path);
    if (!written.ok()) return clport::capi::from_status(&runtime->error, written.status());
    return clport::capi::ok(&runtime->error);
  });
}

clport_status clport_cache_import(clport_runtime* runtime, const char* path, size_t* out_imported, size_t* out_skipped) {
  static const char* fn = "clport_cache_import";
  if (out_imported != nullptr) *out_imported = 0;
  if (out_skipped != nullptr) *out_skipped = 0;
  if (runtime == nullptr) return clport::capi::null_argument(fn, "runtime");
  return clport::capi::locked(runtime->mutex, &runtime->error, fn, [&] {
    if (path == nullptr || *path == '\0') return clport::capi::invalid(&runtime->error, std::string(fn) + ": path is NULL or empty");
    auto read = clport::import_program_bundle(runtime->engine, path);
    if (!read.ok()) return clport::capi::from_status(&runtime->error, read.status());
    if (read->skipped > 0) clport::logger("capi")->warn("{}: {}", fn, read->note);
    if (out_imported != nullptr) *out_imported = read->imported;
    if (out_skipped != nullptr) *out_skipped = read->skipped;
    return clport::capi::ok(&runtime->error);
  });
}

}  // extern "C"
