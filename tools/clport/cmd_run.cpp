// `clport run`: generate text with a model, streaming it as it is produced, then print load time
// and prompt / generation speed.
#include <cstdio>
#include <iostream>

#include "clport/engine.h"
#include "clport/model_checks.h"
#include "command_registry.h"
#include "engine_flags.h"

namespace clport::cli {
namespace {

struct RunFlags {
  EngineFlags engine;
  std::string prompt;
  int n_predict = 128;
  bool chat = false;
  std::string system;
  SamplerOptions sampling;
  bool no_bos = false;
  bool check_layers = false;
  double check_threshold = 1e-3;
};

// --check-layers: the prompt through the CPU reference alongside, layer by layer.
int check_layers(Engine& e, const std::vector<int32_t>& prompt, const RunFlags& f) {
  auto cpu = make_cpu_backend(f.engine.options.n_threads);
  auto reference = LlamaModel::load(e.shared_file(), *cpu, e.options().llama);
  if (!reference.ok()) return report_failure("run --check-layers", reference.status());
  auto report = compare_layers(e.model(), *reference.value(), prompt, 0, f.check_threshold);
  if (!report.ok()) return report_failure("run --check-layers", report.status());
  std::fprintf(stderr, "layer check against the CPU reference (%s vs cpu), threshold NMSE %.1e\n",
               e.backend().name().c_str(), f.check_threshold);
  std::fprintf(stderr, "%6s %14s %14s\n", "layer", "NMSE", "max |error|");
  const int n_layer = static_cast<int>(e.model().hparams().n_layer);
  for (const auto& d : report->layers) {
    std::string label = d.layer == n_layer ? "norm" : std::to_string(d.layer);
    std::fprintf(stderr, "%6s %14.3e %14.3e%s\n", label.c_str(), d.nmse, d.max_abs_error,
                 d.layer == report->first_bad_layer ? "   <-- first layer beyond threshold" : "");
  }
  if (report->first_bad_layer >= 0) {
    std::fprintf(stderr, "first divergent layer: %d\n", report->first_bad_layer);
    return 3;
  }
  std::fprintf(stderr, "all layers within threshold\n");
  return 0;
}

int run(const RunFlags& f) {
  auto engine = Engine::open(f.engine.resolved(), terminal_progress_bar());
  if (!engine.ok()) return report_failure("run", engine.status());
  Engine& e = *engine.value();
  const std::string text = f.chat ? apply_chat_for_arch(e.model().hparams().arch, f.prompt, f.system) : f.prompt;
  const bool add_bos = !f.no_bos && e.tokenizer().add_bos_default();
  auto prompt = e.tokenizer().encode(text, add_bos, /*parse_special=*/f.chat);
  if (!prompt.ok()) return report_failure("run", prompt.status());

  std::cerr << "backend: " << e.backend().description() << "\n";
  int check_result = 0;
  if (f.check_layers) check_result = check_layers(e, prompt.value(), f);
  if (!f.chat) std::cout << f.prompt;
  std::cout.flush();
  Sampler sampler(f.sampling);
  TokenStreamDecoder decoder(e.tokenizer());
  GenerationStats stats;
  Status st = e.generate(prompt.value(), f.n_predict, sampler,
                         [&](int32_t token) {
                           std::cout << decoder.push(token);
                           std::cout.flush();
                           return true;
                         },
                         &stats);
  std::cout << decoder.flush() << std::endl;
  if (!st.ok()) return report_failure("run", st);
  std::fprintf(stderr,
               "load: %.2f s | prompt: %d tokens, %.2f tokens/s | generation: %d tokens, %.2f "
               "tokens/s\n",
               stats.load_seconds, stats.prompt_tokens, stats.prompt_tokens_per_second(),
               stats.generated_tokens, stats.generation_tokens_per_second());
  return check_result;
}

const RegisterCommand kRegister{
    {"run", "Generate text with a GGUF model", [](CLI::App& app) {
       auto flags = std::make_shared<RunFlags>();
       flags->engine.add_to(app);
       app.add_option("-p,--prompt", flags->prompt, "prompt text")->required();
       app.add_option("-n,--n-predict", flags->n_predict,
                      "tokens to generate (0 = only evaluate the prompt); the prompt and all but "
                      "the last of them must fit the context (-c)")
           ->transform(integer_range(0, kMaxTokens));
       app.add_flag("--chat", flags->chat, "wrap the prompt in the model's chat format (Gemma's turns for gemma3, else ChatML)");
       app.add_option("--system", flags->system, "system message for --chat");
       app.add_option("--temp", flags->sampling.temperature, "temperature (0 = greedy)")
           ->transform(number_range(0, 100));
       app.add_option("--top-k", flags->sampling.top_k, "top-k (0 = off)")
           ->transform(integer_range(0, kMaxTokens));
       app.add_option("--top-p", flags->sampling.top_p, "top-p (1 = off)")
           ->transform(number_range(0, 1));
       app.add_option("--repeat-penalty", flags->sampling.repeat_penalty, "repetition penalty (1 = off)")
           ->transform(number_range(0, 10, /*min_exclusive=*/true));
       app.add_option("--repeat-last-n", flags->sampling.repeat_last_n, "penalty window (0 = off)")
           ->transform(integer_range(0, kMaxTokens));
       app.add_option("--seed", flags->sampling.seed, "random seed")
           ->transform(unsigned_range(0, UINT64_MAX));
       app.add_flag("--no-bos", flags->no_bos, "do not add the BOS token");
       app.add_flag("--check-layers", flags->check_layers,
                    "compare every layer with the CPU reference and name the first divergent one");
       app.add_option("--check-threshold", flags->check_threshold, "NMSE threshold for --check-layers")
           ->transform(number_range(0, 1));
       return [flags]() { return run(*flags); };
     }}};

}  // namespace
}  // namespace clport::cli
