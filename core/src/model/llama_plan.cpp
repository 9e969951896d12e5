#include "model/llama_plan.h"

#include <algorithm>

namespace clport {

OpDescription::OpDescription(clport_op_kind kind, const std::vector<const TensorRef*>& src,
                             const TensorRef& dst, const cpu::OpParams& params) {
  op.struct_size = sizeof(op);
  op.kind = kind;
  op.n_src = static_cast<int32_t>(std::min<size_t>(src.size(), 4));
  for (int i = 0; i < op.n_src; ++i) {
    tensors[i] = abi_tensor(*src[static_cast<size_t>(i)]);
    op.src[i] = &tensors[i];
  }
  tensors[4] = abi_tensor(dst);
  op.dst = &tensors[4];
  std::copy(params.i.begin(), params.i.end(), op.iparams);
  std::copy(params.f.begin(), params.f.end(), op.fparams);
}

TensorRef shape_only(DType dtype, std::array<int64_t, 4> ne) {
  TensorRef t;
  t.dtype = dtype;
  t.ne = ne;
  t.nb = contiguous_strides(dtype, ne);
  return t;
}

Status run_plan(Backend& backend, const ForwardPlan& plan, uint32_t n_past, int n_tokens,
                const std::function<Status(int, const TensorRef&, int)>& hook) {
  std::vector<const TensorRef*> src;
  for (const PlanNode& node : plan.nodes) {
    src.clear();
    for (const TensorRef& t : node.src) src.push_back(&t);
    const cpu::OpParams* params = &node.params;
    cpu::OpParams patched;
    if (node.n_past_param >= 0) {
      patched = node.params;
      patched.i[static_cast<size_t>(node.n_past_param)] = static_cast<int32_t>(n_past);
      params = &patched;
    }
    if (node.dst_bytes_per_pos != 0) {
      const uint64_t shift = node.dst_bytes_per_pos * n_past;
      TensorRef dst = node.dst;
      dst.offset += shift;
      if (dst.host != nullptr) dst.host += shift;
      CLPORT_RETURN_IF_ERROR(backend.run(node.kind, src, dst, *params));
    } else {
      CLPORT_RETURN_IF_ERROR(backend.run(node.kind, src, node.dst, *params));
    }
    if (hook && node.hook_layer >= 0) CLPORT_RETURN_IF_ERROR(hook(node.hook_layer, node.hook_tensor, n_tokens));
  }
  return Status();
}

}  // namespace clport
