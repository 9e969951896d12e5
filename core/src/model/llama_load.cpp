// Loading a model of any supported family: check every tensor the graph needs (name, shape, dtype) before
// touching the device, then upload weights once, allocate the KV cache and the activation arena.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "probe/device_info.h"
#include "gguf/gguf.h"
#include "model/llama_model.h"
#include "common/logger.h"
#include "memory/file_pages.h"
#include "model/arch/arch_family.h"
#include "model/llama_plan.h"
#include "model/memory_estimate.h"
#include "model/llama_weights.h"
#include "model/tensor_check.h"

namespace clport {
namespace {

// The bytes of a weight joined from parts of the file, concatenated; the parts' pages of a mapped
// file are given back once copied (only the joined weight is placed).
std::shared_ptr<std::vector<uint8_t>> joined_bytes(const std::vector<const GgufTensorInfo*>& parts, bool mapped) {
  auto bytes = std::make_shared<std::vector<uint8_t>>();
  uint64_t total = 0;
  for (const GgufTensorInfo* part : parts) total += part->bytes;
  bytes->reserve(total);
  for (const GgufTensorInfo* part : parts) {
    bytes->insert(bytes->end(), part->data, part->data + part->bytes);
    if (mapped) release_file_pages(part->data, part->bytes);
  }
  return bytes;
}

}  // namespace

LlamaModel::LlamaModel(Backend& backend, LlamaHParams hp) : backend_(backend), hp_(std::move(hp)) {}
LlamaModel::~LlamaModel() = default;

namespace {

// ModelOptions::n_batch 0: what the device takes.
uint32_t default_batch(const Backend& backend) {
  constexpr uint64_t kLargeGpuBytes = 16ull << 30, kDataCentreGpuBytes = 64ull << 30;
  const DeviceInfo* d = backend.device_info();
  if (d == nullptr || (d->type & CL_DEVICE_TYPE_GPU) == 0) return 64;
  // On a data-centre card a long prompt's attention, one work-group per head and 64 query tokens,
  // fills the GPU only with more tokens a step (8B shape on an H100: 4096-token prompt 1.11x,
  // 16384 1.09x faster in steps of 2048 than of 512).
  if (d->global_mem_bytes >= kDataCentreGpuBytes) return 2048;
  return d->global_mem_bytes >= kLargeGpuBytes ? 512 : 64;
}

// 0 asks for the model's own context length; more than it is capped there (positions past the
// training context are ones the model never learned). The default (2048) is often above a small
// model's length, so capping is not worth a warning; a full context names the limit instead.
uint32_t context_length(const LlamaHParams& hp, const ModelOptions& options) {
  return options.n_ctx == 0 ? hp.n_ctx_train : std::min(options.n_ctx, hp.n_ctx_train);
}

uint32_t prompt_batch(const ModelOptions& options, const Backend& backend, uint32_t n_ctx) {
  return std::max<uint32_t>(1, std::min(options.n_batch != 0 ? options.n_batch : default_batch(backend), n_ctx));
}

}  // namespace

Result<LoadEstimate> estimate_load(const GgufFile& file, const ModelOptions& options, const Backend& backend) {
  auto hp = read_llama_hparams(file);
  if (!hp.ok()) return hp.status();
  // The vocabulary is token_embd's row count (as the load reads it).
  if (const GgufTensorInfo* embd = file.find_tensor("token_embd.weight")) hp.value().n_vocab = static_cast<uint32_t>(embd->ne[1]);
  LoadEstimate e;
  e.n_ctx = context_length(hp.value(), options);
  e.n_batch = prompt_batch(options, backend, e.n_ctx);
  for (const GgufTensorInfo& t : file.tensors()) e.weights += t.bytes;
  e.n_seq = options.n_seq;
  e.kv_cache = kv_cache_bytes(hp.value(), e.n_ctx, dtype_of(options.kv_type_k), dtype_of(options.kv_type_v)) * e.n_seq;
  e.activations = activation_bytes(hp.value(), e.n_batch);
  return e;
}

Result<std::unique_ptr<LlamaModel>> LlamaModel::load(
    std::shared_ptr<GgufFile> file, Backend& backend, const ModelOptions& options,
    const std::function<void(uint64_t, uint64_t)>& progress) {
  auto hp_result = read_llama_hparams(*file);
  if (!hp_result.ok()) return hp_result.status();
  LlamaHParams hp = hp_result.value();
  const GgufTensorInfo* embd = file->find_tensor("token_embd.weight");
  if (embd == nullptr) return Status(Stage::Model, "tensor 'token_embd.weight' is missing");
  hp.n_vocab = static_cast<uint32_t>(embd->ne[1]);
  hp.tied_output = file->find_tensor("output.weight") == nullptr;
  if (options.n_seq < 1 || options.n_seq > kMaxSequences) {
    return Status(Stage::InvalidArgument, "sequences " + std::to_string(options.n_seq) + ": must be 1 to " +
                                              std::to_string(kMaxSequences));
  }
  for (const DType t : {dtype_of(options.kv_type_k), dtype_of(options.kv_type_v)}) {
    if (t != DType::F16 && t != DType::F32 && t != DType::Q8_0 && t != DType::Q4_0) {
      return Status(Stage::InvalidArgument, "KV cache type must be f16, f32, q8_0 or q4_0");
    }
  }
  const bool kv_quantized = (dtype_of(options.kv_type_k) != DType::F16 && dtype_of(options.kv_type_k) != DType::F32) ||
                            (dtype_of(options.kv_type_v) != DType::F16 && dtype_of(options.kv_type_v) != DType::F32);
  if (kv_quantized && hp.head_dim % 32 != 0) {
    return Status(Stage::InvalidArgument, "a q8_0 / q4_0 KV cache needs head_dim a multiple of 32, the model's is " +
                                              std::to_string(hp.head_dim));
  }

  const uint32_t n_ctx = context_length(hp, options);

  // Plan: every tensor, checked before anything is uploaded.
  const int64_t E = hp.n_embd;
  const int64_t NQ = hp.q_rows(), KV = hp.kv_rows();
  using Planned = PlannedWeight;
  std::unique_ptr<LlamaModel> model(new LlamaModel(backend, hp));
  model->file_ = file;
  model->w_ = std::make_unique<Weights>();
  Weights& w = *model->w_;
  w.layers.resize(hp.n_layer);
  std::vector<GgufTensorInfo> halves;
  auto planned = plan_weights(*file, hp, n_ctx, w, halves);
  if (!planned.ok()) return planned.status();
  std::vector<Planned> plan = std::move(planned.value());

  model->plans_ = std::make_unique<Plans>();
  model->plans_->fusion = options.fusion;
  model->plans_->max_plans += 2 * static_cast<size_t>(options.n_seq);
  // Which weights the decode step will read through a fused op its plugin claims: those keep
  // the plain layout (fused kernels read the file layout), every other mat-mul weight may be
  // repacked by its plugin. Q, K and V of one dtype become one weight on a device.
  const bool qkv_bias = hp.family->has(Slot::Bq);
  std::vector<GgufTensorInfo> joined_infos(hp.n_layer), joined_biases(qkv_bias ? hp.n_layer : 0);
  {
    const TensorRef x1 = shape_only(DType::F32, {E, 1, 1, 1}), xn1 = x1;
    const TensorRef norm_w = shape_only(DType::F32, {E, 1, 1, 1});
    cpu::OpParams norm;
    norm.eps = hp.rms_eps;
    auto weight_of = [&](const GgufTensorInfo* t) { return shape_only(t->dtype, t->ne); };
    auto out_of = [&](int64_t rows) { return shape_only(DType::F32, {rows, 1, 1, 1}); };
    auto find = [&](TensorRef* slot) -> Planned* {
      for (auto& p : plan)
        if (p.slot == slot) return &p;
      return nullptr;
    };
    auto fused_norm_mm = [&](const TensorRef& wt) {
      const TensorRef out = out_of(wt.ne[1]);
      return model->claims(CLPORT_OP_RMS_NORM_MUL_MAT, {&wt, &x1, &norm_w}, out, norm, &wt, &xn1, &out);
    };
    auto fused_mm_add = [&](const TensorRef& wt) {
      const TensorRef in = shape_only(DType::F32, {wt.ne[0], 1, 1, 1}), out = out_of(wt.ne[1]);
      return model->claims(CLPORT_OP_MUL_MAT_ADD, {&wt, &in, &out}, out, {}, &wt, &in, &out);
    };
    // Parts of one tensor each, described as one (they keep their row order); its bytes are made
    // when it is placed.
    auto join = [&](GgufTensorInfo& joined, std::initializer_list<Planned*> parts, const std::string& name) {
      joined = *(*parts.begin())->info;
      joined.name = name;
      joined.data = nullptr;
      const int rows_dim = joined.n_dims == 1 ? 0 : 1;  // a bias vector grows along its only dimension
      joined.ne[rows_dim] = 0;
      joined.bytes = 0;
      std::vector<const GgufTensorInfo*> infos;
      for (const Planned* part : parts) {
        joined.ne[rows_dim] += part->info->ne[rows_dim];
        joined.bytes += part->info->bytes;
        infos.push_back(part->info);
      }
      return infos;
    };
    for (uint32_t i = 0; i < hp.n_layer; ++i) {
      auto& L = w.layers[i];
      Planned *q = find(&L.wq), *k = find(&L.wk), *v = find(&L.wv);
      if (q == nullptr) {  // one weight in the file already
        Planned* qkv = find(&L.wqkv);
        qkv->matmul = !fused_norm_mm(weight_of(qkv->info));
      }
      const bool same = q != nullptr && q->info->dtype == k->info->dtype && q->info->dtype == v->info->dtype;
      const TensorRef wqkv = shape_only(same ? q->info->dtype : DType::F32, {E, NQ + 2 * KV, 1, 1});
      const TensorRef qkv_out = out_of(NQ + 2 * KV);
      const OpDescription plain(CLPORT_OP_MUL_MAT, {&wqkv, &xn1}, qkv_out, {});
      if (options.fusion && same && backend.plugin_for(plain.op) != "cpu") {
        const std::string b = "blk." + std::to_string(i) + ".";
        auto parts = join(joined_infos[i], {q, k, v}, b + "attn_q+k+v");
        std::vector<const GgufTensorInfo*> bias_parts;
        if (qkv_bias) bias_parts = join(joined_biases[i], {find(&L.bq), find(&L.bk), find(&L.bv)}, b + "attn_q+k+v.bias");
        const bool fused = fused_norm_mm(wqkv);
        // The three parts (and their biases) are replaced by the one weight (and one bias).
        plan.erase(std::remove_if(plan.begin(), plan.end(),
                                  [&](const Planned& p) {
                                    return p.slot == &L.wq || p.slot == &L.wk || p.slot == &L.wv || p.slot == &L.bq ||
                                           p.slot == &L.bk || p.slot == &L.bv;
                                  }),
                   plan.end());
        plan.push_back({&joined_infos[i], &L.wqkv, !fused, parts});
        if (!bias_parts.empty()) plan.push_back({&joined_biases[i], &L.bqkv, false, bias_parts});
      } else if (q != nullptr) {
        for (Planned* part : {q, k, v}) part->matmul = !fused_norm_mm(weight_of(part->info));
      }
      // With post-norms the output and down projections feed a norm, not the residual.
      const bool post_norms = hp.family->has(Slot::PostAttnNorm);
      Planned* wo = find(&L.wo);
      wo->matmul = post_norms || !fused_mm_add(weight_of(wo->info));
      Planned* down = find(&L.w_down);
      down->matmul = post_norms || !fused_mm_add(weight_of(down->info));
      Planned *g = find(&L.w_gate), *u = find(&L.w_up);
      const TensorRef wg = weight_of(g->info), wu = weight_of(u->info), act = out_of(wg.ne[1]);
      const bool ffn = hp.family->ffn_act == FfnActivation::Silu
                           ? model->claims(CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU, {&wg, &x1, &norm_w, &wu}, act, norm,
                                           &wg, &xn1, &act)
                           : fused_norm_mm(wg) && fused_norm_mm(wu);
      g->matmul = g->matmul && !ffn;
      u->matmul = u->matmul && !ffn;
    }
    Planned* out = hp.tied_output ? find(&w.tok_embd) : find(&w.output);
    if (out->matmul) {
      const TensorRef wt = weight_of(out->info), logits = out_of(wt.ne[1]);
      out->matmul = !model->claims(CLPORT_OP_RMS_NORM_MUL_MAT, {&wt, &x1, &norm_w}, logits, norm, &wt, &xn1, &logits);
    }
  }

  // Before the weights: the batch bounds the activation rows of their mat-muls.
  model->n_ctx_ = n_ctx;
  model->n_seq_ = options.n_seq;
  model->n_batch_ = prompt_batch(options, backend, model->n_ctx_);

  model->kv_type_k_ = dtype_of(options.kv_type_k);
  model->kv_type_v_ = dtype_of(options.kv_type_v);
  // The plans over stand-ins of the weights, KV cache and step buffers: what their plugins declare
  // as scratch is known before anything is placed.
  {
    const LlamaModel::Allocate describe = [](DType t, std::array<int64_t, 4> ne) -> Result<TensorRef> {
      return stand_in(t, ne);
    };
    for (const auto& p : plan) *p.slot = stand_in(p.info->dtype, p.info->ne);
    if (hp.tied_output) w.output = w.tok_embd;
    CLPORT_RETURN_IF_ERROR(model->place_kv_cache(describe));
    CLPORT_RETURN_IF_ERROR(model->make_step_buffers(describe));
    auto scratch = model->planned_scratch();
    if (!scratch.ok()) return scratch.status();
    model->declared_scratch_ = scratch.value();
  }

  uint64_t total = 0, done = 0;
  for (const auto& p : plan) total += p.info->bytes;
  // The memory limit, before anything is placed.
  LoadEstimate estimate;
  estimate.scratch = model->declared_scratch_;
  estimate.weights = total;
  estimate.n_seq = model->n_seq_;
  estimate.kv_cache = kv_cache_bytes(hp, model->n_ctx_, dtype_of(options.kv_type_k), dtype_of(options.kv_type_v)) * model->n_seq_;
  estimate.activations = activation_bytes(hp, model->n_batch_);
  CLPORT_RETURN_IF_ERROR(check_memory_limit(estimate, options.memory_limit_bytes, hp, model->n_ctx_,
                                            dtype_of(options.kv_type_k), dtype_of(options.kv_type_v)));
  for (const auto& p : plan) {
    WeightUse use;
    use.matmul = p.matmul;
    // GET_ROWS reads the token embedding in the file layout (plan_builder.cpp's embed()).
    use.file_layout = p.slot == &w.tok_embd;
    use.max_rows = model->n_batch_;
    use.keep_plain = options.keep_plain_weights;
    use.mapped = p.parts.empty() && file->file_mapped();
    std::shared_ptr<void> keep_alive = file;
    GgufTensorInfo joined;
    const GgufTensorInfo* info = p.info;
    if (!p.parts.empty()) {
      auto bytes = joined_bytes(p.parts, file->file_mapped());
      joined = *p.info;
      joined.data = bytes->data();
      info = &joined;
      keep_alive = bytes;
    }
    auto loaded = backend.load_weight(*info, std::move(keep_alive), use);
    if (!loaded.ok()) {
      return Status(loaded.status().stage(),
                    "loading '" + p.info->name + "': " + loaded.status().message());
    }
    *p.slot = loaded.value();
    done += p.info->bytes;
    if (progress) progress(done, total);
  }
  if (hp.tied_output) w.output = w.tok_embd;
  backend.release_idle_memory();

  const LlamaModel::Allocate from_backend = [&backend](DType t, std::array<int64_t, 4> ne) { return backend.alloc(t, ne); };
  CLPORT_RETURN_IF_ERROR(model->place_kv_cache(from_backend));
  CLPORT_RETURN_IF_ERROR(model->make_step_buffers(from_backend));
  // The arena is sized for a whole prompt batch now, and the prompt and one-token decode plans are
  // prepared, which is when plugins allocate their scratch (quantized activations, partial
  // results): running out of memory shows at load, where the recovery handles it, not at the
  // first step. A plan that needs more later (every row's logits, for perplexity) grows the arena.
  for (const uint32_t rows : {model->n_batch_, 1u}) {
    auto plan = model->prepared_plan_for(StepShape{{{0, rows}}}, 1, false);
    if (!plan.ok()) return plan.status();
  }
  logger("model")->info("loaded {} ({} layers, n_embd {}, n_head {}/{} kv, head size {}), vocab {}, ctx {} x {} sequence(s), on {}",
                        hp.arch, hp.n_layer, hp.n_embd, hp.n_head, hp.n_head_kv, hp.head_dim, hp.n_vocab, model->n_ctx_,
                        model->n_seq_, backend.description());
  return model;
}

}  // namespace clport
