// Launches the shared kernels (kernels/*.cl handed over by host->shared_kernel_source) for every
// op in plugin_abi.h. Programs are built lazily through host->build_program (so through the
// host's program cache) the first time an op needs them.
#pragma once

#include <array>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "clport/plugin_sdk.hpp"
#include "clport_common/tuning.hpp"

namespace clport::plugin_common {

enum class ProgramId { GetRows, Gemv, Gemm, Norm, Softmax, Attention, Rope, Elementwise, Copy, Count_ };

class OpRunner {
 public:
  OpRunner(const clport_host& host, const clport_device_desc& device, Tuning tuning);

  const Tuning& tuning() const { return tuning_; }
  bool supports(const clport_op& op) const;
  // Enqueues op on the host queue; throws sdk::Failure (UNSUPPORTED when check_op refuses).
  void enqueue(const clport_op& op);

  // The shared sources and -D options of a program (exposed for tools and vendor plugins that
  // add their own kernels on top of the same helpers).
  static std::vector<const char*> program_files(ProgramId id);
  std::string program_options(ProgramId id) const;

 private:
  const sdk::Kernel& kernel(ProgramId id, const std::string& name);

  void get_rows(const clport_op& op);
  void rms_norm(const clport_op& op);
  void mul_mat(const clport_op& op);
  void rope(const clport_op& op);
  void attention(const clport_op& op);
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
};

}  // namespace clport::plugin_common
