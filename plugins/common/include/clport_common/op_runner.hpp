// Launches the shared kernels (kernels/*.cl handed over by host->shared_kernel_source) for every
// op in plugin_abi.h. Programs are built lazily through host->build_program (so through the
// host's program cache) the first time an op needs them.
#pragma once

#include <array>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "clport/plugin_sdk.hpp"
#include "clport_common/packed_weight.hpp"
#include "clport_common/tuning.hpp"

namespace clport::plugin_common {

enum class ProgramId { GetRows, Gemv, GemvFused, GemvPacked, Gemm, Norm, Softmax, Attention, Rope, Elementwise, Copy, Count_ };

class OpRunner {
 public:
  OpRunner(const clport_host& host, const clport_device_desc& device, Tuning tuning);
  ~OpRunner();  // frees packed weights the host did not release
  OpRunner(const OpRunner&) = delete;
  OpRunner& operator=(const OpRunner&) = delete;

  const Tuning& tuning() const { return tuning_; }
  bool supports(const clport_op& op) const;
  // Enqueues op on the host queue; throws sdk::Failure (UNSUPPORTED when check_op refuses).
  void enqueue(const clport_op& op);

  // The packed GEMV layout (packed_weight.hpp): a new PackedWeight for a MUL_MAT weight when the
  // tuning enables it and the dtype is covered, else nullptr (keep the plain layout). The repack
  // is enqueued on the host queue. Throws sdk::Failure (out of memory, build or enqueue error).
  void* prepare_weight(const clport_tensor& weight);
  // Frees a handle prepare_weight returned; anything else is ignored.
  void release_layout(void* layout) noexcept;

  // The shared sources and -D options of a program (exposed for tools and vendor plugins that
  // add their own kernels on top of the same helpers).
  static std::vector<const char*> program_files(ProgramId id);
  std::string program_options(ProgramId id) const;

 private:
  const sdk::Kernel& kernel(ProgramId id, const std::string& name);

  void get_rows(const clport_op& op);
  void rms_norm(const clport_op& op);
  void mul_mat(const clport_op& op);
  void mul_mat_packed(const PackedWeight& w, const clport_op& op);
  // The live PackedWeight behind w.layout, or NULL when w has none or it is not ours.
  const PackedWeight* find_packed(const clport_tensor& w) const;
  void free_buffers(const PackedWeight& w) noexcept;  // the device arrays of w
  // check_op for an op whose weight may carry one of our packed layouts.
  std::string check(const clport_op& op) const;
  // RMS_NORM_MUL_MAT, MUL_MAT_ADD and RMS_NORM_MUL_MAT_SWIGLU: the fused GEMV kernels.
  void fused_gemv(const clport_op& op);
  void rope(const clport_op& op);
  void kv_store_rope(const clport_op& op);
  void attention(const clport_op& op);  // ATTENTION, ROPE_ATTENTION, ROPE_KV_STORE_ATTENTION
  void softmax(const clport_op& op);
  void unary(const clport_op& op);
  void binary(const clport_op& op);
  void copy(const clport_op& op);
  void run(const sdk::Kernel& k, cl_uint dims, const size_t* global, const size_t* local);

  const clport_host& host_;
  sdk::Host h_;
  Tuning tuning_;
  std::mutex mutex_;  // lazy program builds
  std::array<sdk::Program, static_cast<size_t>(ProgramId::Count_)> programs_;
  std::map<std::string, sdk::Kernel> kernels_;
  std::map<cl_kernel, size_t> wg_limits_;  // CL_KERNEL_WORK_GROUP_SIZE per kernel (0: unknown)
  mutable std::mutex packed_mutex_;
  std::set<const PackedWeight*> packed_;  // handles this runner made and has not released
};

}  // namespace clport::plugin_common
