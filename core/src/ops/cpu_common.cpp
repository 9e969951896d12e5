#include "ops/cpu_common.h"

namespace clport::cpu {

HostTensor HostTensor::contiguous(DType dtype, std::array<int64_t, 4> ne, void* data) {
  HostTensor t;
  t.dtype = dtype;
  t.ne = ne;
  t.data = data;
  const auto& tr = traits(dtype);
  t.nb[0] = tr.block_bytes;
  t.nb[1] = tr.block_bytes * (ne[0] / tr.block_size);
  t.nb[2] = t.nb[1] * ne[1];
  t.nb[3] = t.nb[2] * ne[2];
  return t;
}

namespace detail {

Status invalid(const char* op, const std::string& message) {
  return Status(Stage::InvalidArgument, std::string("cpu ") + op + ": " + message);
}

Status unsupported(const char* op, const std::string& message) {
  return Status(Stage::Unsupported, std::string("cpu ") + op + ": " + message);
}

std::string describe(const HostTensor& t) {
  const auto tr = dtype_traits(static_cast<int32_t>(t.dtype));
  std::string s = "[" + std::to_string(t.ne[0]) + ", " + std::to_string(t.ne[1]) + ", " +
                  std::to_string(t.ne[2]) + ", " + std::to_string(t.ne[3]) + "] ";
  s += tr ? std::string(tr->name) : "dtype#" + std::to_string(static_cast<int32_t>(t.dtype));
  return s;
}

HostTensor with_strides(const HostTensor& t) {
  if (t.nb[0] != 0 || t.nb[1] != 0 || t.nb[2] != 0 || t.nb[3] != 0) return t;
  if (!dtype_traits(static_cast<int32_t>(t.dtype))) return t;  // check_tensor reports it
  return HostTensor::contiguous(t.dtype, t.ne, t.data);
}

Status check_tensor(const char* op, const char* name, const HostTensor& t,
                    std::initializer_list<DType> allowed, bool any_element_stride) {
  const auto tr = dtype_traits(static_cast<int32_t>(t.dtype));
  if (!tr)
    return invalid(op, std::string(name) + " has an unknown dtype id " +
                           std::to_string(static_cast<int32_t>(t.dtype)));
  bool ok = false;
  std::string names;
  for (DType d : allowed) {
    ok = ok || d == t.dtype;
    names += (names.empty() ? "" : "/") + std::string(dtype_name(d));
  }
  if (!ok) return unsupported(op, std::string(name) + " is " + describe(t) + ", expected " + names);
  for (int i = 0; i < 4; ++i) {
    if (t.ne[i] < 1) return invalid(op, std::string(name) + " has a dimension < 1: " + describe(t));
    if (t.nb[i] < 0) return invalid(op, std::string(name) + " has a negative stride");
  }
  if (t.ne[0] % tr->block_size != 0) {
    return invalid(op, std::string(name) + " row length " + std::to_string(t.ne[0]) +
                           " is not a multiple of the " + std::string(tr->name) + " block size " +
                           std::to_string(tr->block_size));
  }
  if (t.data == nullptr) return invalid(op, std::string(name) + " has no data");
  if (!any_element_stride && t.nb[0] != tr->block_bytes) {
    return unsupported(op, std::string(name) + " rows must be contiguous (nb[0] = " +
                               std::to_string(tr->block_bytes) + ", got " +
                               std::to_string(t.nb[0]) + ")");
  }
  return Status::ok_status();
}

Status check_weight_tensor(const char* op, const char* name, const HostTensor& t) {
  return check_tensor(op, name, t,
                      {DType::F32, DType::F16, DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1,
                       DType::Q8_0, DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::Q2_K, DType::Q3_K,
                       DType::IQ4_NL, DType::BF16});
}

Status check_src_count(const char* op, const std::vector<HostTensor>& src, size_t lo, size_t hi) {
  if (src.size() < lo || src.size() > hi) {
    const std::string expected =
        lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi);
    return invalid(op,
                   "expects " + expected + " source tensors, got " + std::to_string(src.size()));
  }
  return Status::ok_status();
}

bool same_shape(const HostTensor& a, const HostTensor& b) { return a.ne == b.ne; }

Status check_same_shape(const char* op, const char* a_name, const HostTensor& a, const char* b_name,
                        const HostTensor& b) {
  if (same_shape(a, b)) return Status::ok_status();
  return invalid(op, std::string(a_name) + " " + describe(a) + " and " + b_name + " " +
                         describe(b) + " must have the same shape");
}

}  // namespace detail
}  // namespace clport::cpu
