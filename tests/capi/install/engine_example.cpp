// A C++ program as an app would write it against the installed clport/engine.h (built by
// install_test.cmake through pkg-config and through find_package(clport), with no dependency of
// libclport on its command line):
//   engine_example MODEL.gguf
// loads the model on the CPU path, checks what info() reports, generates 16 greedy tokens of a
// chat turn, continues the conversation from the cache, and checks an error path. Exits 0 when
// every check held.
#include <cstdio>
#include <string>
#include <vector>

#include <clport/engine.h>
#include <clport/log.h>

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: engine_example MODEL.gguf\n");
    return 2;
  }
  clport::set_log_level("warn");

  clport::EngineOptions options;
  options.model_path = argv[1];
  options.device = "cpu";
  options.cache_dir = "off";
  options.model.n_ctx = 256;
  options.model.kv_type_k = options.model.kv_type_v = clport::KvCacheType::Q8_0;
  options.kv_types_set = true;
  auto engine = clport::Engine::open(options);
  if (!engine.ok()) {
    std::fprintf(stderr, "FAILED: open: %s\n", engine.status().to_string().c_str());
    return 1;
  }
  clport::Engine& e = *engine.value();
  const clport::ModelInfo info = e.info();
  check(info.architecture == "llama", "architecture is llama, not " + info.architecture);
  check(info.n_ctx == 256 && info.n_seq == 1, "n_ctx 256 and one sequence");
  check(info.backend == "cpu", "backend is cpu, not " + info.backend);
  check(info.kv_type_k == clport::KvCacheType::Q8_0, "K cache is q8_0");
  check(info.n_vocab == static_cast<uint32_t>(e.tokenizer().n_vocab()), "n_vocab matches the tokenizer");

  auto chat = e.chat_template();
  if (!chat.ok()) {
    std::fprintf(stderr, "FAILED: chat_template: %s\n", chat.status().to_string().c_str());
    return 1;
  }
  std::vector<clport::ChatMessage> messages = {{"user", "What is the capital of France?"}};
  auto text = clport::format_chat(chat->family, messages, /*add_generation_prompt=*/true);
  check(text.ok(), "format_chat");
  auto prompt = e.tokenizer().encode(text.ok() ? *text : std::string("Hello"), e.tokenizer().add_bos_default(),
                                     /*parse_special=*/true);
  check(prompt.ok() && !prompt->empty(), "encode");
  if (!prompt.ok()) return 1;

  clport::Sampler sampler(clport::SamplerOptions{});
  std::vector<int32_t> answer;
  clport::GenerationStats stats;
  const auto stop = clport::chat_stop_tokens(chat->family, e.tokenizer());
  clport::Status status = e.generate_reusing_cache(
      *prompt, 16, sampler, [&](int32_t t) { answer.push_back(t); return true; }, &stats, stop);
  check(status.ok(), "generate: " + status.to_string());
  check(!answer.empty(), "generated at least one token");
  check(stats.prompt_tokens == static_cast<int>(prompt->size()) && stats.cached_tokens == 0, "first turn evaluates its prompt");
  std::printf("answer: %s\n", e.tokenizer().decode(answer).c_str());

  // The next turn repeats the conversation so far: all of it comes from the cache.
  std::vector<int32_t> next = e.cached_tokens();
  check(next.size() >= prompt->size(), "the cache holds the first turn");
  auto more = e.tokenizer().encode(" And of Italy?", false, false);
  check(more.ok(), "encode the second turn");
  if (more.ok()) next.insert(next.end(), more->begin(), more->end());
  const size_t cached_before = e.cached_tokens().size();
  status = e.generate_reusing_cache(next, 4, sampler, [](int32_t) { return true; }, &stats, stop);
  check(status.ok(), "second turn: " + status.to_string());
  check(stats.cached_tokens == static_cast<int>(cached_before), "second turn reuses the cache (" +
                                                                   std::to_string(stats.cached_tokens) + " of " +
                                                                   std::to_string(cached_before) + ")");

  check(!e.rewind(100000).ok(), "rewinding past the start is refused");
  clport::EngineOptions missing = options;
  missing.model_path = "/nonexistent/model.gguf";
  auto refused = clport::Engine::open(missing);
  check(!refused.ok() && refused.status().message().find("/nonexistent/model.gguf") != std::string::npos,
        "a missing file is an error naming it");
  std::printf("engine_example: %d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
