// clport/engine.h: the application's Engine, forwarding to the EngineCore it owns, and the KV
// cache type names.
#include "clport/engine.h"

#include "engine/engine_core.h"
#include "gguf/gguf.h"
#include "model/llama_model.h"

namespace clport {

namespace {

struct KvCacheTypeName {
  KvCacheType type;
  std::string_view name;
};
constexpr KvCacheTypeName kKvCacheTypeNames[] = {
    {KvCacheType::F16, "f16"}, {KvCacheType::F32, "f32"}, {KvCacheType::Q8_0, "q8_0"}, {KvCacheType::Q4_0, "q4_0"}};

KvCacheType kv_cache_type_of(DType type) { return static_cast<KvCacheType>(static_cast<int32_t>(type)); }

}  // namespace

std::string_view kv_cache_type_name(KvCacheType type) {
  for (const KvCacheTypeName& entry : kKvCacheTypeNames) {
    if (entry.type == type) return entry.name;
  }
  return "unknown";
}

std::optional<KvCacheType> kv_cache_type_from_name(std::string_view name) {
  for (const KvCacheTypeName& entry : kKvCacheTypeNames) {
    if (entry.name == name) return entry.type;
  }
  return std::nullopt;
}

Result<std::unique_ptr<Engine>> Engine::open(const EngineOptions& options, const Progress& progress) {
  auto core = EngineCore::open(options, progress);
  if (!core.ok()) return core.status();
  return std::unique_ptr<Engine>(new Engine(std::move(core.value())));
}

Engine::Engine(std::unique_ptr<EngineCore> core) : core_(std::move(core)) {}
Engine::~Engine() = default;

Tokenizer& Engine::tokenizer() { return core_->tokenizer(); }

ModelInfo Engine::info() const {
  LlamaModel& model = core_->model();
  const LlamaHParams& hp = model.hparams();
  ModelInfo info;
  info.architecture = hp.arch;
  info.n_vocab = hp.n_vocab;
  info.n_layer = hp.n_layer;
  info.n_embd = hp.n_embd;
  info.n_ctx = model.n_ctx();
  info.n_ctx_train = hp.n_ctx_train;
  info.n_seq = model.n_seq();
  info.backend = core_->backend().name();
  info.kv_type_k = kv_cache_type_of(model.kv_type_k());
  info.kv_type_v = kv_cache_type_of(model.kv_type_v());
  return info;
}

const EngineOptions& Engine::options() const { return core_->options(); }
double Engine::load_seconds() const { return core_->load_seconds(); }

Result<ChatTemplateChoice> Engine::chat_template(std::string_view name_override) const {
  return choose_chat_template(core_->file(), name_override);
}

DeviceStart Engine::device_start() const { return core_->device_start(); }
std::string Engine::background_device() const { return core_->background_device(); }
Status Engine::wait_for_device() { return core_->wait_for_device(); }

Status Engine::generate(const std::vector<int32_t>& prompt, int n_predict, Sampler& sampler,
                        const std::function<bool(int32_t)>& on_token, GenerationStats* stats,
                        const std::vector<int32_t>& stop_tokens) {
  return core_->generate(prompt, n_predict, sampler, on_token, stats, stop_tokens);
}

Status Engine::generate_reusing_cache(const std::vector<int32_t>& prompt, int n_predict, Sampler& sampler,
                                      const std::function<bool(int32_t)>& on_token, GenerationStats* stats,
                                      const std::vector<int32_t>& stop_tokens, uint32_t seq) {
  return core_->generate_reusing_cache(prompt, n_predict, sampler, on_token, stats, stop_tokens, seq);
}

const std::vector<int32_t>& Engine::cached_tokens(uint32_t seq) const { return core_->cached_tokens(seq); }
uint32_t Engine::n_seq() const { return core_->n_seq(); }
Status Engine::rewind(size_t n, uint32_t seq) { return core_->rewind(n, seq); }
Status Engine::fork(uint32_t from, uint32_t to) { return core_->fork(from, to); }
Status Engine::save_state(const std::string& path, uint32_t seq) { return core_->save_state(path, seq); }
Status Engine::load_state(const std::string& path, uint32_t seq) { return core_->load_state(path, seq); }

Status Engine::evaluate(const std::vector<SequenceInput>& inputs, std::vector<float>& logits) {
  return core_->evaluate(inputs, logits);
}

}  // namespace clport
