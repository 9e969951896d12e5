// `clport chat`: a conversation with a model in its chat format. Each line of standard input is
// a user turn (or a command: /save, /load, /reset, /undo, /exit); the reply streams to standard
// output, or with --json one object per turn gives its token counts, timings and text. The KV
// cache carries the conversation between turns, so a turn evaluates only its own tokens.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "chat_prompt.h"
#include "chat_session.h"
#include "command_registry.h"
#include "engine_flags.h"
#include "sampling_flags.h"

namespace clport::cli {
namespace {

struct ChatFlags {
  EngineFlags engine;
  std::string chat_template;  // a family name; "" = recognise the file's template
  ChatSessionOptions session;
  bool json = false;
  bool verbose = false;
  bool no_cache_reuse = false;
};

constexpr const char* kChatCommands = "/save FILE, /load FILE, /reset, /undo, /exit";

// One line per turn (JSON Lines), so a script reads the turns as they end.
void print_turn_json(const TurnOutcome& t) {
  nlohmann::ordered_json error = nullptr;
  if (!t.status.ok()) {
    error = {{"stage", stage_name(t.status.stage())},
             {"stage_number", static_cast<int>(t.status.stage())},
             {"message", t.status.message()}};
  }
  // ordered: the fields in the order the README lists them.
  const nlohmann::ordered_json doc = {{"turn", t.turn},
                                      {"ok", t.status.ok()},
                                      {"error", error},
                                      {"prompt_tokens", t.stats.prompt_tokens},
                                      {"cached_tokens", t.stats.cached_tokens},
                                      {"completion_tokens", t.completion_tokens},
                                      {"prompt_seconds", t.stats.prompt_seconds},
                                      {"generation_seconds", t.stats.generation_seconds},
                                      {"content", t.content},
                                      {"reply_tokens", t.reply_tokens},
                                      {"logit_gaps", t.logit_gaps}};
  std::cout << doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
}

Status user_turn(ChatSession& session, const std::string& text, const ChatFlags& f) {
  TurnOutcome t = session.turn(text, [&](const std::string& piece) {
    if (f.json) return;
    std::cout << piece;
    std::cout.flush();
  });
  if (f.json) {
    print_turn_json(t);
  } else if (t.status.ok() || !t.content.empty()) {
    std::cout << std::endl;
  }
  if (f.verbose && t.status.ok()) {
    std::fprintf(stderr, "turn %d: prompt %d tokens (%d cached) %.3f s | reply %d tokens %.3f s\n", t.turn,
                 t.stats.prompt_tokens, t.stats.cached_tokens, t.stats.prompt_seconds, t.completion_tokens,
                 t.stats.generation_seconds);
  }
  if (t.status.ok()) return t.status;
  const bool full = t.status.message().find("context full") != std::string::npos;
  return Status(t.status.stage(), "turn " + std::to_string(t.turn) + " failed and is not part of the conversation: " +
                                      t.status.message() + (full ? " (or /undo, /reset to make room)" : ""));
}

// A line that starts with one '/': `name` and the text after it.
Status chat_command(ChatSession& session, const std::string& line, bool* exit_requested) {
  const size_t space = line.find(' ');
  const std::string name = line.substr(0, space);
  std::string argument = space == std::string::npos ? "" : line.substr(space + 1);
  argument.erase(0, argument.find_first_not_of(" \t"));
  argument.erase(argument.find_last_not_of(" \t") + 1);
  const bool takes_file = name == "/save" || name == "/load";
  if (takes_file && argument.empty()) return Status(Stage::InvalidArgument, name + " needs a file: " + name + " FILE");
  if (!takes_file && !argument.empty() && (name == "/reset" || name == "/undo" || name == "/exit")) {
    return Status(Stage::InvalidArgument, name + " takes no argument");
  }
  if (name == "/exit") {
    *exit_requested = true;
    return Status();
  }
  if (name == "/reset") {
    CLPORT_RETURN_IF_ERROR(session.reset());
    std::cerr << "conversation cleared\n";
    return Status();
  }
  if (name == "/undo") {
    if (!session.undo()) return Status(Stage::InvalidArgument, "/undo: no turn to undo");
    std::cerr << "last turn removed (" << session.user_turns() << " left)\n";
    return Status();
  }
  if (name == "/save") {
    CLPORT_RETURN_IF_ERROR(session.save(argument));
    std::cerr << "saved to " << argument << " and " << argument << ".json\n";
    return Status();
  }
  if (name == "/load") {
    CLPORT_RETURN_IF_ERROR(session.load(argument));
    std::cerr << "loaded " << argument << " (" << session.user_turns() << " turns)\n";
    return Status();
  }
  return Status(Stage::InvalidArgument, "unknown command '" + name + "'; commands: " + kChatCommands +
                                            " (start a message with // to send text beginning with /)");
}

bool standard_output_failed() { return std::cout.fail() || std::ferror(stdout) != 0; }

int chat_main(const ChatFlags& f) {
  auto engine = EngineCore::open(f.engine.resolved(), terminal_progress_bar());
  if (!engine.ok()) return report_failure("chat", engine.status());
  EngineCore& e = *engine.value();
  auto format = choose_chat_format(e, f.chat_template, /*no_bos=*/false);
  if (!format.ok()) return report_failure("chat", format.status());
  std::cerr << chat_format_line(format.value()) << "\n";
  std::cerr << "backend: " << e.backend().description() << "\n";
  ChatSessionOptions options = f.session;
  options.reuse_cache = !f.no_cache_reuse;
  options.sampling.record_gap = f.json;
  ChatSession session(e, format.value(), options);

  const bool interactive = isatty(STDIN_FILENO) != 0;
  if (interactive) std::cerr << "commands: " << kChatCommands << "\n";
  // Scripted (input not a terminal): every line runs, and the first failure is the exit code.
  Status first_failure;
  std::string line;
  bool exit_requested = false;
  while (!exit_requested && !standard_output_failed()) {
    if (interactive) std::cerr << "> " << std::flush;
    if (!std::getline(std::cin, line)) {
      if (interactive) std::cerr << "\n";
      break;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    Status st;
    if (line[0] == '/' && line.compare(0, 2, "//") != 0) {
      st = chat_command(session, line, &exit_requested);
    } else {
      st = user_turn(session, line[0] == '/' ? line.substr(1) : line, f);
    }
    if (!st.ok()) {
      std::cerr << "clport chat: " << st.to_string() << "\n";
      if (first_failure.ok()) first_failure = st;
    }
  }
  if (std::cin.bad()) {
    std::cerr << "clport chat: cannot read standard input\n";
    if (first_failure.ok()) first_failure = Status(Stage::Io, "cannot read standard input");
  }
  return interactive || first_failure.ok() ? 0 : exit_code_of(first_failure);
}

const RegisterCommand kRegisterChat{
    {"chat", "Hold a conversation with a GGUF model in its chat format", [](CLI::App& app) {
       auto flags = std::make_shared<ChatFlags>();
       flags->engine.cpu_first_command = true;
       flags->engine.add_to(app);
       app.add_option("-n,--n-predict", flags->session.n_predict, "most tokens in one reply")
           ->transform(integer_range(1, kMaxTokens));
       app.add_option("--chat-template", flags->chat_template,
                      "chat format to use instead of the file's: " + chat_family_names());
       app.add_option("--system", flags->session.system, "system message opening the conversation");
       add_sampling_flags(app, flags->session.sampling);
       app.add_flag("--json", flags->json,
                    "one JSON object per turn on stdout (turn, prompt_tokens, cached_tokens, completion_tokens, "
                    "prompt_seconds, generation_seconds, content, reply_tokens, logit_gaps) instead of the streamed reply");
       app.add_flag("--verbose", flags->verbose, "after each reply, its token counts and timings on stderr");
       app.add_flag("--no-cache-reuse", flags->no_cache_reuse,
                    "evaluate the whole conversation every turn instead of what the cache lacks (to measure "
                    "what reuse saves)");
       return [flags]() { return chat_main(*flags); };
     }}};

}  // namespace
}  // namespace clport::cli
