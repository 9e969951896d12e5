#include "engine/engine_core.h"

#include <algorithm>
#include <chrono>

#include "gguf/gguf.h"
#include "policy/policy.h"
#include "engine/engine_backend.h"

namespace clport {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Why the context cannot take the next token: how many tokens it holds, how many the request
// needs, and whether --ctx can help (it cannot past the model's own context length).
Status context_full(const LlamaModel& model, size_t prompt_tokens, int generated, int n_predict) {
  const uint64_t holds = model.n_ctx();
  const uint64_t limit = model.hparams().n_ctx_train;
  // The last sampled token is never fed back, so prompt + n_predict - 1 positions are needed.
  const uint64_t needed = prompt_tokens + static_cast<uint64_t>(n_predict > 0 ? n_predict - 1 : 0);
  const std::string what =
      generated == 0
          ? "context full: the prompt has " + std::to_string(prompt_tokens) +
                " tokens but the context holds " + std::to_string(holds)
          : "context full after " + std::to_string(generated) + " of " +
                std::to_string(n_predict) + " tokens: the context holds " + std::to_string(holds) +
                " tokens (prompt " + std::to_string(prompt_tokens) + ", generated " +
                std::to_string(generated) + ") and " + std::to_string(needed) + " are needed";
  if (needed <= limit) {
    return Status(Stage::InvalidArgument,
                  what + "; raise it with --ctx " + std::to_string(needed) +
                      " (the model's own context length is " + std::to_string(limit) +
                      "; --ctx 0 uses all of it)");
  }
  return Status(Stage::InvalidArgument,
                what + "; the model's own context length is " + std::to_string(limit) +
                    ", the most --ctx can give: shorten the prompt or ask for fewer tokens (-n)");
}

}  // namespace

namespace {

// The policy's model keys (cache types, memory limit) where the application left them open.
Result<EngineOptions> with_policy_model_options(const EngineOptions& options) {
  auto policy = engine_policy(options);
  if (!policy.ok()) return policy.status();
  const PolicyGlobals& g = policy->globals();
  EngineOptions out = options;
  // The policy parser accepted only these names.
  const auto type_of = [](const std::string& name) {
    return kv_cache_type_from_name(name).value_or(KvCacheType::F16);
  };
  if (!options.kv_types_set) {
    if (!g.cache_type_k.empty()) out.model.kv_type_k = type_of(g.cache_type_k);
    if (!g.cache_type_v.empty()) out.model.kv_type_v = type_of(g.cache_type_v);
  }
  if (out.model.memory_limit_bytes == 0) out.model.memory_limit_bytes = g.memory_limit_bytes;
  // The policy can only ask to wait: starting on the CPU path is the caller's choice to offer.
  if (g.device_start == DeviceStartMode::Wait) out.cpu_first_start = false;
  return out;
}

}  // namespace

EngineCore::~EngineCore() {
  release_device_load();
  // The model's tensors live on the backend: release them first.
  model_.reset();
  backend_.reset();
}

Result<std::unique_ptr<EngineCore>> EngineCore::open(const EngineOptions& options,
                                             const Progress& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<EngineCore> engine(new EngineCore());
  // Wrong choices (an unknown plugin, a relative cache directory, a broken policy) before the
  // model file is even opened.
  CLPORT_RETURN_IF_ERROR(detail::check_engine_choices(options));
  auto with_policy = with_policy_model_options(options);
  if (!with_policy.ok()) return with_policy.status();
  engine->options_ = with_policy.value();
  auto file = GgufFile::open(options.model_path);
  if (!file.ok()) return file.status();
  engine->file_ = file.value();
  auto tokenizer = Tokenizer::from_gguf(*engine->file_);
  if (!tokenizer.ok()) return tokenizer.status();
  engine->tokenizer_ = std::move(tokenizer.value());
  // Refuse unsupported models before any device work.
  auto hp = read_llama_hparams(*engine->file_);
  if (!hp.ok()) return hp.status();

  CLPORT_RETURN_IF_ERROR(engine->open_backend(progress));
  if (engine->tokenizer_->n_vocab() != static_cast<int32_t>(engine->model_->hparams().n_vocab)) {
    return Status(Stage::Model, "tokenizer has " + std::to_string(engine->tokenizer_->n_vocab()) +
                                    " tokens but token_embd has " +
                                    std::to_string(engine->model_->hparams().n_vocab) + " rows");
  }
  engine->cached_.assign(engine->model_->n_seq(), {});
  engine->load_seconds_ = seconds_since(t0);
  return engine;
}

Status EngineCore::generate(const std::vector<int32_t>& prompt, int n_predict, Sampler& sampler,
                        const std::function<bool(int32_t)>& on_token, GenerationStats* stats,
                        const std::vector<int32_t>& stop_tokens) {
  return run_generation(prompt, 0, n_predict, sampler, on_token, stats, stop_tokens, 0);
}

Status EngineCore::generate_reusing_cache(const std::vector<int32_t>& prompt, int n_predict, Sampler& sampler,
                                      const std::function<bool(int32_t)>& on_token, GenerationStats* stats,
                                      const std::vector<int32_t>& stop_tokens, uint32_t seq) {
  CLPORT_RETURN_IF_ERROR(check_sequence(seq));
  const std::vector<int32_t>& cached = cached_[seq];
  const auto diverge = std::mismatch(cached.begin(), cached.end(), prompt.begin(), prompt.end());
  size_t common = static_cast<size_t>(diverge.first - cached.begin());
  // The last prompt token is evaluated again when everything is cached: its logits are gone.
  if (common == prompt.size() && common > 0) --common;
  return run_generation(prompt, common, n_predict, sampler, on_token, stats, stop_tokens, seq);
}

Status EngineCore::run_generation(const std::vector<int32_t>& prompt, size_t keep, int n_predict, Sampler& sampler,
                              const std::function<bool(int32_t)>& on_token, GenerationStats* stats,
                              const std::vector<int32_t>& stop_tokens, uint32_t seq) {
  CLPORT_RETURN_IF_ERROR(check_sequence(seq));
  std::vector<int32_t>& cached = cached_[seq];
  GenerationStats local;
  GenerationStats& st = stats ? *stats : local;
  st.load_seconds = load_seconds_;
  if (prompt.empty()) return Status(Stage::InvalidArgument, "the prompt has no tokens");
  if (n_predict < 0) {
    return Status(Stage::InvalidArgument,
                  "n_predict is " + std::to_string(n_predict) + "; it must be 0 or more");
  }
  if (prompt.size() > model_->n_ctx()) return context_full(*model_, prompt.size(), 0, n_predict);
  // Until the steps below succeed the cache holds only the kept prefix (a failed step may have
  // written some of the rest).
  cached.resize(keep);
  CLPORT_RETURN_IF_ERROR(device_move_boundary(st));
  std::vector<float> logits;
  std::vector<int32_t> history = prompt;

  auto t0 = std::chrono::steady_clock::now();
  const std::vector<int32_t> fresh(prompt.begin() + static_cast<std::ptrdiff_t>(keep), prompt.end());
  Status evaluated = forward_or_move_to_cpu(fresh, static_cast<uint32_t>(keep), history, prompt.size(), logits, st, seq);
  if (!evaluated.ok()) {
    cached.clear();
    return evaluated;
  }
  cached = prompt;
  st.prompt_tokens = static_cast<int>(prompt.size());
  st.cached_tokens = static_cast<int>(keep);
  st.prompt_seconds = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  uint32_t n_past = static_cast<uint32_t>(prompt.size());
  for (int i = 0; i < n_predict; ++i) {
    const int32_t next = sampler.sample(logits, history);
    history.push_back(next);
    ++st.generated_tokens;
    if (tokenizer_->is_eog(next)) break;
    if (std::find(stop_tokens.begin(), stop_tokens.end(), next) != stop_tokens.end()) break;
    if (on_token && !on_token(next)) break;
    if (i + 1 == n_predict) break;
    if (n_past + 1 > model_->n_ctx()) {
      st.generation_seconds = seconds_since(t0);
      return context_full(*model_, prompt.size(), i + 1, n_predict);
    }
    CLPORT_RETURN_IF_ERROR(device_move_boundary(st));
    Status step = forward_or_move_to_cpu({next}, n_past, history, prompt.size(), logits, st, seq);
    if (!step.ok()) {
      cached.clear();
      return step;
    }
    cached.push_back(next);
    ++n_past;
  }
  st.generation_seconds = seconds_since(t0);
  return Status();
}

}  // namespace clport
