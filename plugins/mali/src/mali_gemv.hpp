// The Mali plugin's own GEMV (plugins/mali/kernels/mali_gemv.cl): vector loads, named float4
// accumulators, one local-memory tree per row. The work-group size is checked against what the
// compiled kernel allows (CL_KERNEL_WORK_GROUP_SIZE) and halved until it fits: Mali compilers
// lower that limit for register-heavy kernels.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "clport_plugin/plugin_sdk.hpp"

namespace mali {

struct GemvConfig {
  uint32_t wg = 64;
  uint32_t rows = 2;
  bool int8_dot = false;      // -DCLPORT_MALI_INT8_DOT: arm_dot for Q8_0 (reduced precision)
  std::string validate(uint32_t max_work_group_size) const;
};

class MaliGemv {
 public:
  MaliGemv(const clport_host& host, cl_device_id device, GemvConfig config);
  static bool has_kernel(int32_t weight_dtype);
  // Enqueues a MUL_MAT already checked by check_op (plain layout).
  void enqueue(const clport_op& op);
  // The work-group size in use (after any reduction to the kernel's limit).
  uint32_t work_group_size() const { return config_.wg; }

 private:
  const clport::sdk::Kernel& kernel(const std::string& name);
  void build();
  std::string options() const;

  const clport_host& host_;
  clport::sdk::Host h_;
  cl_device_id device_;
  GemvConfig config_;
  std::mutex mutex_;
  clport::sdk::Program program_;
  std::map<std::string, clport::sdk::Kernel> kernels_;
};

}  // namespace mali
