// Launches the shared kernels (kernels/*.cl handed over by host->shared_kernel_source) for every
// op in plugin_abi.h. Programs are built lazily through host->build_program (so through the
// host's program cache) the first time an op needs them.
#pragma once

#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "clport_plugin/plugin_sdk.hpp"
#include "clport_common/packed_weight.hpp"
#include "clport_common/scratch_buffer.hpp"
#include "clport_common/tuning.hpp"

namespace clport::plugin_common {

enum class ProgramId { GetRows, Gemv, GemvFused, GemvPacked, GemvQ8a, Gemm, Norm, Softmax, Attention, Rope, Elementwise, Copy, Count_ };

class OpRunner {
 public:
  OpRunner(const clport_host& host, const clport_device_desc& device, Tuning tuning);
  ~OpRunner();  // frees packed weights the host did not release
  OpRunner(const OpRunner&) = delete;
  OpRunner& operator=(const OpRunner&) = delete;

  const Tuning& tuning() const { return tuning_; }
  bool supports(const clport_op& op) const;
  // Plan time, before weights are placed (clport_plugin.scratch_needs): the scratch op would take
  // on these kernels at 1 .. its rows and n_past up to op.n_past (op_scratch.cpp).
  std::vector<clport_scratch_need> scratch_needs(const clport_op& op);
  // Enqueues op on the host queue; throws sdk::Failure (UNSUPPORTED when check_op refuses).
  void enqueue(const clport_op& op);

  // A repacked layout (packed_weight.hpp) for a MUL_MAT weight: Rows8 when the integer GEMV runs
  // and q8a_x8 is on, the packed GEMV's when gemv_packed is, for the dtypes each covers; else
  // nullptr (keep the plain layout, also when the device has no memory for the copy). The repack
  // is enqueued on the host queue. Throws sdk::Failure (build or enqueue error).
  void* prepare_weight(const clport_tensor& weight);
  // Whether nothing this runner does with layout (a handle of prepare_weight) reads the weight's
  // plain buffer: true for the Rows8 layout.
  bool owns_weight(const void* layout) const;
  // Whether op reads weight (one of its operands) only through a layout this runner made, so
  // that the weight's plain buffer may be gone.
  bool reads_layout_only(const clport_op& op, const clport_tensor& weight) const;
  // Frees a handle prepare_weight returned; anything else is ignored.
  void release_layout(void* layout) noexcept;
  // The packed (Split16) layout behind weight w when this runner made it and it describes w
  // (dtype and shape), else NULL: how a vendor plugin's own kernels on the same layout find its
  // arrays.
  const PackedWeight* packed_layout(const clport_tensor& w) const;
  // The same for the Rows8 layout of the integer GEMV.
  const PackedWeight* rows8_layout(const clport_tensor& w) const;
  // Whether layout (a handle of prepare_weight) is a live Split16 layout of this runner.
  bool find_split16(const void* layout) const;

  // The shared sources and -D options of a program (exposed for tools and vendor plugins that
  // add their own kernels on top of the same helpers). A dtype (a kernel suffix: "q4_1", "f16",
  // "mixed") builds the program with that dtype's kernels only (CLPORT_WANT, kernels/common.cl);
  // none builds all of them.
  static std::vector<const char*> program_files(ProgramId id);
  std::string program_options(ProgramId id, const std::string& dtype = {}) const;

 private:
  // Kernel `name` of program id, built on first use. Programs whose kernels come one set per
  // dtype are built per dtype (the one `name` belongs to, or the op's for its dtype-free kernels
  // such as the activation quantizer), so a model compiles the kernels of its own dtypes only.
  const sdk::Kernel& kernel(ProgramId id, const std::string& name, const std::string& dtype = {});

  void get_rows(const clport_op& op);
  void rms_norm(const clport_op& op);
  void mul_mat(const clport_op& op);
  void mul_mat_packed(const PackedWeight& w, const clport_op& op);
  // The live PackedWeight behind w.layout, or NULL when w has none or it is not ours.
  const PackedWeight* find_packed(const clport_tensor& w) const;
  void free_buffers(const PackedWeight& w) noexcept;  // the device arrays of w
  // Whether prepare_weight gives weight (a plain one) the Rows8 layout.
  bool takes_rows8_layout(const clport_tensor& weight) const;
  // A device array of bytes for a repacked copy of weight; NULL (with a warning) when the
  // device has no memory for it. Throws sdk::Failure on another error.
  cl_mem layout_buffer(const clport_tensor& weight, uint64_t bytes);
  // check_op for an op whose weight may carry one of our packed layouts.
  std::string check(const clport_op& op) const;
  // RMS_NORM_MUL_MAT, MUL_MAT_ADD and RMS_NORM_MUL_MAT_SWIGLU: the fused GEMV kernels.
  void fused_gemv(const clport_op& op);
  // The integer GEMV on quantized activations (op_launch_q8a.cpp): whether it serves this
  // MUL_MAT-family op, and its launch (quantize the activation rows, then the GEMV).
  // q8a_gemv returns false, having enqueued nothing, when the device has no memory for the
  // quantized activations: the op then runs on the float GEMV (and so do all later ones on
  // plain weights); on a Rows8 weight, whose plain copy may be gone, that is an out-of-memory
  // error instead.
  bool takes_q8a_gemv(const clport_op& op) const;
  bool q8a_gemv(const clport_op& op);
  // Enqueues the quantization of x's rows (through the RMSNorm with weight g when g is not
  // NULL), in the block layout weight_dtype multiplies, into the activation scratch, grown as
  // needed; returns the scratch buffer, or NULL when the scratch cannot be allocated for lack of
  // device memory.
  cl_mem quantize_activations(const clport_tensor& x, int32_t weight_dtype, const clport_tensor* g, float eps,
                              bool required);
  // The activation scratch of at least bytes (NULL when the device has no memory for it; when
  // required, an out-of-memory sdk::Failure instead).
  cl_mem activation_scratch(size_t bytes, bool required);
  // What an integer GEMV kernel reads its weights from: the plain GGUF buffers (the q8a / q8s
  // kernels) or, when the weight (and the SwiGLU's up weight) has one, the Rows8 layout (x8a /
  // x8s), whose rows are row groups of 8. rows: output rows per work-item.
  struct Q8aWeights {
    const char* family;  // "q8" or "x8": the kernels' name prefix
    cl_mem w;
    cl_ulong w_off, w_row;
    cl_mem up;  // the SwiGLU's up weight (NULL otherwise), at the same row stride
    cl_ulong up_off;
    int64_t rows;
    uint32_t self_quantizing_items;  // work-items of the self-quantizing form (tuning q8s_items / x8s_items)
  };
  Q8aWeights q8a_weights(const clport_op& op) const;
  // The kernel family and work shape of either layout (buffers unset): what q8a_weights fills in,
  // and what the declared scratch is sized by before any weight has a layout.
  Q8aWeights q8a_shape(bool rows8, bool swiglu) const;
  // The quantized activations' bytes of op at 1 .. its rows, its weight read through the Rows8
  // layout (rows8) or plain.
  size_t q8a_scratch_bytes(const clport_op& op, bool rows8) const;
  // The work-items (each a quantized copy of the rows) of the self-quantizing form on N output
  // rows and M activation rows: a share of the row runs each, runs of two row groups where M > 1.
  static size_t self_quantizing_items(int64_t N, int64_t M, const Q8aWeights& weights);
  // Whether M activation rows take the self-quantizing form: the one row (tuning q8s), or a few
  // rows on the Rows8 layout (tuning x8f_rows).
  bool self_quantizing(int64_t M, const Q8aWeights& weights) const;
  // q8a_gemv's one-launch form: the mul_mat_gemv_<family>s_<form> kernel of the weight's dtype
  // for a single activation row, mul_mat_gemv_x8f_<form> for a few.
  bool q8s_gemv(const clport_op& op, const char* form, const Q8aWeights& weights);
  void rope(const clport_op& op);
  void kv_store_rope(const clport_op& op);
  void attention(const clport_op& op);  // ATTENTION, ROPE_ATTENTION, ROPE_KV_STORE_ATTENTION
  // The *_CELLS ops: a step over several sequences (op_launch_cells.cpp).
  void kv_store_rope_cells(const clport_op& op);
  void attention_cells(const clport_op& op);
  // The key ranges a decode-step ROPE_KV_STORE_ATTENTION is split into (1: not split).
  int attention_splits(const clport_op& op) const;
  // The key ranges of ROPE_ATTENTION_CELLS over n_tokens tokens of n_head heads and a cache of
  // cache_positions per sequence (1: not split).
  int cells_attention_splits(int64_t n_tokens, int64_t n_head, int64_t cache_positions) const;
  void softmax(const clport_op& op);
  void unary(const clport_op& op);
  void binary(const clport_op& op);
  void copy(const clport_op& op);
  void run(const sdk::Kernel& k, cl_uint dims, const size_t* global, const size_t* local);
  size_t wg_limit(const sdk::Kernel& k);  // CL_KERNEL_WORK_GROUP_SIZE of k (0: unknown)

  const clport_host& host_;
  sdk::Host h_;
  Tuning tuning_;
  std::mutex mutex_;  // lazy program builds
  std::map<std::pair<ProgramId, std::string>, sdk::Program> programs_;  // by program and dtype ("" all)
  std::map<std::string, sdk::Kernel> kernels_;
  std::map<cl_kernel, size_t> wg_limits_;  // CL_KERNEL_WORK_GROUP_SIZE per kernel (0: unknown)
  mutable std::mutex packed_mutex_;
  std::set<const PackedWeight*> packed_;  // handles this runner made and has not released
  // Device scratch that one op at a time uses (the in-order queue runs the kernel that reads
  // it before the next op overwrites it).
  ScratchBuffer activations_{host_, "quantized activations"};
  ScratchBuffer attention_parts_{host_, "split attention partial results"};  // of the decode attention
  uint32_t compute_units_ = 1;
  bool cpu_device_ = false;  // CPU devices build RoPE angles without the trig builtins
  std::atomic<bool> act_out_of_memory_{false};
};

}  // namespace clport::plugin_common
