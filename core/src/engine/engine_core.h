// The text-generation engine behind clport/engine.h, with what clport's own tools reach besides
// (the model, its backend and file, the program bundles): one model file, its tokenizer, the
// backend chosen for it (the best OpenCL device the policy allows, else the CPU), and the
// generation loop with timings.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "clport/engine.h"
#include "clport/export.h"
#include "model/llama_model.h"
#include "programs/program_cache.h"
#include "clport/sampler.h"
#include "clport/status.h"
#include "clport/tokenizer.h"

namespace clport {

class GgufFile;
class Policy;

// Used from one thread at a time (the C API and the server serialise their calls).
class CLPORT_API EngineCore {
 public:
  using Progress = std::function<void(uint64_t done, uint64_t total)>;
  static Result<std::unique_ptr<EngineCore>> open(const EngineOptions& options,
                                              const Progress& progress = {});
  ~EngineCore();

  Tokenizer& tokenizer() { return *tokenizer_; }
  // The model and its backend. Both are replaced (the old references dangle) when the device runs
  // out of memory at load or fails during a generation and the engine moves to the CPU path.
  LlamaModel& model() { return *model_; }
  Backend& backend() { return *backend_; }
  const GgufFile& file() const { return *file_; }
  std::shared_ptr<GgufFile> shared_file() const { return file_; }
  const EngineOptions& options() const { return options_; }
  double load_seconds() const { return load_seconds_; }

  // What Engine (clport/engine.h) forwards to, documented there. The device failure a generation
  // recovers from is recorded as selftest/device_failure.h says; saved states are
  // engine/sequence_state.h's files.
  using DeviceStart = clport::DeviceStart;
  DeviceStart device_start() const;
  std::string background_device() const;
  Status wait_for_device();
  Status generate(const std::vector<int32_t>& prompt, int n_predict, Sampler& sampler,
                  const std::function<bool(int32_t)>& on_token, GenerationStats* stats,
                  const std::vector<int32_t>& stop_tokens = {});
  Status generate_reusing_cache(const std::vector<int32_t>& prompt, int n_predict, Sampler& sampler,
                                const std::function<bool(int32_t)>& on_token, GenerationStats* stats,
                                const std::vector<int32_t>& stop_tokens = {}, uint32_t seq = 0);
  const std::vector<int32_t>& cached_tokens(uint32_t seq = 0) const;
  uint32_t n_seq() const { return static_cast<uint32_t>(cached_.size()); }
  Status rewind(size_t n, uint32_t seq = 0);
  Status fork(uint32_t from, uint32_t to);
  Status save_state(const std::string& path, uint32_t seq = 0);
  Status load_state(const std::string& path, uint32_t seq = 0);
  using SequenceInput = clport::SequenceInput;
  Status evaluate(const std::vector<SequenceInput>& inputs, std::vector<float>& logits);

 private:
  EngineCore() = default;
  // engine_recovery.cpp: loads the model on backend_, moving to the CPU path when the device runs
  // out of memory (unless the user named the device); and runs a forward step, moving the
  // generation to the CPU path when the device fails. `history`: the prompt (its first
  // prompt_tokens) and the tokens generated so far, ending with `tokens` being evaluated.
  Status load_model(const Progress& progress);
  Status forward_or_move_to_cpu(const std::vector<int32_t>& tokens, uint32_t n_past,
                                const std::vector<int32_t>& history, size_t prompt_tokens,
                                std::vector<float>& logits, GenerationStats& stats, uint32_t seq);
  // After `failed` (a device failure): records it, says so in *note, and reloads the model on the
  // CPU path; every sequence's cache is then empty until evaluated again there.
  Status move_to_cpu_path(const Status& failed, const std::string& what_so_far, std::string* note);
  // Evaluates the cached tokens of every sequence but `except` again (after a move to the CPU).
  Status reevaluate_sequences(uint32_t except);
  Status check_sequence(uint32_t seq) const;
  // engine_device_start.cpp: the backend at open (the CPU path first when the device needs
  // setting up), the background device load, and the move to it at a step boundary.
  struct DeviceLoad;
  Status open_backend(const Progress& progress);
  void start_device_load(std::shared_ptr<DeviceLoad> load);
  // Moves to the background-loaded device when it is ready; *moved says whether it did.
  Status move_to_device_if_ready(bool* moved);
  // run_generation's step boundary: the move, noted in stats (`generated` tokens so far).
  Status device_move_boundary(GenerationStats& stats);
  // At destruction: a load still running is left to finish on its own (detached_device_loads()).
  void release_device_load();
  // generate and generate_reusing_cache: evaluates prompt from position `keep` (the sequence
  // holds its first keep tokens), then samples.
  Status run_generation(const std::vector<int32_t>& prompt, size_t keep, int n_predict, Sampler& sampler,
                        const std::function<bool(int32_t)>& on_token, GenerationStats* stats,
                        const std::vector<int32_t>& stop_tokens, uint32_t seq);
  // evaluate() on the backend as it is: the prompts, then the last tokens in steps.
  Status evaluate_inputs(const std::vector<SequenceInput>& inputs, std::vector<float>& logits);
  // The model file's SHA-256 (hex), read once: what a saved state is bound to.
  Result<std::string> model_sha256();
  std::shared_ptr<GgufFile> file_;
  std::unique_ptr<Tokenizer> tokenizer_;
  std::vector<std::vector<int32_t>> cached_;  // by sequence
  std::string model_sha256_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<LlamaModel> model_;
  std::shared_ptr<DeviceLoad> device_load_;  // while a background device load is pending
  bool moved_to_device_ = false;
  bool device_load_failed_ = false;
  double load_seconds_ = 0;
  EngineOptions options_;
};

// Program bundles: the program cache of the device EngineOptions choose (its compiled programs,
// self-test verdict and tuning) in one file, and back into a cache elsewhere, so an app can ship
// the programs of a device it knows. A bundle records the device, driver, platform and clport
// version it was made for; imported where they differ, nothing is written (skipped, with a note).
// A truncated or altered bundle is a Stage::Io error and the cache is left as it was.
CLPORT_API Result<CacheBundleSummary> export_program_bundle(const EngineOptions& options, const std::string& path);
CLPORT_API Result<CacheBundleSummary> import_program_bundle(const EngineOptions& options, const std::string& path);

// Chooses and creates the backend for EngineOptions (device selection, plugins, policy).
// Defined in engine_backend.cpp.
CLPORT_API Result<std::unique_ptr<Backend>> create_backend(const EngineOptions& options);
// The policy create_backend judges devices with: the shipped files, config_path (else
// CLPORT_CONFIG), config_texts, and the forced plugin as a rule.
CLPORT_API Result<Policy> engine_policy(const EngineOptions& options);

}  // namespace clport
