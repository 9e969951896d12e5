// The Adreno GEMV/GEMM kernels (kernels/adreno_mul_mat.cl) on the split layout: which MUL_MAT
// operands they take (exactly), and their launch.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "adreno_quirks.hpp"
#include "generation_shapes.hpp"
#include "split_layout.hpp"

namespace adreno {

// "" when the kernels compute this MUL_MAT (weight in plain GGUF bytes or already split), else
// why not. Does not look at buffers or at whether a layout handle is genuine.
std::string check_mul_mat(const clport_op& op);
// The weight part of check_mul_mat: "" when prepare_weight can split this tensor.
std::string check_weight(const clport_tensor& weight);

class SplitMatMul {
 public:
  SplitMatMul(const clport_host& host, const KernelShapes& shapes, const Workarounds& quirks);

  const KernelShapes& shapes() const { return shapes_; }
  // dst = x * W^T for a split weight; x/dst checked by check_mul_mat.
  void enqueue(const SplitWeight& w, const clport_tensor& x, const clport_tensor& dst);

 private:
  const clport::sdk::Kernel& kernel(int32_t dtype, bool gemm, bool images);
  std::string options(int kernel_id, bool images) const;

  const clport_host& host_;
  clport::sdk::Host h_;
  KernelShapes shapes_;
  Workarounds quirks_;
  std::mutex mutex_;
  std::map<std::string, clport::sdk::Program> programs_;  // by build options
  std::map<std::string, clport::sdk::Kernel> kernels_;    // by "name/options"
};

}  // namespace adreno
