#include "backend/backend.h"

namespace clport {

uint64_t TensorRef::bytes() const {
  const auto row = row_bytes(dtype, ne[0]);
  return static_cast<uint64_t>(row.value_or(0)) * ne[1] * ne[2] * ne[3];
}

std::array<int64_t, 4> contiguous_strides(DType dtype, const std::array<int64_t, 4>& ne) {
  const auto& t = traits(dtype);
  std::array<int64_t, 4> nb{};
  nb[0] = t.block_bytes;  // per block; equals the element size for plain types
  nb[1] = ne[0] / t.block_size * t.block_bytes;
  nb[2] = nb[1] * ne[1];
  nb[3] = nb[2] * ne[2];
  return nb;
}

TensorRef view(const TensorRef& base, DType dtype, std::array<int64_t, 4> ne,
               std::array<int64_t, 4> nb, uint64_t byte_offset) {
  TensorRef v = base;
  v.dtype = dtype;
  v.ne = ne;
  v.nb = nb;
  v.layout = nullptr;  // a repacked layout describes the whole weight, not a view of it
  if (v.host != nullptr) v.host += byte_offset;
  v.offset += byte_offset;
  return v;
}

clport_tensor abi_tensor(const TensorRef& t) {
  clport_tensor c{};
  c.dtype = static_cast<int32_t>(t.dtype);
  c.n_dims = 4;
  for (int i = 0; i < 4; ++i) {
    c.ne[i] = t.ne[i];
    c.nb[i] = t.nb[i];
  }
  c.buffer = t.buffer;
  c.offset = t.offset;
  c.layout = t.layout;
  return c;
}

TensorRef view(const TensorRef& base, std::array<int64_t, 4> ne, uint64_t byte_offset) {
  return view(base, base.dtype, ne, contiguous_strides(base.dtype, ne), byte_offset);
}

}  // namespace clport
