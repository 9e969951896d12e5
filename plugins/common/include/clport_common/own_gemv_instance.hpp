// The instance the Mali and Intel plugins share: each serves the decode hot path (MUL_MAT with
// some weight dtypes and F32 activations, and RMS_NORM; every other op binds to the generic
// plugin), runs a MUL_MAT of few activation rows on its own GEMV where that has a kernel for the
// weight, and everything else it serves on the shared kernels with its own tuning. A plugin
// supplies its name, its weight dtypes and its GEMV.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clport_plugin/plugin_sdk.hpp"
#include "clport_common/op_runner.hpp"
#include "clport_common/tuning.hpp"

namespace clport::plugin_common {

class OwnGemvInstance : public clport_plugin_instance {
 public:
  // `plugin` prefixes error messages; `mul_mat_dtypes` are the weight dtypes of the MUL_MATs served.
  OwnGemvInstance(const clport_host& host, const clport_device_desc& device, Tuning tuning, std::string plugin,
                  std::vector<int32_t> mul_mat_dtypes);

  // The own GEMV takes exactly the operands the shared mul_mat takes (plain layout, whole blocks
  // per row), so the shared checks answer for both paths.
  bool supports(const clport_op& op) override;
  void enqueue(const clport_op& op) override;
  // The own GEMV keeps no scratch; the shared kernels' (op_scratch.cpp).
  std::vector<clport_scratch_need> scratch_needs(const clport_op& op) override { return runner_.scratch_needs(op); }

 private:
  // The plugin's GEMV: whether it has a kernel for this weight dtype, and its launch of a
  // MUL_MAT the shared checks passed, with aligned operand offsets.
  virtual bool gemv_has_kernel(int32_t weight_dtype) const = 0;
  virtual void gemv_enqueue(const clport_op& op) = 0;

  bool in_served_subset(const clport_op& op) const;
  bool takes_own_gemv(const clport_op& op) const;

  OpRunner runner_;
  std::string plugin_;
  std::vector<int32_t> mul_mat_dtypes_;
};

}  // namespace clport::plugin_common
