// Several conversations on one engine: a step over many sequences (EngineCore::evaluate), and forking
// one sequence into another.
#include <algorithm>
#include <string>

#include "engine/engine_core.h"
#include "model/llama_model.h"

namespace clport {

const std::vector<int32_t>& EngineCore::cached_tokens(uint32_t seq) const {
  static const std::vector<int32_t> kNone;
  return seq < cached_.size() ? cached_[seq] : kNone;
}

Status EngineCore::check_sequence(uint32_t seq) const {
  if (seq < cached_.size()) return Status::ok_status();
  return Status(Stage::InvalidArgument, "sequence " + std::to_string(seq) + " out of range: the engine holds " +
                                            std::to_string(cached_.size()) + " (0 to " +
                                            std::to_string(cached_.size() - 1) + "; raise --parallel)");
}

Status EngineCore::fork(uint32_t from, uint32_t to) {
  CLPORT_RETURN_IF_ERROR(check_sequence(from));
  CLPORT_RETURN_IF_ERROR(check_sequence(to));
  if (from == to) return Status::ok_status();
  cached_[to].clear();
  CLPORT_RETURN_IF_ERROR(model_->copy_kv(from, to, static_cast<uint32_t>(cached_[from].size())));
  cached_[to] = cached_[from];
  return Status::ok_status();
}

Status EngineCore::evaluate_inputs(const std::vector<SequenceInput>& inputs, std::vector<float>& logits) {
  // The tokens before each input's last run on their own, sequence by sequence (a prompt's
  // GEMMs are as wide as its batch already).
  std::vector<float> unused;
  for (const SequenceInput& in : inputs) {
    if (in.tokens.size() < 2) continue;
    const std::vector<int32_t> head(in.tokens.begin(), in.tokens.end() - 1);
    CLPORT_RETURN_IF_ERROR(model_->forward(head, static_cast<uint32_t>(cached_[in.seq].size()), false, unused, in.seq));
    cached_[in.seq].insert(cached_[in.seq].end(), head.begin(), head.end());
  }
  // The last tokens together, as many per step as the prompt batch takes.
  const size_t V = model_->hparams().n_vocab, per_step = std::max<uint32_t>(model_->n_batch(), 1);
  // One step for all the inputs (a decode step within the batch) writes logits itself, with no
  // copy of its rows; more steps go through step_logits.
  const bool one_step = inputs.size() <= per_step;
  if (!one_step) logits.resize(inputs.size() * V);
  std::vector<float> step_logits;
  for (size_t first = 0; first < inputs.size(); first += per_step) {
    const size_t end = std::min(inputs.size(), first + per_step);
    std::vector<LlamaModel::StepEntry> step;
    for (size_t i = first; i < end; ++i) {
      const SequenceInput& in = inputs[i];
      step.push_back({in.seq, static_cast<uint32_t>(cached_[in.seq].size()), {in.tokens.back()}});
    }
    CLPORT_RETURN_IF_ERROR(model_->forward_step(step, one_step ? logits : step_logits));
    if (!one_step)
      std::copy(step_logits.begin(), step_logits.end(), logits.begin() + static_cast<std::ptrdiff_t>(first * V));
    for (size_t i = first; i < end; ++i) cached_[inputs[i].seq].push_back(inputs[i].tokens.back());
  }
  return Status::ok_status();
}

Status EngineCore::evaluate(const std::vector<SequenceInput>& inputs, std::vector<float>& logits) {
  if (inputs.empty()) return Status(Stage::InvalidArgument, "no sequences to evaluate");
  std::vector<bool> seen(cached_.size(), false);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const SequenceInput& in = inputs[i];
    CLPORT_RETURN_IF_ERROR(check_sequence(in.seq));
    if (seen[in.seq]) {
      return Status(Stage::InvalidArgument, "sequence " + std::to_string(in.seq) + " is given twice in one step");
    }
    seen[in.seq] = true;
    if (in.tokens.empty()) {
      return Status(Stage::InvalidArgument, "the input for sequence " + std::to_string(in.seq) + " has no tokens");
    }
    const uint64_t needed = cached_[in.seq].size() + in.tokens.size();
    if (needed > model_->n_ctx()) {
      return Status(Stage::InvalidArgument, "context full: sequence " + std::to_string(in.seq) + " would hold " +
                                                std::to_string(needed) + " tokens but each sequence holds " +
                                                std::to_string(model_->n_ctx()) + " (raise --ctx)");
    }
  }
  bool moved_to_device = false;
  CLPORT_RETURN_IF_ERROR(move_to_device_if_ready(&moved_to_device));
  // What the caches held before: the tokens to evaluate again if the device fails.
  std::vector<std::vector<int32_t>> before;
  for (const SequenceInput& in : inputs) before.push_back(cached_[in.seq]);
  Status failed = evaluate_inputs(inputs, logits);
  if (failed.ok()) return failed;
  if (backend_->device_info() == nullptr || failed.stage() == Stage::InvalidArgument) {
    for (const SequenceInput& in : inputs) cached_[in.seq].clear();
    return failed;
  }
  for (size_t i = 0; i < inputs.size(); ++i) cached_[inputs[i].seq] = before[i];
  uint64_t held = 0;
  for (const auto& c : cached_) held += c.size();
  std::string note;
  Status moved = move_to_cpu_path(failed, "the " + std::to_string(held) + " cached tokens of its sequences", &note);
  if (moved.ok()) moved = reevaluate_sequences(static_cast<uint32_t>(cached_.size()));
  if (moved.ok()) moved = evaluate_inputs(inputs, logits);
  if (!moved.ok()) {
    for (auto& c : cached_) c.clear();
    return moved;
  }
  return Status::ok_status();
}

}  // namespace clport
