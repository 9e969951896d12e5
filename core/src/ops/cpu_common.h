// Internal helpers shared by the CPU reference ops: argument checks that turn bad shapes and
// dtypes into Status values, and row addressing through the byte strides.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "ops/cpu_ops.h"

namespace clport::cpu::detail {

// "cpu <op>: <message>" as InvalidArgument / Unsupported.
Status invalid(const char* op, const std::string& message);
Status unsupported(const char* op, const std::string& message);

// "[ne0, ne1, ne2, ne3] dtype" for messages.
std::string describe(const HostTensor& t);

// Returns t with contiguous strides filled in when all of t.nb are zero (the default-constructed
// HostTensor), otherwise t unchanged.
HostTensor with_strides(const HostTensor& t);

// Checks a tensor is usable: known dtype among `allowed`, every ne >= 1, ne[0] a whole number of
// blocks, data present, non-negative strides and, unless `any_element_stride`, rows contiguous
// (nb[0] equals the element or block size).
Status check_tensor(const char* op, const char* name, const HostTensor& t,
                    std::initializer_list<DType> allowed, bool any_element_stride = false);
Status check_weight_tensor(const char* op, const char* name, const HostTensor& t);

// Checks src.size() == n (or within [lo, hi]).
Status check_src_count(const char* op, const std::vector<HostTensor>& src, size_t lo, size_t hi);

bool same_shape(const HostTensor& a, const HostTensor& b);
Status check_same_shape(const char* op, const char* a_name, const HostTensor& a, const char* b_name,
                        const HostTensor& b);

inline uint8_t* row_ptr(const HostTensor& t, int64_t i1, int64_t i2 = 0, int64_t i3 = 0) {
  return static_cast<uint8_t*>(t.data) + i1 * t.nb[1] + i2 * t.nb[2] + i3 * t.nb[3];
}
inline float* row_f32(const HostTensor& t, int64_t i1, int64_t i2 = 0, int64_t i3 = 0) {
  return reinterpret_cast<float*>(row_ptr(t, i1, i2, i3));
}
inline int64_t rows(const HostTensor& t) { return t.ne[1] * t.ne[2] * t.ne[3]; }
// Row r of t counted in (i1, i2, i3) order.
inline float* flat_row_f32(const HostTensor& t, int64_t r) {
  const int64_t i1 = r % t.ne[1];
  const int64_t i2 = (r / t.ne[1]) % t.ne[2];
  const int64_t i3 = r / (t.ne[1] * t.ne[2]);
  return row_f32(t, i1, i2, i3);
}

// Float dot product with eight independent partial sums so the compiler can vectorise it
// without reassociation flags.
inline float dot(const float* a, const float* b, int64_t n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) acc[j] += a[i + j] * b[i + j];
  }
  float sum = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace clport::cpu::detail
