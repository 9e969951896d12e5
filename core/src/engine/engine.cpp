#include "clport/engine.h"

#include <chrono>

#include "clport/gguf.h"
#include "clport/log.h"

namespace clport {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Engine::~Engine() {
  // The model's tensors live on the backend: release them first.
  model_.reset();
  backend_.reset();
}

Result<std::unique_ptr<Engine>> Engine::open(const EngineOptions& options,
                                             const Progress& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<Engine> engine(new Engine());
  engine->options_ = options;
  auto file = GgufFile::open(options.model_path);
  if (!file.ok()) return file.status();
  engine->file_ = file.value();
  auto tokenizer = Tokenizer::from_gguf(*engine->file_);
  if (!tokenizer.ok()) return tokenizer.status();
  engine->tokenizer_ = std::move(tokenizer.value());
  // Refuse unsupported models before any device work.
  auto hp = read_llama_hparams(*engine->file_);
  if (!hp.ok()) return hp.status();

  auto backend = create_backend(options);
  if (!backend.ok()) return backend.status();
  engine->backend_ = std::move(backend.value());
  auto model = LlamaModel::load(engine->file_, *engine->backend_, options.llama, progress);
  if (!model.ok()) return model.status();
  engine->model_ = std::move(model.value());
  if (engine->tokenizer_->n_vocab() != static_cast<int32_t>(engine->model_->hparams().n_vocab)) {
    return Status(Stage::Model, "tokenizer has " + std::to_string(engine->tokenizer_->n_vocab()) +
                                    " tokens but token_embd has " +
                                    std::to_string(engine->model_->hparams().n_vocab) + " rows");
  }
  engine->load_seconds_ = seconds_since(t0);
  return engine;
}

Status Engine::generate(const std::vector<int32_t>& prompt, int n_predict, Sampler& sampler,
                        const std::function<bool(int32_t)>& on_token, GenerationStats* stats) {
  GenerationStats local;
  GenerationStats& st = stats ? *stats : local;
  st.load_seconds = load_seconds_;
  if (prompt.empty()) return Status(Stage::InvalidArgument, "the prompt has no tokens");
  std::vector<float> logits;
  std::vector<int32_t> history = prompt;

  auto t0 = std::chrono::steady_clock::now();
  CLPORT_RETURN_IF_ERROR(model_->forward(prompt, 0, false, logits));
  st.prompt_tokens = static_cast<int>(prompt.size());
  st.prompt_seconds = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  uint32_t n_past = static_cast<uint32_t>(prompt.size());
  for (int i = 0; i < n_predict; ++i) {
    const int32_t next = sampler.sample(logits, history);
    history.push_back(next);
    ++st.generated_tokens;
    if (tokenizer_->is_eog(next)) break;
    if (on_token && !on_token(next)) break;
    if (i + 1 == n_predict) break;
    if (n_past + 1 > model_->n_ctx()) {
      logger("engine")->warn("context of {} tokens is full; stopping", model_->n_ctx());
      break;
    }
    CLPORT_RETURN_IF_ERROR(model_->forward({next}, n_past, false, logits));
    ++n_past;
  }
  st.generation_seconds = seconds_since(t0);
  return Status();
}

std::string apply_chatml(const std::string& user, const std::string& system) {
  std::string out;
  if (!system.empty()) out += "<|im_start|>system\n" + system + "<|im_end|>\n";
  out += "<|im_start|>user\n" + user + "<|im_end|>\n<|im_start|>assistant\n";
  return out;
}

}  // namespace clport
