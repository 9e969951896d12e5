// Running the model: token batches through the plan of their shape (llama_graph.cpp builds it
// once, llama_plan.cpp replays it).
#include <algorithm>
#include <cmath>

#include "clport/llama_model.h"
#include "model/llama_weights.h"

namespace clport {

Status LlamaModel::forward(const std::vector<int32_t>& tokens, uint32_t n_past, bool all_logits,
                           std::vector<float>& logits) {
  if (tokens.empty()) return Status(Stage::InvalidArgument, "no tokens to evaluate");
  if (static_cast<uint64_t>(n_past) + tokens.size() > n_ctx_) {
    return Status(Stage::InvalidArgument,
                  "context full: " + std::to_string(n_past + tokens.size()) +
                      " tokens do not fit the KV cache of " + std::to_string(n_ctx_) +
                      " (raise --ctx)");
  }
  for (int32_t id : tokens) {
    if (id < 0 || static_cast<uint32_t>(id) >= hp_.n_vocab) {
      return Status(Stage::InvalidArgument, "token id " + std::to_string(id) + " out of range");
    }
  }
  // Every value is written below (the last batch's row, or every row): no fill first, which
  // costs tens of microseconds a token over a large vocabulary.
  logits.resize((all_logits ? tokens.size() : 1) * static_cast<size_t>(hp_.n_vocab));
  for (size_t start = 0; start < tokens.size(); start += n_batch_) {
    const uint32_t n = static_cast<uint32_t>(std::min<size_t>(n_batch_, tokens.size() - start));
    const bool last_batch = start + n == tokens.size();
    if (!all_logits && !last_batch) {
      CLPORT_RETURN_IF_ERROR(forward_batch(tokens.data() + start, n, n_past + start, false, nullptr));
      continue;
    }
    float* out = all_logits ? logits.data() + start * hp_.n_vocab : logits.data();
    CLPORT_RETURN_IF_ERROR(forward_batch(tokens.data() + start, n, n_past + start, all_logits, out));
  }
  return Status();
}

Result<ForwardPlan*> LlamaModel::plan_for(uint32_t n, int64_t logit_rows, bool hooked) {
  const auto key = std::make_tuple(n, logit_rows, hooked);
  auto it = plans_->by_shape.find(key);
  if (it != plans_->by_shape.end()) return &it->second;
  ForwardPlan plan = build_plan(n, logit_rows, hooked);
  const ActivationPlacement placement = s_->slots.place(plan);
  if (!s_->arena.valid() || placement.bytes > s_->arena.bytes()) {
    // The old arena goes first, so that the two are never held at once.
    plans_->by_shape.clear();
    s_->arena = TensorRef();
    const auto words = static_cast<int64_t>(placement.bytes / sizeof(float));
    auto arena = backend_.alloc(DType::F32, {std::max<int64_t>(words, 1), 1, 1, 1});
    if (!arena.ok()) {
      return Status(arena.status().stage(), "activations of a " + std::to_string(n) + "-token step (" +
                                                std::to_string(placement.bytes) + " bytes): " + arena.status().message());
    }
    s_->arena = arena.value();
  }
  s_->slots.rebase(plan, placement, s_->arena);
  return &plans_->by_shape.emplace(key, std::move(plan)).first->second;
}

Result<const ForwardPlan*> LlamaModel::prepared_plan_for(uint32_t n, int64_t logit_rows, bool hooked) {
  auto plan = plan_for(n, logit_rows, hooked);
  if (!plan.ok()) return plan.status();
  if (!plan.value()->prepared) CLPORT_RETURN_IF_ERROR(prepare_plan(backend_, *plan.value()));
  return static_cast<const ForwardPlan*>(plan.value());
}

LlamaModel::PlanSummary LlamaModel::decode_plan_summary() {
  auto plan = plan_for(1, 1, false);
  if (!plan.ok()) return {};
  PlanSummary summary{static_cast<int>(plan.value()->nodes.size()), plan.value()->fused_nodes};
  if (plan.value()->prepared) {
    summary.launches = static_cast<int>(plan.value()->launches.size());
    summary.grouped_runs = plan.value()->grouped_runs;
  }
  return summary;
}

Status LlamaModel::forward_batch(const int32_t* tokens, uint32_t n, uint32_t n_past,
                                 bool all_logits, float* logits_out) {
  const int64_t rows = logits_out == nullptr ? 0 : all_logits ? n : 1;
  auto plan = prepared_plan_for(n, rows, static_cast<bool>(layer_hook_));
  if (!plan.ok()) return plan.status();
  const TensorRef ids = view(s_->ids, {n, 1, 1, 1}, 0);
  CLPORT_RETURN_IF_ERROR(backend_.upload(ids, tokens, n * sizeof(int32_t)));
  CLPORT_RETURN_IF_ERROR(run_plan(*plan.value(), n_past, static_cast<int>(n), layer_hook_));
  if (logits_out == nullptr) return backend_.sync();
  return backend_.download(plan.value()->logits, logits_out, static_cast<uint64_t>(rows) * hp_.n_vocab * sizeof(float));
}

}  // namespace clport
