#include "backend/op_description.h"

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
  op.n_past = params.n_past;
  op.params = params.abi();
}

TensorRef shape_only(DType dtype, std::array<int64_t, 4> ne) {
  TensorRef t;
  t.dtype = dtype;
  t.ne = ne;
  t.nb = contiguous_strides(dtype, ne);
  return t;
}

}  // namespace clport
