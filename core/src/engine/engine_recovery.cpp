// What the engine does when the device gives out: at load, out of device memory moves the model
// to the CPU path; during a generation, a failed OpenCL call moves the whole run there, the
// device is recorded as failing, and the tokens so far are evaluated again so the text goes on.
#include <cstdio>
#include <string>

#include "probe/device_info.h"
#include "engine/engine_core.h"
#include "gguf/gguf.h"
#include "common/logger.h"
#include "engine/engine_backend.h"

namespace clport {
namespace {

std::string mib(uint64_t bytes) {
  const double m = static_cast<double>(bytes) / (1024.0 * 1024.0);
  char text[32];
  std::snprintf(text, sizeof(text), m < 10 ? "%.2f MiB" : "%.0f MiB", m);
  return text;
}

// Out of memory as the pool reports it, or as an upload or a plugin passes on an OpenCL code.
bool out_of_device_memory(const Status& status) {
  if (status.stage() == Stage::OutOfMemory) return true;
  for (const char* code : {"CL_MEM_OBJECT_ALLOCATION_FAILURE", "CL_OUT_OF_RESOURCES", "CL_OUT_OF_HOST_MEMORY"}) {
    if (status.message().find(code) != std::string::npos) return true;
  }
  return false;
}

uint64_t weight_bytes(const GgufFile& file) {
  uint64_t total = 0;
  for (const auto& t : file.tensors()) total += t.bytes;
  return total;
}

// "the weights are 92 MiB; 'X' reports 1024 MiB of global memory and a largest allocation of
// 256 MiB": what was asked of the device against what it says it has.
std::string sizes(const GgufFile& file, const DeviceInfo& device) {
  return "the weights are " + mib(weight_bytes(file)) + "; '" + device.name + "' reports " +
         mib(device.global_mem_bytes) + " of global memory and a largest allocation of " +
         mib(device.max_alloc_bytes);
}

}  // namespace

Status EngineCore::load_model(const Progress& progress) {
  auto model = LlamaModel::load(file_, *backend_, options_.model, progress);
  if (!model.ok() && backend_->device_info() != nullptr && out_of_device_memory(model.status())) {
    const std::string what = "out of device memory while loading the model (" +
                             model.status().message() + "); " + sizes(*file_, *backend_->device_info());
    if (detail::names_device(options_)) {
      return Status(Stage::OutOfMemory, what + "; --device auto would run it on the CPU path");
    }
    logger("engine")->warn("{}; running on the CPU", what);
    backend_.reset();  // every buffer of the partial model is gone already: release the device
    backend_ = detail::create_cpu_path_backend(options_);
    model = LlamaModel::load(file_, *backend_, options_.model, progress);
  }
  if (!model.ok()) return model.status();
  model_ = std::move(model.value());
  return Status::ok_status();
}

Status EngineCore::move_to_cpu_path(const Status& failed, const std::string& what_so_far, std::string* note) {
  const DeviceInfo device = *backend_->device_info();
  auto record = backend_->record_failure(failed.to_string());
  const std::string next_start =
      !record.ok() ? "' is tried again at the next start: the failure could not be recorded (" +
                         record.status().message() + ")"
      : record.value().empty() ? "' is tried again at the next start: the cache is off, so the failure is not remembered"
                               : "' is avoided from now on until its driver changes (recorded in " + record.value() + ")";
  *note = failed.to_string() + " on '" + device.name + "' (driver " + device.driver_version +
          "); the run moved to the CPU path, " + what_so_far + " evaluated again there; '" + device.name + next_start;
  logger("engine")->warn("{}", *note);

  // The model goes before its backend: this releases every device buffer, then the context.
  model_.reset();
  backend_.reset();
  backend_ = detail::create_cpu_path_backend(options_);
  auto model = LlamaModel::load(file_, *backend_, options_.model);
  if (!model.ok()) {
    return Status(model.status().stage(), "moving the run to the CPU path after '" + failed.to_string() +
                                              "': " + model.status().message());
  }
  model_ = std::move(model.value());
  return Status::ok_status();
}

Status EngineCore::reevaluate_sequences(uint32_t except) {
  std::vector<float> logits;
  for (uint32_t s = 0; s < cached_.size(); ++s) {
    if (s == except || cached_[s].empty()) continue;
    Status again = model_->forward(cached_[s], 0, false, logits, s);
    if (!again.ok()) {
      cached_[s].clear();
      return again;
    }
  }
  return Status::ok_status();
}

Status EngineCore::forward_or_move_to_cpu(const std::vector<int32_t>& tokens, uint32_t n_past,
                                      const std::vector<int32_t>& history, size_t prompt_tokens,
                                      std::vector<float>& logits, GenerationStats& stats, uint32_t seq) {
  Status failed = model_->forward(tokens, n_past, false, logits, seq);
  // Caller errors (a full context, a bad token) are the same on every backend.
  if (failed.ok() || backend_->device_info() == nullptr || failed.stage() == Stage::InvalidArgument) {
    return failed;
  }
  const size_t generated = history.size() - prompt_tokens;
  CLPORT_RETURN_IF_ERROR(move_to_cpu_path(failed,
                                          "the " + std::to_string(history.size()) + " tokens so far (prompt " +
                                              std::to_string(prompt_tokens) + ", generated " +
                                              std::to_string(generated) + ")",
                                          &stats.device_failure));
  CLPORT_RETURN_IF_ERROR(reevaluate_sequences(seq));
  // As the CPU path would have run them from the start: the prompt in one step, then each
  // generated token on its own, so the text from here on is the CPU path's.
  CLPORT_RETURN_IF_ERROR(model_->forward(std::vector<int32_t>(history.begin(), history.begin() + prompt_tokens),
                                         0, false, logits, seq));
  for (size_t i = prompt_tokens; i < history.size(); ++i) {
    CLPORT_RETURN_IF_ERROR(model_->forward({history[i]}, static_cast<uint32_t>(i), false, logits, seq));
  }
  return Status::ok_status();
}

}  // namespace clport
