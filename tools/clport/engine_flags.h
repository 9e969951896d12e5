// Command-line flags shared by the commands that load a model (run, bench e2e, profile,
// perplexity): model, device/plugin/config selection, context and batch sizes.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "engine/engine_core.h"
#include "option_ranges.h"

namespace clport::cli {

// The KV cache types by llama.cpp's names; a value outside them is CLI11's error listing them.
inline CLI::IsMember kv_type_names() { return CLI::IsMember({"f16", "f32", "q8_0", "q4_0"}); }
inline KvCacheType kv_type_of(const std::string& name) {
  return kv_cache_type_from_name(name).value_or(KvCacheType::F16);  // checked by kv_type_names()
}

struct EngineFlags {
  EngineOptions options;
  std::string kv_type;  // empty: not given (the policy's cache types, else f16)
  std::string cache_type_k, cache_type_v;  // empty: kv_type
  std::string log_level;
  bool no_fusion = false;
  // Smallest -c besides 0 (the model's own length) that the command can use; set before add_to.
  int64_t min_ctx = 0;
  // Commands that answer people (run, chat, serve) start on the CPU path while a device that was
  // never set up builds its programs; set before add_to (adds --wait-for-device).
  bool cpu_first_command = false;
  bool wait_for_device = false;

  void add_to(CLI::App& app) {
    app.add_option("-m,--model", options.model_path, "GGUF model file")->required();
    app.add_option("--device", options.device,
                   "auto (best OpenCL device, else CPU), cpu, or a device index from `clport devices`")
        ->transform(device_choice());
    app.add_option("--plugin", options.plugin, "use this plugin for every op it supports");
    app.add_option("--config", options.config_path, "policy YAML layered on the defaults");
    app.add_option("-c,--ctx", options.model.n_ctx,
                   "KV cache length in tokens (0 = the model's own context length; larger values "
                   "are capped at it)")
        ->transform(min_ctx > 0 ? zero_or_integer_range(min_ctx, kMaxTokens) : integer_range(0, kMaxTokens));
    app.add_option("-b,--batch", options.model.n_batch,
                   "prompt tokens per forward step (0 = by device: 2048 on GPUs with 64 GiB or more, 512 with 16 GiB or "
                   "more, else 64)")
        ->transform(integer_range(0, kMaxBatch));
    app.add_option("-t,--threads", options.n_threads, "CPU threads (0 = all cores)")
        ->transform(integer_range(0, kMaxThreads));
    app.add_flag("--cpu-fp32", options.cpu_float_activations,
                 "CPU backend: float activations in quantized mat-muls (precision fp32)");
    // llama.cpp's names; --kv-type sets both, and a --cache-type-k / -v given with it wins.
    app.add_option("--kv-type", kv_type, "KV cache type of K and V: f16, f32, q8_0 or q4_0")
        ->check(kv_type_names());
    app.add_option("--cache-type-k", cache_type_k, "K cache type: f16, f32, q8_0 or q4_0 (default: --kv-type)")
        ->check(kv_type_names());
    app.add_option("--cache-type-v", cache_type_v, "V cache type: f16, f32, q8_0 or q4_0 (default: --kv-type)")
        ->check(kv_type_names());
    app.add_flag("--no-fusion", no_fusion, "run every op on its own (no fused patterns)");
    if (cpu_first_command) {
      app.add_flag("--wait-for-device", wait_for_device,
                   "on a device never set up with this driver, wait for its programs to build instead of "
                   "starting on the CPU path and moving to the device once it is ready");
    }
    app.add_option("--memory-limit", options.model.memory_limit_bytes,
                   "refuse to load when the weights, KV cache and activations would take more than this "
                   "(bytes, or with a unit: 512M, 2G; 0 = no limit)")
        ->transform(CLI::AsSizeValue(false));
  }
  // Call after parsing.
  EngineOptions resolved() const {
    EngineOptions o = options;
    o.kv_types_set = !kv_type.empty() || !cache_type_k.empty() || !cache_type_v.empty();
    o.model.kv_type_k = kv_type_of(cache_type_k.empty() ? kv_type : cache_type_k);
    o.model.kv_type_v = kv_type_of(cache_type_v.empty() ? kv_type : cache_type_v);
    o.model.fusion = !no_fusion;
    o.cpu_first_start = cpu_first_command && !wait_for_device;
    if (o.config_path.empty()) {
      if (const char* env = std::getenv("CLPORT_CONFIG")) o.config_path = env;
    }
    return o;
  }
};

// Prints a one-line progress bar on stderr while weights load, only when stderr is a terminal.
EngineCore::Progress terminal_progress_bar();

// The exit code of a failed Status: 10 + its stage number (README, "Exit codes").
inline int exit_code_of(const Status& status) { return 10 + static_cast<int>(status.stage()); }

// Reports a failed Status on stderr and returns the exit code for it.
int report_failure(const char* what, const Status& status);

}  // namespace clport::cli
