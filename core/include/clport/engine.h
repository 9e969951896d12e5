// The C++ application API: open a GGUF model on the best device the policy allows (else the CPU
// path), tokenize, generate, and hold conversations in the KV cache. The C API (clport.h) is the
// same engine behind a stable ABI; this header is for C++ apps built with the same compiler and
// standard library as libclport. Only the standard library is needed to include it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clport/chat_template.h"
#include "clport/export.h"
#include "clport/sampler.h"
#include "clport/status.h"
#include "clport/tokenizer.h"

namespace clport {

class EngineCore;

// KV cache element types; the values are the GGUF type ids, the names llama.cpp's
// --cache-type-k / --cache-type-v take.
enum class KvCacheType : int32_t { F32 = 0, F16 = 1, Q4_0 = 2, Q8_0 = 8 };
CLPORT_API std::string_view kv_cache_type_name(KvCacheType type);  // "f16", "q8_0", ...
// "f32", "f16", "q8_0" or "q4_0" (as kv_cache_type_name spells them); nullopt for anything else.
CLPORT_API std::optional<KvCacheType> kv_cache_type_from_name(std::string_view name);

struct ModelOptions {
  uint32_t n_ctx = 2048;   // KV cache length of each sequence (0: the training context; capped at it)
  // Sequences the KV cache holds (conversations, server slots), each of n_ctx positions: the
  // cache is n_seq x n_ctx cells, all allocated at load and counted by the memory limit. A step
  // can run one token of many sequences at once (Engine::evaluate), its mat-muls reading
  // the weights once for all of them.
  uint32_t n_seq = 1;  // 1 .. 256
  // Prompt tokens per forward step (scratch size). 0: by device, 2048 on GPUs with 64 GiB or more
  // (a long prompt's attention fills a data-centre card only with more tokens a step), 512 with
  // 16 GiB or more (a desktop card: a 1B model's prompt ran 1.7x faster on an H200 than in steps
  // of 64, its mat-muls reading the weights once per step), else 64 (phones share their
  // memory, and the logits scratch alone is n_vocab x n_batch floats).
  uint32_t n_batch = 0;
  // KV cache element types, K and V chosen apart (as llama.cpp's --cache-type-k / -v). A
  // quantized row is 32-element blocks along head_dim (every supported family's head_dim is a
  // multiple of 32); K and V in one joint tensor only when both types are equal.
  KvCacheType kv_type_k = KvCacheType::F16;
  KvCacheType kv_type_v = KvCacheType::F16;
  // Let the device's plugins run fused patterns (norm into its mat-mul, Q/K/V as one weight,
  // RoPE with the KV-cache store and with attention, SwiGLU and residual adds in epilogues)
  // where they claim them; off runs every op on its own (to tell a fused-kernel bug apart).
  bool fusion = true;
  // Keep every weight's plain copy on the device even where the plugin's own layout owns it
  // (it is freed otherwise); to tell a bug of the freeing apart.
  bool keep_plain_weights = false;
  // Refuse, before anything is allocated, a load whose weights, KV cache and activations would
  // take more than this many bytes (0: no limit); the error says what is needed and what would
  // shrink it.
  uint64_t memory_limit_bytes = 0;
};

struct EngineOptions {
  std::string model_path;
  // "auto": best OpenCL device, CPU when none is usable (with a warning); "cpu"; or an index
  // into the device list of `clport devices`.
  std::string device = "auto";
  std::string plugin;       // force one plugin for every op it supports ("" = policy decides)
  std::string config_path;  // user policy file layered on the defaults
  // Policy YAML texts layered after config_path, in order (the C API's policy text, fp32).
  std::vector<std::string> config_texts;
  ModelOptions model;
  // The application chose model.kv_type_k / kv_type_v: else the policy's cache_type_k /
  // cache_type_v apply where it sets them. Likewise a model.memory_limit_bytes of 0 takes the
  // policy's memory_limit.
  bool kv_types_set = false;
  bool profiling = false;   // OpenCL profiling events for `clport profile`
  int n_threads = 0;        // CPU backend threads (0 = all cores)
  // CPU backend: float activations for quantized mat-muls (precision fp32: slower, exact as
  // the reference) instead of 8-bit ones. The policy's `precision: fp32` sets it too.
  bool cpu_float_activations = false;
  // Directory for the program cache, the self-test verdict, the tuning file and the record of
  // devices that failed during a run (the policy's cache_dir): "" = the policy's cache_dir:,
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

// The background device load of a CPU-first start (EngineOptions::cpu_first_start).
enum class DeviceStart {
  None,     // no background load: the engine runs where it started
  Loading,  // on the CPU path; the device loads in the background
  Ready,    // loaded: the engine moves to it at the next step boundary
  Failed,   // the device could not be loaded (logged); the engine stays on the CPU path
  Moved,    // the engine runs on the device it loaded
};

// One input of Engine::evaluate: tokens appended to a sequence.
struct SequenceInput {
  uint32_t seq = 0;
  std::vector<int32_t> tokens;
};

// What was loaded, and where it runs.
struct ModelInfo {
  std::string architecture;  // the GGUF general.architecture: "llama", "gemma3", "qwen2", ...
  uint32_t n_vocab = 0, n_layer = 0, n_embd = 0;
  uint32_t n_ctx = 0;        // positions of each sequence
  uint32_t n_ctx_train = 0;  // the context the model was trained with
  uint32_t n_seq = 0;        // sequences the KV cache holds
  std::string backend;       // "cpu" or "opencl:<device>"
  KvCacheType kv_type_k = KvCacheType::F16, kv_type_v = KvCacheType::F16;
};

// An engine is used from one thread at a time (serialise calls from several threads).
class CLPORT_API Engine {
 public:
  using Progress = std::function<void(uint64_t done, uint64_t total)>;
  // Loads the model; `progress` is called with the weight bytes loaded so far and in all.
  static Result<std::unique_ptr<Engine>> open(const EngineOptions& options, const Progress& progress = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  Tokenizer& tokenizer();
  // Where the model runs can change during a run (a failing device moves it to the CPU path):
  // ask again rather than keep the answer.
  ModelInfo info() const;
  const EngineOptions& options() const;
  double load_seconds() const;

  // The chat format for this model: `name_override` when not empty (a name from
  // chat_family_names()), else the one recognised in the file's template (an error naming the
  // choices when there is none). chat_stop_tokens(family, tokenizer()) ends its turns.
  Result<ChatTemplateChoice> chat_template(std::string_view name_override = {}) const;

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
  // is recorded as failing, the run moves to the CPU path, the tokens so far are evaluated again
  // there as the CPU path evaluates them, and the generation goes on (stats->device_failure says
  // so); on_token sees every token once.
  Status generate(const std::vector<int32_t>& prompt, int n_predict, Sampler& sampler,
                  const std::function<bool(int32_t)>& on_token, GenerationStats* stats,
                  const std::vector<int32_t>& stop_tokens = {});

  // A conversation goes on in the KV cache. Each sequence s (0 .. n_seq - 1, ModelOptions::n_seq)
  // holds cached_tokens(s) at positions 0..n-1: what its last generation evaluated (its prompt
  // and every token it fed back), a loaded state, or what evaluate() appended.
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
  uint32_t n_seq() const;
  // Forgets the last n cached tokens of a sequence (to regenerate or edit a turn); more than it
  // holds is an InvalidArgument status.
  Status rewind(size_t n, uint32_t seq = 0);
  // Sequence `to` starts over as a copy of sequence `from` (its tokens and KV rows): a fork, for
  // trying two continuations of one conversation.
  Status fork(uint32_t from, uint32_t to);
  // Saves cached_tokens(seq) and their KV-cache rows to path, and loads such a file back in place
  // of the sequence. A file saved for another model file, other KV types or another clport
  // version is refused naming what differs; a truncated or corrupt one is an Io error. A save
  // goes to a temporary file renamed into place. A load that fails leaves the sequence as it was,
  // unless writing the rows to the device failed (then it is empty).
  Status save_state(const std::string& path, uint32_t seq = 0);
  Status load_state(const std::string& path, uint32_t seq = 0);

  // Appends each input's tokens to its sequence and writes the logits of each input's last token
  // (inputs.size() x n_vocab, in input order): the step of a batch of conversations. The inputs'
  // last tokens run as one step per prompt batch, their mat-muls reading the weights once for all
  // of them; the tokens before (a prompt) run sequence by sequence first. Sequences must differ
  // and be in range. After an error every input's sequence is treated as empty; a device failure
  // moves the engine to the CPU path as generate() does and evaluates every sequence again.
  Status evaluate(const std::vector<SequenceInput>& inputs, std::vector<float>& logits);

 private:
  explicit Engine(std::unique_ptr<EngineCore> core);
  std::unique_ptr<EngineCore> core_;
};

// Background device loads still running for engines already destroyed. They finish on their own
// (warming the program cache); a program about to exit without waiting for them ends with _Exit
// after flushing its output, since the OpenCL compiler is not safe to tear down mid-build.
CLPORT_API int detached_device_loads();

}  // namespace clport
