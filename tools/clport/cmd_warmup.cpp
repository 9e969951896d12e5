// `clport warmup -m MODEL`: everything a model needs on the chosen device, done now (an app's
// install step) instead of at its first start: the device's set-up (the driver self-test, which
// builds and checks every program into the cache), the model's load, and one prompt step and one
// decode step (whose first launches PoCL compiles too). Progress on stderr (a bar on a terminal,
// a line per tenth otherwise) or, with --json, one JSON line per step on stdout.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "command_registry.h"
#include "engine_flags.h"
#include "json_output.h"

namespace clport::cli {
namespace {

struct WarmupFlags {
  EngineFlags engine;
  bool json = false;
};

double seconds_since_warmup(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The set-up's progress as the flags ask for it; *ran says whether the self-test ran at all.
std::function<void(size_t, size_t)> setup_progress(bool json, bool* ran) {
  const bool terminal = isatty(STDERR_FILENO) != 0;
  return [json, terminal, ran, last = -1](size_t done, size_t total) mutable {
    *ran = true;
    const int percent = total ? static_cast<int>(done * 100 / total) : 100;
    if (percent == last) return;
    const bool tenth = percent / 10 != last / 10 || last < 0;
    last = percent;
    if (json) {
      if (tenth || percent == 100) {
        print_json({{"event", "setup"}, {"done", done}, {"total", total}, {"percent", percent}});
      }
    } else if (terminal) {
      const int width = 30, filled = percent * width / 100;
      std::fprintf(stderr, "\rsetting up the device [%s%s] %3d%% (%zu/%zu checks)", std::string(filled, '#').c_str(),
                   std::string(width - filled, ' ').c_str(), percent, done, total);
      if (percent == 100) std::fprintf(stderr, "\n");
    } else if (tenth || percent == 100) {
      std::fprintf(stderr, "setting up the device: %d%% (%zu/%zu checks)\n", percent, done, total);
    }
    std::fflush(stderr);
  };
}

int warmup_main(WarmupFlags& f) {
  const auto t0 = std::chrono::steady_clock::now();
  EngineOptions options = f.engine.resolved();
  bool set_up_now = false;
  options.setup_progress = setup_progress(f.json, &set_up_now);
  auto engine = EngineCore::open(options, f.json ? EngineCore::Progress{} : terminal_progress_bar());
  if (!engine.ok()) {
    if (f.json) print_json({{"event", "error"}, {"message", engine.status().to_string()}});
    return report_failure("warmup", engine.status());
  }
  EngineCore& e = *engine.value();
  const double setup_seconds = seconds_since_warmup(t0);
  const Status step = e.model().warm_up_kernels();
  if (!step.ok()) {
    if (f.json) print_json({{"event", "error"}, {"message", step.to_string()}});
    return report_failure("warmup", step);
  }
  const double total = seconds_since_warmup(t0);
  const bool on_device = e.backend().device_info() != nullptr;
  if (f.json) {
    print_json({{"event", "done"},
                {"backend", e.backend().description()},
                {"device", on_device},
                {"self_test_ran", set_up_now},
                {"load_seconds", setup_seconds},
                {"seconds", total}});
  } else {
    std::fprintf(stderr, "warmup: %s: %s; the model loaded and ran a prompt and a decode step: %.2f s\n",
                 e.backend().description().c_str(),
                 !on_device ? "the CPU path needs no set-up"
                 : set_up_now ? "set up now (self-test run, programs built into the cache)"
                              : "set up before (self-test verdict and programs from the cache)",
                 total);
  }
  return 0;
}

const RegisterCommand kRegisterWarmup{
    {"warmup", "Set a device up for a model now (build and check its programs into the cache)", [](CLI::App& app) {
       auto flags = std::make_shared<WarmupFlags>();
       flags->engine.add_to(app);
       app.add_flag("--json", flags->json,
                    "progress and the outcome as JSON lines on stdout ({event: setup|done|error, ...})");
       return [flags]() { return warmup_main(*flags); };
     }}};

}  // namespace
}  // namespace clport::cli
