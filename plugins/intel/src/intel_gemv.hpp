// The Intel plugin's own GEMV (plugins/intel/kernels/intel_gemv.cl): one sub-group per output
// row, sub-group reductions instead of local-memory trees, block reads for aligned F16 rows.
// Built lazily through the host's program cache; the shared block decoders (blocks.cl) are
// prepended so the bit layouts live in one place.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "clport_plugin/plugin_sdk.hpp"

namespace intel {

struct SubgroupConfig {
  uint32_t sg_size = 16;    // lanes per sub-group (a size the device lists, 16 by default)
  uint32_t sg_rows = 4;     // sub-groups (= output rows) per work-group
  bool reqd_size = false;   // device lists cl_intel_required_subgroup_size
  std::string extra_options;  // policy workarounds (-DCLPORT_NO_SUBGROUPS=1, ...)

  // "" when usable on a device with this max work-group size, else why not.
  std::string validate(uint32_t max_work_group_size) const;
  std::string build_options() const;
};

// The sub-group size to use: 16 when the device lists it (or cannot be asked), else the
// smallest listed size >= 8 (Xe2 has 16/32, Gen9-Xe 8/16/32).
uint32_t choose_sub_group_size(const clport_cl_api& cl, cl_device_id device);

class IntelGemv {
 public:
  IntelGemv(const clport_host& host, SubgroupConfig config);

  // Weight dtypes with a sub-group kernel here.
  static bool has_kernel(int32_t weight_dtype);
  // Enqueues a MUL_MAT already checked by check_op (plain layout).
  void enqueue(const clport_op& op);
  // The configuration in use (extra_options gains -DCLPORT_NO_SUBGROUPS=1 after a fallback).
  const SubgroupConfig& config() const { return config_; }

 private:
  bool sub_groups() const;          // false once built (or configured) for the fallback
  std::string kernel_prefix() const;  // "intel_gemv_sg_" or "intel_gemv_local_"
  const clport::sdk::Kernel& kernel(const std::string& suffix);
  void build();

  const clport_host& host_;
  clport::sdk::Host h_;
  SubgroupConfig config_;
  std::mutex mutex_;
  clport::sdk::Program program_;
  std::map<std::string, clport::sdk::Kernel> kernels_;
};

}  // namespace intel
