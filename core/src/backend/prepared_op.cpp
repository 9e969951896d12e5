// The default Backend::prepare: the node's operands kept, each replay a run() with the step's
// position (what the CPU backends do: they have nothing to decide ahead of time).
#include "backend/backend.h"

namespace clport {
namespace {

class ReplayedOp final : public PreparedOp {
 public:
  ReplayedOp(Backend& backend, clport_op_kind kind, const std::vector<const TensorRef*>& src, const TensorRef& dst,
             const cpu::OpParams& params, uint64_t dst_position_stride)
      : backend_(backend), kind_(kind), dst_(dst), params_(params), stride_(dst_position_stride) {
    for (const TensorRef* t : src) src_.push_back(*t);
    for (const TensorRef& t : src_) src_ptrs_.push_back(&t);
  }

  Status run(uint32_t n_past) override {
    params_.n_past = static_cast<int32_t>(n_past);
    if (stride_ == 0) return backend_.run(kind_, src_ptrs_, dst_, params_);
    const uint64_t shift = stride_ * n_past;
    TensorRef dst = dst_;
    dst.offset += shift;
    if (dst.host != nullptr) dst.host += shift;
    return backend_.run(kind_, src_ptrs_, dst, params_);
  }

 private:
  Backend& backend_;
  clport_op_kind kind_;
  std::vector<TensorRef> src_;
  std::vector<const TensorRef*> src_ptrs_;
  TensorRef dst_;
  cpu::OpParams params_;
  uint64_t stride_;
};

}  // namespace

Result<std::unique_ptr<PreparedOp>> Backend::prepare(clport_op_kind kind, const std::vector<const TensorRef*>& src,
                                                     const TensorRef& dst, const cpu::OpParams& params,
                                                     uint64_t dst_position_stride) {
  return std::unique_ptr<PreparedOp>(std::make_unique<ReplayedOp>(*this, kind, src, dst, params, dst_position_stride));
}

}  // namespace clport
