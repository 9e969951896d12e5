// `clport run`: generate text with a model, streaming it as it is produced, then print load time
// and prompt / generation speed; with --json, one document at the end instead (the text, token
// counts, timings; schema in the docs/json-output.md).
#include <cstdio>
#include <iostream>

#include "engine/engine_core.h"
#include "engine/model_checks.h"
#include "report/report.h"
#include "chat_prompt.h"
#include "command_registry.h"
#include "engine_flags.h"
#include "json_output.h"
#include "sampling_flags.h"

namespace clport::cli {
namespace {

struct RunFlags {
  EngineFlags engine;
  std::string prompt;
  int n_predict = 128;
  bool chat = false;
  std::string chat_template;  // a family name; "" = recognise the file's template
  std::string system;
  bool verbose_prompt = false;
  bool verbose = false;  // the memory the model holds, by part
  SamplerOptions sampling;
  bool no_bos = false;
  bool check_layers = false;
  double check_threshold = 0;  // 0: default_layer_threshold (engine/model_checks.h)
  bool json = false;
};

// --check-layers: the prompt through the CPU reference alongside, layer by layer. A layer beyond
// the threshold is Stage::WrongResult (exit 28, as `check`'s wrong kernel result).
Status check_layers(EngineCore& e, const std::vector<int32_t>& prompt, const RunFlags& f) {
  auto cpu = make_cpu_backend(f.engine.options.n_threads);
  auto reference = LlamaModel::load(e.shared_file(), *cpu, e.options().model);
  if (!reference.ok()) return reference.status();
  auto report = compare_layers(e.model(), *reference.value(), prompt, 0, f.check_threshold);
  if (!report.ok()) return report.status();
  std::fprintf(stderr, "layer check against the CPU reference (%s vs cpu)\n", e.backend().name().c_str());
  std::fprintf(stderr, "%6s %14s %14s %14s\n", "layer", "NMSE", "threshold", "max |error|");
  const int n_layer = static_cast<int>(e.model().hparams().n_layer);
  for (const auto& d : report->layers) {
    std::string label = d.layer == n_layer ? "norm" : std::to_string(d.layer);
    std::fprintf(stderr, "%6s %14.3e %14.3e %14.3e%s\n", label.c_str(), d.nmse, d.threshold, d.max_abs_error,
                 d.layer == report->first_bad_layer ? "   <-- first layer beyond threshold" : "");
  }
  if (report->first_bad_layer >= 0) {
    std::fprintf(stderr, "first divergent layer: %d\n", report->first_bad_layer);
    return Status(Stage::WrongResult, "--check-layers: layer " + std::to_string(report->first_bad_layer) +
                                          " diverges from the CPU reference beyond the NMSE threshold");
  }
  std::fprintf(stderr, "all layers within threshold\n");
  return Status::ok_status();
}

// The prompt as the model sees it: with --chat, a system (when given) and a user turn in the
// chat format of the file (or of --chat-template), opening the assistant's turn.
struct PreparedPrompt {
  std::vector<int32_t> tokens;
  std::vector<int32_t> stop_tokens;  // the chat family's end of turn
  std::string chat_family;           // "" without --chat
};

Result<PreparedPrompt> prepare_prompt(EngineCore& e, const RunFlags& f) {
  const Tokenizer& tok = e.tokenizer();
  PreparedPrompt out;
  Result<std::vector<int32_t>> tokens = std::vector<int32_t>{};
  if (f.chat || !f.chat_template.empty()) {
    auto format = choose_chat_format(e, f.chat_template, f.no_bos);
    if (!format.ok()) return format.status();
    std::vector<ChatMessage> messages;
    if (!f.system.empty()) messages.push_back({"system", f.system});
    messages.push_back({"user", f.prompt});
    tokens = encode_conversation(tok, format.value(), messages);
    out.stop_tokens = format->stop_tokens;
    out.chat_family = std::string(chat_family_name(format->family));
    std::cerr << chat_format_line(format.value()) << "\n";
  } else {
    tokens = tok.encode(f.prompt, !f.no_bos && tok.add_bos_default(), /*parse_special=*/false);
  }
  if (!tokens.ok()) return tokens.status();
  out.tokens = std::move(tokens.value());
  if (f.verbose_prompt) {
    std::cerr << "prompt (" << out.tokens.size() << " tokens):\n"
              << tok.decode(out.tokens, /*render_special=*/true) << "\n";
  }
  return out;
}

// The --json document (docs/json-output.md); `failure` is ok when the run succeeded, and sets
// `ok` and `exit_code` as the process exits. `finished`: the generation itself ran to its end.
nlohmann::json run_json(const RunFlags& f, const Status& failure, EngineCore* e, const PreparedPrompt* p,
                        const std::string& text, int delivered, const GenerationStats& stats, bool finished) {
  nlohmann::json error = nullptr;
  if (!failure.ok()) {
    error = {{"stage", stage_name(failure.stage())}, {"stage_number", static_cast<int>(failure.stage())},
             {"message", failure.message()}};
  }
  const char* stop = !finished ? nullptr : delivered == f.n_predict ? "length" : "end_of_generation";
  return {{"ok", failure.ok()},
          {"exit_code", failure.ok() ? 0 : exit_code_of(failure)},
          {"error", error},
          {"model", f.engine.options.model_path},
          {"backend", e != nullptr ? nlohmann::json(e->backend().description()) : nlohmann::json(nullptr)},
          {"chat_template", p != nullptr && !p->chat_family.empty() ? nlohmann::json(p->chat_family) : nlohmann::json(nullptr)},
          {"prompt", f.prompt},
          {"text", text},
          {"stop_reason", stop == nullptr ? nlohmann::json(nullptr) : nlohmann::json(stop)},
          {"tokens", {{"prompt", p != nullptr ? static_cast<int>(p->tokens.size()) : 0},
                      {"generated", delivered},
                      {"sampled", stats.generated_tokens}}},
          {"device_move", stats.device_move.empty()
                              ? nlohmann::json(nullptr)
                              : nlohmann::json({{"tokens_before", stats.tokens_before_device_move},
                                                {"backend", e != nullptr ? e->backend().description() : ""},
                                                {"note", stats.device_move}})},
          {"memory", e != nullptr ? nlohmann::json::parse(model_memory_json(e->model().memory())) : nlohmann::json(nullptr)},
          {"timings", {{"load_seconds", e != nullptr ? e->load_seconds() : 0.0},
                       {"prompt_seconds", stats.prompt_seconds},
                       {"prompt_tokens_per_second", stats.prompt_tokens_per_second()},
                       {"generation_seconds", stats.generation_seconds},
                       {"generation_tokens_per_second", stats.generation_tokens_per_second()}}}};
}

int run(const RunFlags& f) {
  if (!f.system.empty() && !f.chat && f.chat_template.empty()) {
    std::cerr << "clport run: --system is a chat turn: it needs --chat or --chat-template\n";
    return 2;
  }
  GenerationStats stats;
  EngineOptions options = f.engine.resolved();
  // The layer check compares the device with the CPU reference: it needs the device from the start.
  if (f.check_layers) options.cpu_first_start = false;
  auto engine = EngineCore::open(options, f.json ? EngineCore::Progress{} : terminal_progress_bar());
  if (!engine.ok()) {
    if (f.json) print_json(run_json(f, engine.status(), nullptr, nullptr, "", 0, stats, false));
    return report_failure("run", engine.status());
  }
  EngineCore& e = *engine.value();
  auto prompt = prepare_prompt(e, f);
  if (!prompt.ok()) {
    if (f.json) print_json(run_json(f, prompt.status(), &e, nullptr, "", 0, stats, false));
    return report_failure("run", prompt.status());
  }

  std::cerr << "backend: " << e.backend().description() << "\n";
  if (e.device_start() == EngineCore::DeviceStart::Loading) {
    std::cerr << "device: " << e.background_device()
              << " builds its programs in the background (its first start with this driver); the CPU path answers "
                 "until it is ready (--wait-for-device waits for it)\n";
  }
  // A failed check does not stop the run: its text is still wanted, the exit code says it failed.
  const Status checked = f.check_layers ? check_layers(e, prompt->tokens, f) : Status::ok_status();
  if (!f.json && !f.chat && f.chat_template.empty()) std::cout << f.prompt;
  std::cout.flush();
  Sampler sampler(f.sampling);
  TokenStreamDecoder decoder(e.tokenizer());
  std::string text;  // --json: the whole text, printed at the end
  int delivered = 0;
  Status st = e.generate(prompt->tokens, f.n_predict, sampler,
                         [&](int32_t token) {
                           ++delivered;
                           const std::string piece = decoder.push(token);
                           if (f.json) {
                             text += piece;
                           } else {
                             std::cout << piece;
                             std::cout.flush();
                           }
                           return true;
                         },
                         &stats, prompt->stop_tokens);
  // The run's outcome: the generation's failure, else the layer check's.
  const Status outcome = !st.ok() ? st : checked;
  if (f.json) {
    text += decoder.flush();
    print_json(run_json(f, outcome, &e, &prompt.value(), text, delivered, stats, st.ok()));
  } else {
    std::cout << decoder.flush() << std::endl;
  }
  if (!st.ok()) return report_failure("run", st);
  if (!stats.device_move.empty()) std::cerr << "device: " << stats.device_move << "\n";
  std::fprintf(stderr,
               "load: %.2f s | prompt: %d tokens, %.2f tokens/s | generation: %d tokens, %.2f "
               "tokens/s\n",
               stats.load_seconds, stats.prompt_tokens, stats.prompt_tokens_per_second(),
               stats.generated_tokens, stats.generation_tokens_per_second());
  // After the run: the plugins' scratch is sized when the plans are first prepared.
  if (f.verbose) std::cerr << model_memory_text(e.model().memory());
  return checked.ok() ? 0 : report_failure("run", checked);
}

const RegisterCommand kRegisterRun{
    {"run", "Generate text with a GGUF model", [](CLI::App& app) {
       auto flags = std::make_shared<RunFlags>();
       flags->engine.cpu_first_command = true;
       flags->engine.add_to(app);
       app.add_option("-p,--prompt", flags->prompt, "prompt text")->required();
       app.add_option("-n,--n-predict", flags->n_predict,
                      "tokens to generate (0 = only evaluate the prompt); the prompt and all but "
                      "the last of them must fit the context (-c)")
           ->transform(integer_range(0, kMaxTokens));
       app.add_flag("--chat", flags->chat,
                    "wrap the prompt in the chat format of the file's tokenizer.chat_template and "
                    "stop at its end-of-turn token");
       app.add_option("--chat-template", flags->chat_template,
                      "chat format to use instead of the file's (implies --chat): " +
                          chat_family_names());
       app.add_option("--system", flags->system, "system message for --chat");
       app.add_flag("--verbose", flags->verbose,
                    "at the end, print what the model holds in memory: weights by where they live, KV cache, "
                    "activations, plugin scratch");
       app.add_flag("--verbose-prompt", flags->verbose_prompt,
                    "print the prompt as tokenized (chat markers included) and its token count");
       add_sampling_flags(app, flags->sampling);
       app.add_flag("--no-bos", flags->no_bos, "do not add the BOS token");
       app.add_flag("--check-layers", flags->check_layers,
                    "compare every layer with the CPU reference and name the first divergent one");
       app.add_option("--check-threshold", flags->check_threshold,
                      "NMSE threshold of every layer for --check-layers (default 0: 1e-3 after the first layer "
                      "growing to 1e-2 at the final norm, as rounding compounds over depth)")
           ->transform(number_range(0, 1));
       app.add_flag("--json", flags->json,
                    "print one JSON document at the end (text, token counts, timings) instead of "
                    "streaming the text (docs/json-output.md)");
       return [flags]() { return run(*flags); };
     }}};

}  // namespace
}  // namespace clport::cli
