// `clport bench e2e --parallel N`: N sequences on one model, as llama-batched-bench measures them.
// Each sequence gets its own prompt of --prompt-tokens (the bench text, shifted by the sequence's
// index, so no two are alike); the prompts are evaluated (EngineCore::evaluate: each prompt on its own,
// their last tokens in one step), then --gen-tokens decode steps run one token of every sequence
// each. Reported as aggregates: prompt tokens of all sequences per second of prompt time (S_PP)
// and generated tokens of all sequences per second of decode time (S_TG). A warm-up pass over the
// same shapes comes first, so plan preparation is not counted.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <system_error>
#include <thread>

#include <nlohmann/json.hpp>

#include "bench_e2e.h"
#include "kernel_times.h"
#include "report/report.h"
#include "output_files.h"

namespace clport::cli {
namespace {

struct ParallelResult {
  std::string backend;
  double load_seconds = 0, prompt_seconds = 0, generation_seconds = 0;
  uint64_t prompt_tokens = 0, generated_tokens = 0;
  BackendMemoryStats memory;
  std::string model_memory_json;
  std::vector<OpTiming> decode_kernels;  // --kernel-table: the measured decode steps' kernels
  double prompt_per_second() const { return prompt_seconds > 0 ? prompt_tokens / prompt_seconds : 0; }
  double generation_per_second() const { return generation_seconds > 0 ? generated_tokens / generation_seconds : 0; }
};

double elapsed_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The first index of the row's largest logit, as std::max_element finds it. The maximum comes
// from eight independent running maxima (std::max_element's one compare chain takes ~0.15 ms a
// row of 49152 logits here, which a decode step of 4 sequences of a small model would otherwise
// spend in this harness rather than the engine), then one scan for its first position.
int32_t greedy_token(const float* row, size_t n) {
  float m[8];
  for (int l = 0; l < 8; ++l) m[l] = row[0];
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) m[l] = row[i + l] > m[l] ? row[i + l] : m[l];
  float best = m[0];
  for (int l = 1; l < 8; ++l) best = m[l] > best ? m[l] : best;
  for (; i < n; ++i) best = row[i] > best ? row[i] : best;
  return static_cast<int32_t>(std::find(row, row + n, best) - row);
}

// Every sequence's next token. From 16 sequences on the rows are shared over a few threads: 64
// rows of 49152 logits took 1.5-2 ms on one core of the 2-core VM, a tenth of a decode step of 64
// sequences of the 8B shape on an H100. (llama-batched-bench, the measure these numbers are set
// against, samples nothing.) The workers only write ids into `next`, so nothing in them throws;
// rows of a thread that cannot be started are done by this one. (The CPU ops' runner,
// cpu_parallel.h, is internal to libclport.)
void next_tokens(const std::vector<float>& logits, size_t V, std::vector<EngineCore::SequenceInput>& inputs) {
  const size_t n = inputs.size();
  std::vector<int32_t> next(n);
  const size_t threads = n < 16 ? 1 : std::min<size_t>({8, n / 8, std::max(1u, std::thread::hardware_concurrency())});
  const auto rows_of = [&](size_t t) {
    for (size_t s = t; s < n; s += threads) next[s] = greedy_token(logits.data() + s * V, V);
  };
  std::vector<std::thread> pool;
  size_t started = 1;  // this thread is thread 0
  try {
    for (; started < threads; ++started) pool.emplace_back(rows_of, started);
  } catch (const std::system_error&) {
  }
  for (size_t t = started; t < threads; ++t) rows_of(t);
  rows_of(0);
  for (std::thread& t : pool) t.join();
  for (size_t s = 0; s < n; ++s) inputs[s].tokens = {next[s]};
}

// One pass: every prompt, then `steps` decode steps over all sequences (greedy); the sequences are
// emptied first. Adds its times and token counts to r.
Status one_pass(EngineCore& e, const std::vector<std::vector<int32_t>>& prompts, int steps, ParallelResult& r) {
  for (uint32_t s = 0; s < prompts.size(); ++s) CLPORT_RETURN_IF_ERROR(e.rewind(e.cached_tokens(s).size(), s));
  std::vector<EngineCore::SequenceInput> inputs;
  for (uint32_t s = 0; s < prompts.size(); ++s) inputs.push_back({s, prompts[s]});
  std::vector<float> logits;
  auto t0 = std::chrono::steady_clock::now();
  CLPORT_RETURN_IF_ERROR(e.evaluate(inputs, logits));
  r.prompt_seconds += elapsed_since(t0);
  for (const auto& p : prompts) r.prompt_tokens += p.size();
  const size_t V = e.model().hparams().n_vocab;
  (void)e.backend().take_timings();
  t0 = std::chrono::steady_clock::now();
  for (int step = 0; step < steps; ++step) {
    next_tokens(logits, V, inputs);
    CLPORT_RETURN_IF_ERROR(e.evaluate(inputs, logits));
    r.generated_tokens += inputs.size();
  }
  r.generation_seconds += elapsed_since(t0);
  r.decode_kernels = e.backend().take_timings();
  return Status();
}

// The kernels of the decode steps by total time: what a step over N sequences spends its time on.
void print_kernel_table(const std::vector<OpTiming>& timings, int steps) {
  uint64_t all = 0;
  const std::vector<KernelTime> rows = kernel_times(timings, &all);
  std::printf("decode kernels over %d steps: %.3f ms of kernels per step\n", steps, all / 1e6 / std::max(steps, 1));
  std::printf("  %-40s %10s %12s %10s %7s\n", "kernel", "per step", "ms per step", "mean us", "share");
  for (const KernelTime& row : rows) {
    std::printf("  %-40.40s %10.1f %12.3f %10.2f %6.1f%%\n", row.name.c_str(), static_cast<double>(row.count) / steps,
                row.total_ns / 1e6 / steps, row.total_ns / 1e3 / row.count, all ? 100.0 * row.total_ns / all : 0.0);
  }
}

Result<ParallelResult> measure_parallel(EngineOptions options, const E2eFlags& f) {
  options.model.n_seq = static_cast<uint32_t>(f.parallel);
  options.profiling = f.kernel_table;
  if (!f.ctx_given) options.model.n_ctx = static_cast<uint32_t>(f.prompt_tokens + f.gen_tokens);
  auto engine = EngineCore::open(options);
  if (!engine.ok()) return engine.status();
  EngineCore& e = *engine.value();
  auto base = bench_prompt(e, f.prompt_tokens + f.parallel);
  if (!base.ok()) return base.status();
  const bool bos = e.tokenizer().add_bos_default();
  std::vector<std::vector<int32_t>> prompts;
  for (int s = 0; s < f.parallel; ++s) {
    const auto from = base.value().begin() + (bos ? 1 : 0) + s;
    std::vector<int32_t> p;
    if (bos) p.push_back(base.value().front());
    p.insert(p.end(), from, from + (f.prompt_tokens - static_cast<int>(p.size())));
    prompts.push_back(std::move(p));
  }
  ParallelResult warm;
  for (int w = 0; w < f.warmup; ++w) CLPORT_RETURN_IF_ERROR(one_pass(e, prompts, std::min(2, f.gen_tokens), warm));
  ParallelResult r;
  CLPORT_RETURN_IF_ERROR(one_pass(e, prompts, f.gen_tokens, r));
  r.backend = e.backend().description();
  r.load_seconds = e.load_seconds();
  r.memory = e.backend().memory_stats();
  r.model_memory_json = model_memory_json(e.model().memory());
  return r;
}

nlohmann::json parallel_json(const ParallelResult& r) {
  return {{"backend", r.backend},
          {"load_seconds", r.load_seconds},
          {"prompt_tokens", r.prompt_tokens},
          {"prompt_seconds", r.prompt_seconds},
          {"prompt_tokens_per_second", r.prompt_per_second()},
          {"generated_tokens", r.generated_tokens},
          {"generation_seconds", r.generation_seconds},
          {"generation_tokens_per_second", r.generation_per_second()},
          {"peak_memory_bytes", r.memory.peak_bytes},
          {"memory", nlohmann::json::parse(r.model_memory_json)}};
}

void print_parallel(const char* label, int parallel, const ParallelResult& r) {
  std::printf("%-9s %-50.50s N %3d | prompt %9.2f tok/s (%llu in %.2f s) | gen %9.2f tok/s (%llu in %.2f s) | peak %7.1f MiB\n",
              label, r.backend.c_str(), parallel, r.prompt_per_second(), static_cast<unsigned long long>(r.prompt_tokens),
              r.prompt_seconds, r.generation_per_second(), static_cast<unsigned long long>(r.generated_tokens),
              r.generation_seconds, r.memory.peak_bytes / 1048576.0);
}

}  // namespace

int run_parallel(const E2eFlags& f) {
  const EngineOptions options = f.engine.resolved();
  auto main = measure_parallel(options, f);
  if (!main.ok()) return report_failure("bench e2e --parallel", main.status());
  print_parallel("measured", f.parallel, main.value());
  if (f.kernel_table) print_kernel_table(main.value().decode_kernels, f.gen_tokens);
  nlohmann::json out{{"model", options.model_path},
                     {"parallel", f.parallel},
                     {"prompt_tokens_per_sequence", f.prompt_tokens},
                     {"gen_tokens_per_sequence", f.gen_tokens},
                     {"warmup_runs", f.warmup},
                     {"result", parallel_json(main.value())}};
  if (!f.no_reference && options.device != "cpu") {
    EngineOptions cpu_options = options;
    cpu_options.device = "cpu";
    auto ref = measure_parallel(cpu_options, f);
    if (!ref.ok()) return report_failure("bench e2e --parallel (cpu reference)", ref.status());
    print_parallel("reference", f.parallel, ref.value());
    const double prompt_ratio = main.value().prompt_per_second() / ref.value().prompt_per_second();
    const double gen_ratio = main.value().generation_per_second() / ref.value().generation_per_second();
    std::printf("ratio vs cpu reference: prompt %.2fx, generation %.2fx\n", prompt_ratio, gen_ratio);
    out["cpu_reference"] = parallel_json(ref.value());
    out["ratio_vs_cpu"] = {{"prompt", prompt_ratio}, {"generation", gen_ratio}};
  }
  if (f.json_file.empty()) return 0;
  return write_output_file("bench e2e --parallel", "--json", f.json_file,
                           out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace clport::cli
