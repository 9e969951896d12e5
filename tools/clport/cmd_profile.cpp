// `clport profile`: runs a prompt + a few generated tokens with OpenCL profiling events and
// prints a per-kernel table (count, total, mean, share); --trace FILE writes a Chrome/Perfetto
// trace (open it in ui.perfetto.dev or chrome://tracing). The decode steps' wall time is also
// taken from a second run with profiling off, since the events themselves cost the host and
// the driver time that an application's decode does not pay.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "engine/engine_core.h"
#include "command_registry.h"
#include "engine_flags.h"
#include "kernel_times.h"
#include "output_files.h"
#include "option_ranges.h"

namespace clport::cli {
namespace {

struct ProfileFlags {
  EngineFlags engine;
  std::string prompt = "The quick brown fox jumps over the lazy dog. Once upon a time";
  int n_predict = 16;
  std::string trace_file;
  bool single_run = false;
};

struct DecodeTiming {
  double wall_ms = 0;  // from the end of the first decode step to the end of the last
  int steps = 0;       // decode steps in that time
};

// Generates from `prompt` with a greedy sampler and times the decode steps. The first token
// comes from the prompt's logits and the first decode step prepares the decode plan (programs,
// launches), a one-time cost: the clock starts after it, so what is timed is the steady decode.
// on_decode_start runs once, right before the clock starts (and a sync).
template <typename OnStart>
Result<DecodeTiming> time_decode(EngineCore& e, const std::vector<int32_t>& prompt, int n_predict, OnStart on_decode_start,
                                 GenerationStats* stats) {
  Sampler sampler(SamplerOptions{});
  std::chrono::steady_clock::time_point decode_start;
  int tokens = 0;
  auto on_token = [&](int32_t) {
    if (++tokens == 2) {
      on_decode_start();
      (void)e.backend().sync();
      decode_start = std::chrono::steady_clock::now();
    }
    return true;
  };
  CLPORT_RETURN_IF_ERROR(e.generate(prompt, n_predict, sampler, on_token, stats));
  (void)e.backend().sync();
  DecodeTiming t;
  if (tokens >= 2) t.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - decode_start).count();
  t.steps = std::max(0, stats->generated_tokens - 2);
  return t;
}

// The same generation on an engine opened with profiling off: the decode's wall time as an
// application sees it. Negative when it could not run (the caller says so).
double unprofiled_decode_ms_per_step(EngineOptions options, const std::string& prompt_text, int n_predict) {
  options.profiling = false;
  auto engine = EngineCore::open(options, nullptr);
  if (!engine.ok()) return -1;
  EngineCore& e = *engine.value();
  auto prompt = e.tokenizer().encode(prompt_text, e.tokenizer().add_bos_default(), false);
  if (!prompt.ok()) return -1;
  GenerationStats stats;
  auto t = time_decode(e, prompt.value(), n_predict, [] {}, &stats);
  if (!t.ok() || t->steps == 0) return -1;
  return t->wall_ms / t->steps;
}

int write_trace(const std::string& path, const std::vector<OpTiming>& timings) {
  nlohmann::json events = nlohmann::json::array();
  const uint64_t t0 = timings.empty() ? 0 : timings.front().start_ns;
  for (const auto& t : timings) {
    events.push_back({{"name", t.name}, {"ph", "X"}, {"pid", 1}, {"tid", 1},
                      {"ts", double(t.start_ns - std::min(t0, t.start_ns)) / 1000.0},
                      {"dur", double(t.duration_ns) / 1000.0}});
  }
  const nlohmann::json trace{{"traceEvents", events}, {"displayTimeUnit", "ms"}};
  return write_output_file("profile", "--trace", path,
                           trace.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

int run(const ProfileFlags& f) {
  auto options = f.engine.resolved();
  options.profiling = true;
  auto engine = EngineCore::open(options, terminal_progress_bar());
  if (!engine.ok()) return report_failure("profile", engine.status());
  EngineCore& e = *engine.value();
  auto prompt = e.tokenizer().encode(f.prompt, e.tokenizer().add_bos_default(), false);
  if (!prompt.ok()) return report_failure("profile", prompt.status());
  (void)e.backend().take_timings();  // drop weight-upload events
  GenerationStats stats;
  std::vector<OpTiming> timings;  // the prompt's and the first decode step's; the rest after the run
  auto decode = time_decode(e, prompt.value(), f.n_predict, [&] { timings = e.backend().take_timings(); }, &stats);
  if (!decode.ok()) return report_failure("profile", decode.status());
  const double decode_wall_ms = decode->wall_ms;
  const auto decode_timings = e.backend().take_timings();
  uint64_t decode_kernel_ns = 0;
  for (const auto& t : decode_timings) decode_kernel_ns += t.duration_ns;
  const int decode_steps = decode->steps;
  timings.insert(timings.end(), decode_timings.begin(), decode_timings.end());
  if (timings.empty()) {
    std::fprintf(stderr, "no timings: profiling needs an OpenCL device (backend: %s)\n",
                 e.backend().description().c_str());
    return 1;
  }
  uint64_t all = 0;
  const std::vector<KernelTime> sorted = kernel_times(timings, &all);
  std::printf("backend: %s\nprompt %d tokens, generated %d tokens\n\n",
              e.backend().description().c_str(), stats.prompt_tokens, stats.generated_tokens);
  std::printf("%-36s %8s %12s %12s %7s\n", "kernel", "count", "total ms", "mean us", "share");
  for (const KernelTime& r : sorted) {
    std::printf("%-36s %8d %12.3f %12.2f %6.1f%%\n", r.name.c_str(), r.count, r.total_ns / 1e6,
                r.total_ns / 1e3 / r.count, all ? 100.0 * r.total_ns / all : 0.0);
  }
  std::printf("%-36s %8zu %12.3f\n", "total", timings.size(), all / 1e6);
  if (decode_steps > 0) {
    // Wall time minus kernel time is what the host and the gaps between kernels cost.
    const double kernel_ms = decode_kernel_ns / 1e6 / decode_steps, wall_ms = decode_wall_ms / decode_steps;
    std::printf("\ndecode: %d steps, %.1f kernels per step, wall %.3f ms per step, kernels %.3f ms "
                "per step, host and gaps %.1f%% of the wall time\n",
                decode_steps, static_cast<double>(decode_timings.size()) / decode_steps, wall_ms, kernel_ms,
                wall_ms > 0 ? 100.0 * (wall_ms - kernel_ms) / wall_ms : 0.0);
    if (!f.single_run) {
      engine.value().reset();  // one model in memory at a time
      const double plain_ms = unprofiled_decode_ms_per_step(options, f.prompt, f.n_predict);
      if (plain_ms > 0)
        std::printf("decode without profiling events (a second run): wall %.3f ms per step, host and gaps %.1f%% "
                    "of it (against the kernel time above)\n",
                    plain_ms, 100.0 * (plain_ms - kernel_ms) / plain_ms);
      else
        std::printf("decode without profiling events: the second run failed\n");
    }
  }
  if (!f.trace_file.empty()) {
    if (const int failed = write_trace(f.trace_file, timings); failed != 0) return failed;
    std::printf("trace written to %s\n", f.trace_file.c_str());
  }
  return 0;
}

const RegisterCommand kRegisterProfile{
    {"profile", "Per-kernel time table (OpenCL profiling) for a prompt", [](CLI::App& app) {
       auto flags = std::make_shared<ProfileFlags>();
       flags->engine.add_to(app);
       app.add_option("-p,--prompt", flags->prompt, "prompt text");
       app.add_option("-n,--n-predict", flags->n_predict, "tokens to generate")
           ->transform(integer_range(0, kMaxTokens));
       app.add_option("--trace", flags->trace_file, "write a Chrome/Perfetto trace JSON file");
       app.add_flag("--single-run", flags->single_run,
                    "skip the second, unprofiled run that times the decode as an application sees it");
       return [flags]() { return run(*flags); };
     }}};

}  // namespace
}  // namespace clport::cli
