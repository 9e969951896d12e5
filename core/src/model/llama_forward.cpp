// Running the model: token batches through the plan of their shape (llama_graph.cpp builds it
// once, llama_plan.cpp replays it).
#include <algorithm>
#include <cmath>

#include "model/llama_model.h"
#include "model/llama_weights.h"

namespace clport {

uint32_t LlamaModel::StepShape::tokens() const {
  uint32_t n = 0;
  for (const auto& e : entries) n += e.second;
  return n;
}

namespace {

Status check_tokens(const std::vector<int32_t>& tokens, uint32_t n_vocab) {
  for (int32_t id : tokens) {
    if (id < 0 || static_cast<uint32_t>(id) >= n_vocab) {
      return Status(Stage::InvalidArgument, "token id " + std::to_string(id) + " out of range (the vocabulary has " +
                                                std::to_string(n_vocab) + ")");
    }
  }
  return Status();
}

}  // namespace

Status LlamaModel::check_room(uint32_t seq, uint64_t n_past, uint64_t n_tokens) const {
  CLPORT_RETURN_IF_ERROR(check_sequence(seq));
  if (n_past + n_tokens <= n_ctx_) return Status();
  const std::string which = n_seq_ == 1 ? "" : " of sequence " + std::to_string(seq);
  return Status(Stage::InvalidArgument, "context full: " + std::to_string(n_past + n_tokens) +
                                            " tokens do not fit the KV cache" + which + " of " + std::to_string(n_ctx_) +
                                            " (raise --ctx)");
}

Status LlamaModel::warm_up_kernels() {
  std::vector<float> logits;
  CLPORT_RETURN_IF_ERROR(forward({0, 0}, 0, false, logits, 0));
  return forward({0}, 2, false, logits, 0);
}

Status LlamaModel::forward(const std::vector<int32_t>& tokens, uint32_t n_past, bool all_logits,
                           std::vector<float>& logits, uint32_t seq) {
  if (tokens.empty()) return Status(Stage::InvalidArgument, "no tokens to evaluate");
  CLPORT_RETURN_IF_ERROR(check_room(seq, n_past, tokens.size()));
  CLPORT_RETURN_IF_ERROR(check_tokens(tokens, hp_.n_vocab));
  // Every value is written below (the last batch's row, or every row): no fill first, which
  // costs tens of microseconds a token over a large vocabulary.
  logits.resize((all_logits ? tokens.size() : 1) * static_cast<size_t>(hp_.n_vocab));
  for (size_t start = 0; start < tokens.size(); start += n_batch_) {
    const uint32_t n = static_cast<uint32_t>(std::min<size_t>(n_batch_, tokens.size() - start));
    const bool last_batch = start + n == tokens.size();
    if (!all_logits && !last_batch) {
      CLPORT_RETURN_IF_ERROR(forward_batch(tokens.data() + start, n, n_past + start, false, nullptr, seq));
      continue;
    }
    float* out = all_logits ? logits.data() + start * hp_.n_vocab : logits.data();
    CLPORT_RETURN_IF_ERROR(forward_batch(tokens.data() + start, n, n_past + start, all_logits, out, seq));
  }
  return Status();
}

Status LlamaModel::forward_step(const std::vector<StepEntry>& entries, std::vector<float>& logits) {
  if (entries.empty()) return Status(Stage::InvalidArgument, "a step without entries");
  // The entry of several tokens goes first, so that every entry's last token is one of the
  // step's last entries.size() rows: the rows the vocabulary projection runs over.
  std::vector<size_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(), [&](size_t i) { return entries[i].tokens.size() > 1; });
  StepShape shape;
  std::vector<int32_t> tokens;
  std::vector<uint32_t> n_past;
  std::vector<bool> seen(n_seq_, false);
  for (size_t i : order) {
    const StepEntry& e = entries[i];
    if (e.tokens.empty()) return Status(Stage::InvalidArgument, "step entry " + std::to_string(i) + " has no tokens");
    if (e.tokens.size() > 1 && i != order.front()) {
      return Status(Stage::InvalidArgument, "step entry " + std::to_string(i) +
                                                " has several tokens, as another entry does: one step runs one such entry");
    }
    CLPORT_RETURN_IF_ERROR(check_room(e.seq, e.n_past, e.tokens.size()));
    if (seen[e.seq]) {
      return Status(Stage::InvalidArgument, "sequence " + std::to_string(e.seq) + " appears twice in one step");
    }
    seen[e.seq] = true;
    CLPORT_RETURN_IF_ERROR(check_tokens(e.tokens, hp_.n_vocab));
    shape.entries.emplace_back(e.seq, static_cast<uint32_t>(e.tokens.size()));
    tokens.insert(tokens.end(), e.tokens.begin(), e.tokens.end());
    n_past.push_back(e.n_past);
  }
  if (tokens.size() > n_batch_) {
    return Status(Stage::InvalidArgument, std::to_string(tokens.size()) + " tokens in one step; the prompt batch is " +
                                              std::to_string(n_batch_) + " (raise -b, or split the step)");
  }
  const size_t V = hp_.n_vocab;
  logits.resize(entries.size() * V);
  // A step of one token per entry (every decode step) keeps the entries' order: its rows go
  // straight into logits. At 64 sequences of a 49152-token vocabulary a step's rows are 12 MiB,
  // and a fresh buffer and a copy of them cost about as much as the step's attention.
  if (std::is_sorted(order.begin(), order.end())) {
    return run_step(shape, tokens.data(), n_past, static_cast<int64_t>(entries.size()), logits.data());
  }
  std::vector<float> rows(entries.size() * V);
  CLPORT_RETURN_IF_ERROR(run_step(shape, tokens.data(), n_past, static_cast<int64_t>(entries.size()), rows.data()));
  for (size_t r = 0; r < order.size(); ++r) {
    std::copy(rows.begin() + r * V, rows.begin() + (r + 1) * V, logits.begin() + order[r] * V);
  }
  return Status();
}

Result<ForwardPlan*> LlamaModel::plan_for(const StepShape& shape, int64_t logit_rows, bool hooked) {
  const Plans::Key key{shape, logit_rows, hooked};
  auto it = plans_->by_shape.find(key);
  if (it != plans_->by_shape.end()) {
    plans_->used(key);
    return &it->second;
  }
  ForwardPlan plan = build_plan(shape, logit_rows, hooked);
  const ActivationPlacement placement = s_->slots.place(plan);
  if (!s_->arena.valid() || placement.bytes > s_->arena.bytes()) {
    // The old arena goes first, so that the two are never held at once.
    plans_->by_shape.clear();
    plans_->by_use.clear();
    s_->arena = TensorRef();
    const auto words = static_cast<int64_t>(placement.bytes / sizeof(float));
    auto arena = backend_.alloc(DType::F32, {std::max<int64_t>(words, 1), 1, 1, 1});
    if (!arena.ok()) {
      return Status(arena.status().stage(), "activations of a " + std::to_string(shape.tokens()) + "-token step (" +
                                                std::to_string(placement.bytes) + " bytes): " + arena.status().message());
    }
    s_->arena = arena.value();
  }
  s_->slots.rebase(plan, placement, s_->arena);
  if (plans_->by_use.size() >= plans_->max_plans) {
    plans_->by_shape.erase(plans_->by_use.front());
    plans_->by_use.erase(plans_->by_use.begin());
  }
  plans_->by_use.push_back(key);
  return &plans_->by_shape.emplace(key, std::move(plan)).first->second;
}

void LlamaModel::Plans::used(const Key& key) {
  auto at = std::find(by_use.begin(), by_use.end(), key);
  if (at == by_use.end() || at + 1 == by_use.end()) return;
  by_use.erase(at);
  by_use.push_back(key);
}

Result<const ForwardPlan*> LlamaModel::prepared_plan_for(const StepShape& shape, int64_t logit_rows, bool hooked) {
  auto plan = plan_for(shape, logit_rows, hooked);
  if (!plan.ok()) return plan.status();
  if (!plan.value()->prepared) CLPORT_RETURN_IF_ERROR(prepare_plan(backend_, *plan.value()));
  return static_cast<const ForwardPlan*>(plan.value());
}

LlamaModel::PlanSummary LlamaModel::decode_plan_summary() {
  auto plan = plan_for(StepShape{{{0, 1}}}, 1, false);
  if (!plan.ok()) return {};
  PlanSummary summary{static_cast<int>(plan.value()->nodes.size()), plan.value()->fused_nodes};
  if (plan.value()->prepared) {
    summary.launches = static_cast<int>(plan.value()->launches.size());
    summary.grouped_runs = plan.value()->grouped_runs;
  }
  return summary;
}

Status LlamaModel::run_step(const StepShape& shape, const int32_t* tokens, const std::vector<uint32_t>& n_past,
                            int64_t logit_rows, float* logits_out) {
  auto plan = prepared_plan_for(shape, logit_rows, static_cast<bool>(layer_hook_));
  if (!plan.ok()) return plan.status();
  const uint32_t n = shape.tokens();
  const TensorRef ids = view(s_->ids, {n, 1, 1, 1}, 0);
  CLPORT_RETURN_IF_ERROR(backend_.upload(ids, tokens, n * sizeof(int32_t)));
  if (plan.value()->uses_cells) {
    std::vector<int32_t> cells;
    cells.reserve(2 * static_cast<size_t>(n));
    for (size_t e = 0; e < shape.entries.size(); ++e) {
      for (uint32_t i = 0; i < shape.entries[e].second; ++i) {
        cells.push_back(static_cast<int32_t>(shape.entries[e].first));
        cells.push_back(static_cast<int32_t>(n_past[e] + i));
      }
    }
    CLPORT_RETURN_IF_ERROR(backend_.upload(view(s_->cells, {2, n, 1, 1}, 0), cells.data(), cells.size() * sizeof(int32_t)));
  }
  CLPORT_RETURN_IF_ERROR(run_plan(*plan.value(), n_past, static_cast<int>(n), layer_hook_));
  if (logits_out == nullptr) return backend_.sync();
  return backend_.download(plan.value()->logits, logits_out,
                           static_cast<uint64_t>(logit_rows) * hp_.n_vocab * sizeof(float));
}

Status LlamaModel::forward_batch(const int32_t* tokens, uint32_t n, uint32_t n_past,
                                 bool all_logits, float* logits_out, uint32_t seq) {
  const int64_t rows = logits_out == nullptr ? 0 : all_logits ? n : 1;
  return run_step(StepShape{{{seq, n}}}, tokens, {n_past}, rows, logits_out);
}

}  // namespace clport
