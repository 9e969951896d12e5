// clport_model: one GGUF file loaded through the engine with the runtime's options, its sizes,
// and the report of what runs it (backend, plan, per-op binding).
#include <nlohmann/json.hpp>

#include "capi/capi_internal.h"
#include "report/report.h"

namespace {

using clport::capi::guarded;
using clport::capi::invalid;

constexpr uint32_t kCapiMaxContext = 1048576;  // the CLI's --ctx range

}  // namespace

extern "C" {

void clport_model_options_init(clport_model_options* options) {
  if (options == nullptr) return;
  *options = clport_model_options{};
  options->struct_size = sizeof(clport_model_options);
  options->n_ctx = 2048;
  options->n_seq = 1;
}

clport_status clport_model_load(clport_runtime* runtime, const clport_model_options* options,
                                clport_model** out_model) {
  static const char* fn = "clport_model_load";
  if (out_model == nullptr) return clport::capi::null_argument(fn, "out_model");
  *out_model = nullptr;
  if (runtime == nullptr) return clport::capi::null_argument(fn, "runtime");
  return clport::capi::locked(runtime->mutex, &runtime->error, fn, [&] {
    if (options == nullptr) return invalid(&runtime->error, std::string(fn) + ": options is NULL");
    clport_model_options o;
    clport_model_options_init(&o);
    clport_status st = CLPORT_OK;
    if (!clport::capi::read_options(options, &o, fn, "options", &runtime->error, &st)) return st;
    if (o.path == nullptr || *o.path == '\0') {
      return invalid(&runtime->error, std::string(fn) + ": options->path is NULL or empty");
    }
    if (o.n_ctx > kCapiMaxContext) {
      return invalid(&runtime->error, std::string(fn) + ": options->n_ctx " + std::to_string(o.n_ctx) +
                                          " is out of range 0 to " + std::to_string(kCapiMaxContext) +
                                          " (0 = the model's own context length)");
    }
    if (o.n_seq < 1 || o.n_seq > clport::kMaxSequences) {
      return invalid(&runtime->error, std::string(fn) + ": options->n_seq " + std::to_string(o.n_seq) +
                                          " is out of range 1 to " + std::to_string(clport::kMaxSequences));
    }
    clport::KvCacheType kv_types[2] = {clport::KvCacheType::F16, clport::KvCacheType::F16};
    const char* kv_names[2] = {o.cache_type_k, o.cache_type_v};
    for (int i = 0; i < 2; ++i) {
      if (kv_names[i] == nullptr) continue;
      const std::string name = kv_names[i];
      const auto type = clport::kv_cache_type_from_name(name);
      if (type) kv_types[i] = *type;
      else
        return invalid(&runtime->error, std::string(fn) + ": options->" + (i == 0 ? "cache_type_k" : "cache_type_v") +
                                            " '" + name + "' is not one of f16, f32, q8_0, q4_0");
    }
    clport::EngineOptions e = runtime->engine;
    e.model_path = o.path;
    e.model.kv_type_k = kv_types[0];
    e.model.kv_type_v = kv_types[1];
    e.kv_types_set = o.cache_type_k != nullptr || o.cache_type_v != nullptr;
    e.model.memory_limit_bytes = o.memory_limit_bytes;
    e.model.n_ctx = o.n_ctx;
    e.model.n_seq = o.n_seq;
    e.model.fusion = o.no_fusion == 0;
    e.cpu_first_start = o.cpu_first_start != 0;
    if (o.fp32 != 0) {
      e.cpu_float_activations = true;
      e.config_texts.push_back("precision: fp32\n");
    }
    auto engine = clport::EngineCore::open(e);
    if (!engine.ok()) return clport::capi::from_status(&runtime->error, engine.status());
    auto model = std::make_unique<clport_model>();
    model->state = std::make_shared<clport::capi::ModelState>();
    model->state->engine = std::move(engine.value());
    model->state->architecture = model->state->engine->model().hparams().arch;
    model->state->backend_names.push_back(model->state->engine->backend().name());
    if (model->state->engine->n_seq() > 1) model->state->sequence_taken.assign(model->state->engine->n_seq(), false);
    *out_model = model.release();
    return clport::capi::ok(&runtime->error);
  });
}

void clport_model_free(clport_model* model) { delete model; }

static_assert(CLPORT_DEVICE_START_NONE == static_cast<int>(clport::EngineCore::DeviceStart::None) &&
                  CLPORT_DEVICE_START_LOADING == static_cast<int>(clport::EngineCore::DeviceStart::Loading) &&
                  CLPORT_DEVICE_START_READY == static_cast<int>(clport::EngineCore::DeviceStart::Ready) &&
                  CLPORT_DEVICE_START_FAILED == static_cast<int>(clport::EngineCore::DeviceStart::Failed) &&
                  CLPORT_DEVICE_START_MOVED == static_cast<int>(clport::EngineCore::DeviceStart::Moved),
              "clport.h's device-start values are EngineCore::DeviceStart's");

clport_status clport_model_wait_for_device(clport_model* model) {
  static const char* fn = "clport_model_wait_for_device";
  if (model == nullptr) return clport::capi::null_argument(fn, "model");
  return clport::capi::locked(model->state->mutex, &model->error, fn, [&] {
    const clport::Status moved = model->state->engine->wait_for_device();
    if (!moved.ok()) return clport::capi::from_status(&model->error, moved);
    return clport::capi::ok(&model->error);
  });
}

const char* clport_model_error(const clport_model* model) { return model == nullptr ? "" : model->error.c_str(); }

clport_status clport_model_get_info(clport_model* model, clport_model_info* out_info) {
  static const char* fn = "clport_model_get_info";
  if (model == nullptr) return clport::capi::null_argument(fn, "model");
  return clport::capi::locked(model->state->mutex, &model->error, fn, [&] {
    if (out_info == nullptr) return invalid(&model->error, std::string(fn) + ": out_info is NULL");
    if (out_info->struct_size < sizeof(size_t)) {
      return invalid(&model->error, std::string(fn) + ": out_info->struct_size is " +
                                        std::to_string(out_info->struct_size) +
                                        "; set it to sizeof(clport_model_info)");
    }
    clport::EngineCore& engine = *model->state->engine;
    const clport::LlamaHParams& hp = engine.model().hparams();
    const clport::Tokenizer& tok = engine.tokenizer();
    clport_model_info info{};
    info.struct_size = sizeof(info);
    info.n_vocab = tok.n_vocab();
    info.n_ctx = engine.model().n_ctx();
    info.n_ctx_train = hp.n_ctx_train;
    info.n_layer = hp.n_layer;
    info.n_embd = hp.n_embd;
    info.bos = tok.bos();
    info.eos = tok.eos();
    info.add_bos = tok.add_bos_default() ? 1 : 0;
    info.architecture = model->state->architecture.c_str();
    if (engine.backend().name() != model->state->backend_names.back()) {
      model->state->backend_names.push_back(engine.backend().name());
    }
    info.backend = model->state->backend_names.back().c_str();
    info.n_seq = engine.n_seq();
    info.device_start = static_cast<int32_t>(engine.device_start());
    const size_t given = out_info->struct_size;
    std::memcpy(out_info, &info, given < sizeof(info) ? given : sizeof(info));
    out_info->struct_size = given;
    return clport::capi::ok(&model->error);
  });
}

clport_status clport_model_report_json(clport_model* model, char** out_json, size_t* out_length) {
  static const char* fn = "clport_model_report_json";
  if (out_json != nullptr) *out_json = nullptr;
  if (out_length != nullptr) *out_length = 0;
  if (model == nullptr) return clport::capi::null_argument(fn, "model");
  return clport::capi::locked(model->state->mutex, &model->error, fn, [&] {
    if (out_json == nullptr) return invalid(&model->error, std::string(fn) + ": out_json is NULL");
    using nlohmann::json;
    clport::EngineCore& engine = *model->state->engine;
    const clport::LlamaHParams& hp = engine.model().hparams();
    auto lines = clport::op_bindings(engine.file(), engine.backend());
    if (!lines.ok()) return clport::capi::from_status(&model->error, lines.status());
    json bindings = json::array();
    for (const auto& line : lines.value()) {
      bindings.push_back({{"op", line.op}, {"plugin", line.plugin}, {"fused", line.fused}});
    }
    const clport::LlamaModel::PlanSummary plan = engine.model().decode_plan_summary();
    const json doc{
        {"model", {{"path", engine.options().model_path}, {"architecture", hp.arch},
                   {"n_vocab", hp.n_vocab}, {"n_ctx", engine.model().n_ctx()},
                   {"n_ctx_train", hp.n_ctx_train}, {"n_layer", hp.n_layer}, {"n_embd", hp.n_embd},
                   {"n_head", hp.n_head}, {"n_head_kv", hp.n_head_kv}, {"head_dim", hp.head_dim}}},
        {"backend", {{"name", engine.backend().name()}, {"description", engine.backend().description()}}},
        {"plan", {{"decode_nodes", plan.nodes}, {"fused_nodes", plan.fused_nodes},
                  {"decode_launches", plan.launches}, {"layer_launches", plan.grouped_runs},
                  {"fusion", engine.options().model.fusion}}},
        {"load_seconds", engine.load_seconds()},
        {"memory", json::parse(clport::model_memory_json(engine.model().memory()))},
        {"op_bindings", bindings}};
    const std::string text = doc.dump(2, ' ', false, json::error_handler_t::replace);
    *out_json = clport::capi::copy_text(text);
    if (out_length != nullptr) *out_length = text.size();
    return clport::capi::ok(&model->error);
  });
}

}  // extern "C"
