// `clport bench e2e -m MODEL`: prompt and generation tokens/s, load time and peak device memory
// on the chosen backend, and the same measured on the CPU path in the same run as the reference
// (speed-ups are ratios against it). --json FILE writes the table. As llama-bench does, a warm-up
// run (the same prompt and two generated tokens, not counted) comes first, so that one-time work
// (programs loaded from the cache, each plan's preparation) is not counted as speed.
// --parallel N runs N sequences at once (bench_parallel.cpp), as llama-batched-bench does.
#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "engine/engine_core.h"
#include "report/report.h"
#include "bench_e2e.h"
#include "command_registry.h"
#include "engine_flags.h"
#include "output_files.h"
#include "option_ranges.h"

namespace clport::cli {
namespace {

struct E2eResult {
  std::string backend;
  GenerationStats stats;
  BackendMemoryStats memory;
  std::string model_memory_json;  // model_memory_json() of the loaded model, after the run
};

}  // namespace

Result<std::vector<int32_t>> bench_prompt(EngineCore& e, int n_tokens) {
  std::string text;
  std::vector<int32_t> prompt;
  while (static_cast<int>(prompt.size()) < n_tokens) {
    text += "The history of computing is a story of machines that became smaller, faster and "
            "cheaper, until they fit in every pocket. ";
    auto ids = e.tokenizer().encode(text, e.tokenizer().add_bos_default(), false);
    if (!ids.ok()) return ids.status();
    prompt = ids.value();
  }
  prompt.resize(static_cast<size_t>(n_tokens));
  return prompt;
}

namespace {

Result<E2eResult> measure(EngineOptions options, const E2eFlags& f) {
  auto engine = EngineCore::open(options);
  if (!engine.ok()) return engine.status();
  EngineCore& e = *engine.value();
  // A fixed, deterministic prompt of exactly prompt_tokens tokens (repeated text, truncated).
  auto made = bench_prompt(e, f.prompt_tokens);
  if (!made.ok()) return made.status();
  const std::vector<int32_t>& prompt = made.value();
  for (int w = 0; w < f.warmup; ++w) {
    Sampler warm_sampler(SamplerOptions{});
    CLPORT_RETURN_IF_ERROR(e.generate(prompt, std::min(2, f.gen_tokens), warm_sampler, [](int32_t) { return true; }, nullptr));
  }
  // Greedy, and never stop early at an end token: the generation count must be exact.
  Sampler sampler(SamplerOptions{});
  GenerationStats stats;
  int produced = 0;
  CLPORT_RETURN_IF_ERROR(e.generate(prompt, f.gen_tokens, sampler,
                                    [&](int32_t) { return ++produced < f.gen_tokens; }, &stats));
  return E2eResult{e.backend().description(), stats, e.backend().memory_stats(), model_memory_json(e.model().memory())};
}

nlohmann::json to_json(const E2eResult& r) {
  return {{"backend", r.backend},
          {"load_seconds", r.stats.load_seconds},
          {"prompt_tokens", r.stats.prompt_tokens},
          {"prompt_tokens_per_second", r.stats.prompt_tokens_per_second()},
          {"generated_tokens", r.stats.generated_tokens},
          {"generation_tokens_per_second", r.stats.generation_tokens_per_second()},
          {"peak_memory_bytes", r.memory.peak_bytes},
          {"weights_bytes", r.memory.weights_bytes},
          {"plain_weight_copies_freed_bytes", r.memory.plain_freed_bytes},
          {"memory", nlohmann::json::parse(r.model_memory_json)}};
}

void print(const char* label, const E2eResult& r) {
  std::printf("%-9s %-60.60s load %6.2f s | prompt %8.2f tok/s | gen %8.2f tok/s | peak %7.1f MiB\n",
              label, r.backend.c_str(), r.stats.load_seconds, r.stats.prompt_tokens_per_second(),
              r.stats.generation_tokens_per_second(), r.memory.peak_bytes / 1048576.0);
}

int run(const E2eFlags& f) {
  if (f.parallel > 0) return run_parallel(f);
  auto options = f.engine.resolved();
  auto main = measure(options, f);
  if (!main.ok()) return report_failure("bench e2e", main.status());
  print("measured", main.value());
  nlohmann::json out{{"model", options.model_path}, {"warmup_runs", f.warmup}, {"result", to_json(main.value())}};
  if (!f.no_reference && options.device != "cpu") {
    auto cpu_options = options;
    cpu_options.device = "cpu";
    auto ref = measure(cpu_options, f);
    if (!ref.ok()) return report_failure("bench e2e (cpu reference)", ref.status());
    print("reference", ref.value());
    const auto& a = main.value().stats;
    const auto& b = ref.value().stats;
    const double prompt_ratio = a.prompt_tokens_per_second() / b.prompt_tokens_per_second();
    const double gen_ratio = a.generation_tokens_per_second() / b.generation_tokens_per_second();
    std::printf("ratio vs cpu reference: prompt %.2fx, generation %.2fx\n", prompt_ratio, gen_ratio);
    out["cpu_reference"] = to_json(ref.value());
    out["ratio_vs_cpu"] = {{"prompt", prompt_ratio}, {"generation", gen_ratio}};
  }
  if (f.json_file.empty()) return 0;
  return write_output_file("bench e2e", "--json", f.json_file,
                           out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

const RegisterBenchCommand kRegisterBenchE2e{
    {"e2e", "Text generation speed and memory vs the CPU path", [](CLI::App& app) {
       auto flags = std::make_shared<E2eFlags>();
       flags->engine.add_to(app);
       app.add_option("--prompt-tokens", flags->prompt_tokens, "prompt length")
           ->transform(integer_range(1, kMaxTokens));
       app.add_option("--gen-tokens", flags->gen_tokens, "tokens to generate")
           ->transform(integer_range(1, kMaxTokens));
       app.add_flag("--no-reference", flags->no_reference, "skip the CPU reference run");
       app.add_option("--warmup", flags->warmup, "unmeasured runs (prompt + 2 tokens) before the measured one")
           ->transform(integer_range(0, 100));
       app.add_option("--json", flags->json_file, "write results as JSON to this file");
       CLI::Option* parallel = app.add_option("--parallel", flags->parallel,
                      "run N sequences at once and report the aggregate prompt and generation tok/s "
                      "(each sequence's context is prompt + gen tokens unless -c is given)")
           ->transform(integer_range(1, kMaxSequences));
       app.add_flag("--kernel-table", flags->kernel_table,
                    "with --parallel: time the decode steps' kernels (OpenCL profiling) and print them by total "
                    "time (the speeds then include the profiling's cost)")
           ->needs(parallel);
       return [flags, &app]() {
         flags->ctx_given = app.count("--ctx") > 0;
         return run(*flags);
       };
     }}};

}  // namespace
}  // namespace clport::cli
