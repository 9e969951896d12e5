// `clport perplexity -m MODEL -f TEXT [-c CTX]`: chunked perplexity with llama-perplexity's
// convention (model_checks.h), so the two tools print the same number for the same file.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "engine/engine_core.h"
#include "engine/model_checks.h"
#include "command_registry.h"
#include "engine_flags.h"
#include "option_ranges.h"

namespace clport::cli {
namespace {

struct PerplexityFlags {
  EngineFlags engine;
  std::string text_file;
  int max_chunks = 0;
};

int run(PerplexityFlags f) {
  // A directory opens as a stream that reads nothing (it would be "a text of 0 tokens").
  std::error_code ec;
  if (std::filesystem::is_directory(f.text_file, ec)) {
    return report_failure("perplexity",
                          Status(Stage::Io, "-f " + f.text_file + " is a directory; give a text file"));
  }
  std::ifstream in(f.text_file, std::ios::binary);
  if (!in) return report_failure("perplexity", Status(Stage::Io, "cannot read " + f.text_file));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return report_failure("perplexity", Status(Stage::Io, "cannot read " + f.text_file));
  auto options = f.engine.resolved();
  auto engine = EngineCore::open(options, terminal_progress_bar());
  if (!engine.ok()) return report_failure("perplexity", engine.status());
  EngineCore& e = *engine.value();
  // The chunk size is the context the model got from -c (0 and values past the model's own
  // context length resolved by the loader).
  const uint32_t chunk = e.model().n_ctx();
  auto tokens = perplexity_tokens(e.tokenizer(), text.str());
  if (!tokens.ok()) return report_failure("perplexity", tokens.status());
  auto ids = tokens.value();
  if (f.max_chunks > 0 && ids.size() > size_t(f.max_chunks) * chunk) {
    ids.resize(size_t(f.max_chunks) * chunk);
  }
  std::fprintf(stderr, "backend: %s\n%zu tokens, %zu chunks of %u\n",
               e.backend().description().c_str(), ids.size(), ids.size() / chunk, chunk);
  const int32_t bos = e.tokenizer().add_bos_default() ? e.tokenizer().bos() : -1;
  auto result = perplexity(e.model(), ids, chunk, bos, [](const PerplexityChunk& c) {
    std::printf("[%d]%.4f,", c.index, c.ppl_so_far);
    std::fflush(stdout);
  });
  std::printf("\n");
  if (!result.ok()) return report_failure("perplexity", result.status());
  std::printf("Final estimate: PPL = %.4f +/- %.5f (%d chunks, %d scored tokens)\n",
              result->ppl, result->ppl_error, result->chunks, result->scored_tokens);
  return 0;
}

const RegisterCommand kRegisterPerplexity{
    {"perplexity", "Chunked perplexity of a model on a text file", [](CLI::App& app) {
       auto flags = std::make_shared<PerplexityFlags>();
       flags->engine.options.model.n_ctx = 512;  // llama.cpp's default perplexity context
       flags->engine.min_ctx = kMinPerplexityContext;
       flags->engine.add_to(app);
       app.add_option("-f,--file", flags->text_file, "text file")->required();
       app.add_option("--chunks", flags->max_chunks, "score at most this many chunks (0 = all)")
           ->transform(integer_range(0, kMaxTokens));
       return [flags]() { return run(*flags); };
     }}};

}  // namespace
}  // namespace clport::cli
