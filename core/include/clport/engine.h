// The text-generation engine: one model file, its tokenizer, the backend chosen for it (the best
// OpenCL device the policy allows, else the CPU), and the generation loop with timings.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "clport/backend.h"
#include "clport/export.h"
#include "clport/llama_model.h"
#include "clport/program_cache.h"
#include "clport/sampler.h"
#include "clport/status.h"
#include "clport/tokenizer.h"

namespace clport {

class GgufFile;
class Policy;

struct EngineOptions {
  std::string model_path;
  // "auto": best OpenCL device, CPU when none is usable (with a warning); "cpu"; or an index
  // into the device list of `clport devices`.
  std::string device = "auto";
  std::string plugin;       // force one plugin for every op it supports ("" = policy decides)
  std::string config_path;  // user policy file layered on the defaults
  // Policy YAML texts layered after config_path, in order (the C API's policy text, fp32).
  std::vector<std::string> config_texts;
  LlamaOptions llama;
  // The application chose llama.kv_type_k / kv_type_v: else the policy's cache_type_k /
  // cache_type_v apply where it sets them. Likewise a llama.memory_limit_bytes of 0 takes the
  // policy's memory_limit.
  bool kv_types_set = false;
  bool profiling = false;   // OpenCL profiling events for `clport profile`
  int n_threads = 0;        // CPU backend threads (0 = all cores)
  // CPU backend: float activations for quantized mat-muls (precision fp32: slower, exact as
  // the reference) instead of 8-bit ones. The policy's `precision: fp32` sets it too.
  bool cpu_float_activations = false;
  // Directory for the program cache, the self-test verdict, the tuning file and the record of
  // devices that failed during a run (clport/cache_location.h): "" = the policy's cache_dir:,
  // then CLPORT_CACHE_DIR, then $XDG_CACHE_HOME / $HOME; "off" = no cache. An app without HOME
  // (Android) passes its cache directory here.
  std::string cache_dir;
  // Start on the CPU path at once when the OpenCL device chosen by "auto" was never set up with
  // this driver and clport version (its self-test builds every program: minutes on PoCL). The
  // device loads in the background, and the work moves to it at the first step boundary after it
  // is ready (GenerationStats::device_move says where). Off: wait for the device, as a device
  // named by index always does, and as the policy's `device_start: wait` makes every load do.
  bool cpu_first_start = false;
  // Progress of a device's first set-up (the driver self-test, which builds every program): cases
  // done and cases in all. Called on the thread that sets the device up.
  std::function<void(size_t done, size_t total)> setup_progress;
  // Tests: runs on the background loading thread before the device load, to choose when the
  // device becomes ready.
  std::function<void()> before_background_device_load;
};

struct GenerationStats {
  double load_seconds = 0;
  int prompt_tokens = 0;
  // Of them, how many the KV cache held already (Engine::generate_reusing_cache): not evaluated.
  int cached_tokens = 0;
  double prompt_seconds = 0;
  int generated_tokens = 0;
  double generation_seconds = 0;
  // Set when the device failed during this generation and the run moved to the CPU path: what
  // failed, on which device, and where that device's failure is recorded (the logged warning).
  std::string device_failure;
  // Set when the engine moved from the CPU path to the device it loaded in the background during
  // this generation: which device produced which part. tokens_before_device_move: the generated
  // tokens sampled from the CPU path's logits (0: the prompt ran on the device already).
  std::string device_move;
  int tokens_before_device_move = -1;
  // Of the tokens evaluated (the cached ones were not).
  double prompt_tokens_per_second() const {
    return prompt_seconds > 0 ? (prompt_tokens - cached_tokens) / prompt_seconds : 0;
  }
  double generation_tokens_per_second() const {
    return generation_seconds > 0 ? generated_tokens / generation_seconds : 0;
  }
};

// An engine is used from one thread at a time (the C API and the server serialise their calls).
class CLPORT_API Engine {
 public:
  using Progress = std::function<void(uint64_t done, uint64_t total)>;
  static Result<std::unique_ptr<Engine>> open(const EngineOptions& options,
                                              const Progress& progress = {});
  ~Engine();

  Tokenizer& tokenizer() { return *tokenizer_; }
  // The model and its backend. Both are replaced (the old references dangle) when the device runs
  // out of memory at load or fails during a generation and the engine moves to the CPU path.
  LlamaModel& model() { return *model_; }
  Backend& backend() { return *backend_; }
  const GgufFile& file() const { return *file_; }
  std::shared_ptr<GgufFile> shared_file() const { return file_; }
  const EngineOptions& options() const { return options_; }
  double load_seconds() const { return load_seconds_; }

  // The background device load of a CPU-first start (EngineOptions::wait_for_device).
  enum class DeviceStart {
    None,     // no background load: the engine runs where it started
    Loading,  // on the CPU path; the device loads in the background
    Ready,    // loaded: the engine moves to it at the next step boundary
    Failed,   // the device could not be loaded (logged); the engine stays on the CPU path
    Moved,    // the engine runs on the device it loaded
  };
  DeviceStart device_start() const;
  // The device a CPU-first start loads in the background ("" when none).
  std::string background_device() const;
  // Waits for the background device load to end and moves to the device when it succeeded (as a
  // step boundary would): for an app that wants the device before the next turn. A failure of
  // the move itself is returned; a device that could not be loaded is not an error.
  Status wait_for_device();

  // Evaluates the prompt (from position 0, the cache is reused from scratch), then samples up
  // to n_predict tokens, calling on_token for each (return false to stop). Stops at an
  // end-of-generation token. A context too small for the prompt and all but the last of the
  // n_predict tokens is an InvalidArgument status saying how many fit and what to raise (the
  // tokens generated until then have been passed to on_token). `stop_tokens` end generation
  // too (a chat family's end-of-turn tokens: chat_stop_tokens()); like an end-of-generation
  // token, a stop token is not passed to on_token.
  // When an OpenCL call fails during the generation (an enqueue, a read, a finish), the device
  // is recorded as failing (clport/device_failure.h), the run moves to the CPU path, the tokens
  // so far are evaluated again there as the CPU path evaluates them, and the generation goes on
  // (stats->device_failure says so); on_token sees every token once.
  Status generate(const std::vector<int32_t>& prompt, int n_predict, Sampler& sampler,
                  const std::function<bool(int32_t)>& on_token, GenerationStats* stats,
                  const std::vector<int32_t>& stop_tokens = {});

  // A conversation goes on in the KV cache. Each sequence s (0 .. n_seq - 1, EngineOptions::llama.
  // n_seq) holds cached_tokens(s) at positions 0..n-1: what its last generation evaluated (its
  // prompt and every token it fed back), a loaded state, or what evaluate() appended.
  // generate_reusing_cache is generate for a prompt that repeats the conversation so far: only
  // what follows its longest common prefix with cached_tokens(seq) is evaluated (at least the
  // last token, whose logits start the sampling); the cached tokens past the prefix are dropped.
  // stats->cached_tokens says how many were reused. After an error the sequence is treated as
  // empty. generate() is sequence 0 from position 0.
  Status generate_reusing_cache(const std::vector<int32_t>& prompt, int n_predict, Sampler& sampler,
                                const std::function<bool(int32_t)>& on_token, GenerationStats* stats,
                                const std::vector<int32_t>& stop_tokens = {}, uint32_t seq = 0);
  // (Empty for a sequence out of range.)
  const std::vector<int32_t>& cached_tokens(uint32_t seq = 0) const;
  uint32_t n_seq() const { return static_cast<uint32_t>(cached_.size()); }
  // Forgets the last n cached tokens of a sequence (to regenerate or edit a turn); more than it
  // holds is an InvalidArgument status.
  Status rewind(size_t n, uint32_t seq = 0);
  // Sequence `to` starts over as a copy of sequence `from` (its tokens and KV rows): a fork, for
  // trying two continuations of one conversation.
  Status fork(uint32_t from, uint32_t to);
  // Saves cached_tokens(seq) and their KV-cache rows to path (engine/sequence_state.h), and
  // loads such a file back in place of the sequence. A file saved for another model file, other
  // KV types or another clport version is refused naming what differs; a truncated or corrupt
  // one is an Io error. A load that fails leaves the sequence as it was, unless writing the rows
  // to the device failed (then it is empty).
  Status save_state(const std::string& path, uint32_t seq = 0);
  Status load_state(const std::string& path, uint32_t seq = 0);

  // Appends each input's tokens to its sequence and writes the logits of each input's last token
  // (inputs.size() x n_vocab, in input order): the step of a batch of conversations. The inputs'
  // last tokens run as one step per prompt batch, their mat-muls reading the weights once for all
  // of them; the tokens before (a prompt) run sequence by sequence first. Sequences must differ
  // and be in range. After an error every input's sequence is treated as empty; a device failure
  // moves the engine to the CPU path as generate() does and evaluates every sequence again.
  struct SequenceInput {
    uint32_t seq = 0;
    std::vector<int32_t> tokens;
  };
  Status evaluate(const std::vector<SequenceInput>& inputs, std::vector<float>& logits);

 private:
  Engine() = default;
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

// Background device loads still running for engines already destroyed. They finish on their own
// (warming the program cache); a program about to exit without waiting for them ends with _Exit
// after flushing its output, since the OpenCL compiler is not safe to tear down mid-build.
CLPORT_API int detached_device_loads();

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
