#include "binding/op_desc.h"

#include "common/dtype.h"

namespace clport {

clport_tensor contiguous_tensor(int32_t dtype, std::array<int64_t, 4> ne, int32_t n_dims, cl_mem buffer) {
  clport_tensor t{};
  t.dtype = dtype;
  t.n_dims = n_dims;
  const auto tr = dtype_traits(dtype);
  const int64_t block = tr ? tr->block_size : 1, bytes = tr ? tr->block_bytes : 4;
  t.nb[0] = bytes;
  t.nb[1] = ne[0] / block * bytes;
  for (int i = 0; i < 4; ++i) t.ne[i] = ne[i];
  for (int i = 2; i < 4; ++i) t.nb[i] = t.nb[i - 1] * ne[i - 1];
  t.buffer = buffer;
  return t;
}

clport_op two_source_op(clport_op_kind kind, const clport_tensor& a, const clport_tensor& b,
                        const clport_tensor& dst) {
  clport_op op{};
  op.struct_size = sizeof(op);
  op.kind = kind;
  op.n_src = 2;
  op.src[0] = &a;
  op.src[1] = &b;
  op.dst = &dst;
  return op;
}

}  // namespace clport
