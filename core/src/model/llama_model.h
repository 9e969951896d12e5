// Decoder-only transformers of the LLaMA lineage: hyper-parameters from GGUF metadata, weights on
// a Backend, KV cache on the same backend, and the forward pass written once for every backend
// (each architecture family is a file under core/src/model/arch/ with its reader, tensor map and
// graph builder, docs/architectures.md lists them). Prompts run as batches (GEMM path),
// generation one token at a time (GEMV path).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "clport/engine.h"
#include "clport/export.h"
#include "clport/status.h"

namespace clport {

class GgufFile;
struct ForwardPlan;
struct ArchFamily;  // an entry of the architecture registry (core/src/model/arch/arch_family.h)

// How one layer attends, where a family's layers differ: a sliding window with a RoPE of its own
// (gemma3's local layers), or no RoPE at all (a layer that finds positions from the causal mask).
struct LayerAttention {
  bool rope = true;  // Q and K rotated
  float rope_freq_base = 10000.0f;
  float rope_freq_scale = 1.0f;
  uint32_t window = 0;  // attends to the last `window` positions only; 0: to every earlier one
};

struct LlamaHParams {
  std::string arch;  // general.architecture
  const ArchFamily* family = nullptr;  // what runs it: reader, tensors, graph builder
  uint32_t n_vocab = 0, n_ctx_train = 0, n_embd = 0, n_layer = 0, n_ff = 0;
  uint32_t n_head = 0, n_head_kv = 0, head_dim = 0, n_rot = 0;
  float rope_freq_base = 10000.0f;
  float rope_freq_scale = 1.0f;  // from rope.scaling (linear): 1 / factor
  int32_t rope_mode = 0;         // 0 normal (interleaved pairs), 2 NeoX (halves)
  float rope_attn_factor = 1.0f; // rope.scaling.attn_factor: cos/sin multiplier (in attn_scale)
  uint32_t n_ctx_orig = 0;       // rope.scaling.original_context_length (LongRoPE factor choice)
  float rms_eps = 1e-5f;
  bool tied_output = false;      // output projection shares token_embd
  float attn_scale = 0.0f;       // the scores' factor; 1/sqrt(head_dim) unless the family says
  float embd_scale = 1.0f;       // token embeddings are multiplied by it (gemma3: sqrt(n_embd))
  std::vector<LayerAttention> layer_attn;  // one per layer

  bool is_swa_layer(uint32_t layer) const { return layer < layer_attn.size() && layer_attn[layer].window > 0; }
  uint32_t q_rows() const { return n_head * head_dim; }     // rows of the Q projection
  uint32_t kv_rows() const { return n_head_kv * head_dim; } // rows of the K and V projections
};

// Reads and validates the hyper-parameters; unsupported architectures and inconsistent values
// are refused with a message naming the key.
CLPORT_API Result<LlamaHParams> read_llama_hparams(const GgufFile& file);

inline constexpr uint32_t kMaxSequences = 256;  // ModelOptions::n_seq's bound

inline DType dtype_of(KvCacheType type) { return static_cast<DType>(static_cast<int32_t>(type)); }


// What loading a model will take, known before anything is placed (the memory limit is checked
// against it): its weights, its KV cache at the context the load uses, its activation buffers
// for the prompt batch it uses.
struct LoadEstimate {
  uint64_t weights = 0;      // the weight tensors' bytes (a repacked layout is the same size)
  uint64_t kv_cache = 0;     // n_seq sequences of n_ctx positions
  uint64_t activations = 0;
  // What the plugins declare for the plans the load prepares (their scratch_needs), per buffer
  // "<plugin>: <buffer>"; known once the plans can be built (LlamaModel::load), none before.
  std::vector<NamedBytes> scratch;
  uint32_t n_ctx = 0;        // the context (of each sequence) and prompt batch the load would use
  uint32_t n_batch = 0;
  uint32_t n_seq = 1;
  uint64_t scratch_bytes() const {
    uint64_t total = 0;
    for (const NamedBytes& n : scratch) total += n.bytes;
    return total;
  }
  uint64_t total() const { return weights + kv_cache + activations + scratch_bytes(); }
};

class GgufFile;
// The estimate for loading `file` with `options` on `backend` (whose device decides the default
// prompt batch), from the file's tensors.
CLPORT_API Result<LoadEstimate> estimate_load(const GgufFile& file, const ModelOptions& options, const Backend& backend);

// What a loaded model holds, by what for: its weights where they live (Backend's names), its
// KV cache, its activation buffers, each plugin's scratch, and what the backend has allocated
// (all of it but weights read in place from the file mapping).
struct ModelMemory {
  std::vector<NamedBytes> weights;
  uint64_t kv_cache_bytes = 0;
  uint64_t activation_bytes = 0;
  std::vector<NamedBytes> plugin_scratch;
  // What the plugins declared at load, per buffer "<plugin>: <buffer>" (the memory limit counted
  // it); a buffer an op has used holds its declared size (plugin_scratch above, per plugin).
  std::vector<NamedBytes> plugin_scratch_declared;
  uint64_t allocated_bytes = 0;
  uint64_t plain_freed_bytes = 0;  // plain weight copies a plugin's layout replaced at load
  uint64_t weight_bytes() const {
    uint64_t total = 0;
    for (const NamedBytes& w : weights) total += w.bytes;
    return total;
  }
};

class CLPORT_API LlamaModel {
 public:
  // Checks every tensor the graph needs (names, shapes, dtypes) before uploading anything.
  // `progress` (optional) is called with (done, total) bytes while weights load.
  static Result<std::unique_ptr<LlamaModel>> load(
      std::shared_ptr<GgufFile> file, Backend& backend, const ModelOptions& options,
      const std::function<void(uint64_t, uint64_t)>& progress = {});
  ~LlamaModel();

  const LlamaHParams& hparams() const { return hp_; }
  uint32_t n_ctx() const { return n_ctx_; }      // positions of each sequence
  uint32_t n_seq() const { return n_seq_; }      // sequences the KV cache holds
  uint32_t n_batch() const { return n_batch_; }  // tokens one step runs at most
  Backend& backend() { return backend_; }

  // Runs `tokens` at positions n_past.. of sequence `seq` (appending them to its KV cache).
  // Writes the logits of the last token (n_vocab floats), or of every token when all_logits
  // (n_tokens x n_vocab).
  Status forward(const std::vector<int32_t>& tokens, uint32_t n_past, bool all_logits,
                 std::vector<float>& logits, uint32_t seq = 0);
  // One prompt step and one decode step on sequence 0, so that the kernels of both have been
  // launched once (PoCL compiles a kernel's work-group function at its first launch): a device's
  // set-up (clport warmup, the CPU-first start's background load). Sequence 0's KV rows are left
  // written: the caller treats the sequence as empty.
  Status warm_up_kernels();

  // One step over several sequences: each entry appends its tokens to its sequence at positions
  // n_past.. The mat-muls run over every entry's rows at once; RoPE, the KV store and attention
  // run per entry over its own sequence's cells. Writes the logits of each entry's last token
  // (entries.size() x n_vocab, in entry order). At most one entry may have more than one token
  // (a prompt chunk joining decode steps), the sequences must differ, and all the tokens together
  // must fit one prompt batch (n_batch()); anything else is an InvalidArgument status.
  struct StepEntry {
    uint32_t seq = 0;
    uint32_t n_past = 0;
    std::vector<int32_t> tokens;
  };
  Status forward_step(const std::vector<StepEntry>& entries, std::vector<float>& logits);

  // Called after each layer (and once with layer == n_layer after the final norm) with the
  // hidden state [n_embd, n_tokens] of the current batch. For --check-layers.
  using LayerHook = std::function<Status(int layer, const TensorRef& hidden, int n_tokens)>;
  void set_layer_hook(LayerHook hook) { layer_hook_ = std::move(hook); }

  struct Weights;
  struct Scratch;
  struct Plans;

  // The decode step's plan: ops per step and how many of them are fused patterns; once it ran,
  // the launches it replays and how many of those run a whole group of ops (a layer), else -1.
  struct PlanSummary {
    int nodes = 0;
    int fused_nodes = 0;
    int launches = -1;
    int grouped_runs = -1;
  };
  PlanSummary decode_plan_summary();
  // Its memory now (ModelMemory above).
  ModelMemory memory() const;

  // The KV cache's rows of positions 0..n_tokens-1, every layer's K rows then its V rows, as the
  // cache stores them (its types): what a saved conversation holds. kv_bytes(n) is their size.
  uint64_t kv_bytes(uint32_t n_tokens) const;
  Status read_kv(uint32_t n_tokens, std::vector<uint8_t>& out, uint32_t seq = 0);
  // Writes such rows back (a conversation loaded); bytes must be kv_bytes(n_tokens).
  Status write_kv(uint32_t n_tokens, const uint8_t* data, uint64_t bytes, uint32_t seq = 0);
  // Copies the first n_tokens positions of sequence `from` into sequence `to` (a fork: both
  // then continue from the same prefix).
  Status copy_kv(uint32_t from, uint32_t to, uint32_t n_tokens);
  DType kv_type_k() const { return kv_type_k_; }
  DType kv_type_v() const { return kv_type_v_; }

 private:
  LlamaModel(Backend& backend, LlamaHParams hp);
  Status forward_batch(const int32_t* tokens, uint32_t n_tokens, uint32_t n_past, bool all_logits,
                       float* logits_out, uint32_t seq);
  // seq names one of the cache's sequences, and n_past + n_tokens positions fit it: else an
  // InvalidArgument status saying which and what to raise.
  Status check_sequence(uint32_t seq) const;
  Status check_room(uint32_t seq, uint64_t n_past, uint64_t n_tokens) const;
  // The shape of a step: per entry its sequence and token count, in row order.
  struct StepShape {
    std::vector<std::pair<uint32_t, uint32_t>> entries;  // (sequence, tokens)
    uint32_t tokens() const;
    bool operator<(const StepShape& o) const { return entries < o.entries; }
    bool operator==(const StepShape& o) const { return entries == o.entries; }
  };
  // The plan of one step of `shape` (llama_graph.cpp); logit_rows of its tokens (the last ones)
  // go through the vocabulary projection; hooked keeps every tensor the layer hook reads. Its
  // activations are placed in the arena, which grows (dropping the other plans, whose launches
  // name the old one) when this plan needs more: an error is out of memory for it.
  Result<ForwardPlan*> plan_for(const StepShape& shape, int64_t logit_rows, bool hooked);
  // plan_for's plan, prepared on the backend (once) for replay.
  Result<const ForwardPlan*> prepared_plan_for(const StepShape& shape, int64_t logit_rows, bool hooked);
  ForwardPlan build_plan(const StepShape& shape, int64_t logit_rows, bool hooked) const;
  // Uploads the ids, replays the plan with each entry's n_past and reads back its logit rows.
  Status run_step(const StepShape& shape, const int32_t* tokens, const std::vector<uint32_t>& n_past,
                  int64_t logit_rows, float* logits_out);
  friend class PlanBuilder;  // the blocks the graph builders share (plan_builder.h)
  // Where the KV cache and step buffers come from (model_buffers.cpp): the backend, or stand_in.
  using Allocate = std::function<Result<TensorRef>(DType, std::array<int64_t, 4>)>;
  // A tensor with a shape and no memory that counts as placed: what the plans are built over
  // before anything is.
  static TensorRef stand_in(DType dtype, std::array<int64_t, 4> ne);
  // The KV cache of n_seq_ sequences of n_ctx_ positions (kv_type_k_ / kv_type_v_), and the step
  // buffers (token ids, cells, activation slots) for n_batch_ tokens.
  Status place_kv_cache(const Allocate& allocate);
  Status make_step_buffers(const Allocate& allocate);
  // Per scratch buffer "<plugin>: <buffer>", the most any op of the plans the load prepares
  // declares (Backend::scratch_needs).
  Result<std::vector<NamedBytes>> planned_scratch() const;
  // True when the plugin that would run the plain mat-mul `weight x plain_input -> plain_dst`
  // (any plugin when weight is NULL) claims the fused op.
  bool claims(clport_op_kind fused, const std::vector<const TensorRef*>& src, const TensorRef& dst,
              const cpu::OpParams& params, const TensorRef* weight, const TensorRef* plain_input,
              const TensorRef* plain_dst) const;

  Backend& backend_;
  LlamaHParams hp_;
  uint32_t n_ctx_ = 0;
  uint32_t n_seq_ = 1;
  uint32_t n_batch_ = 0;
  DType kv_type_k_ = DType::F16, kv_type_v_ = DType::F16;
  std::shared_ptr<GgufFile> file_;
  std::unique_ptr<Weights> w_;
  std::unique_ptr<Scratch> s_;
  std::unique_ptr<Plans> plans_;
  std::vector<NamedBytes> declared_scratch_;  // planned_scratch() at load
  LayerHook layer_hook_;
};

}  // namespace clport
