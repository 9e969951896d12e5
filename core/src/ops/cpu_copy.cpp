// COPY: dst = convert(src0) between F32 and F16 (either direction, or same type), or F32 / F16
// quantized into a Q8_0 / Q4_0 dst (a slot of a quantized KV cache). Both sides may be strided
// views with any element (block) stride. When the shapes differ but the element counts match,
// elements are paired in logical (ne[0]-fastest) order; a quantized dst needs equal shapes (its
// rows are quantized whole, with quantize_row's rounding, which the device kernels repeat).
#include <cstring>
#include <vector>

#include "quant/quant.h"
#include "ops/cpu_common.h"
#include "ops/cpu_kernels.h"

namespace clport::cpu::detail {
namespace {

float load(const HostTensor& t, const uint8_t* p) {
  if (t.dtype == DType::F32) {
    float v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  uint16_t h;
  std::memcpy(&h, p, sizeof h);
  return half_to_float(h);
}

void store(const HostTensor& t, uint8_t* p, float v) {
  if (t.dtype == DType::F32) {
    std::memcpy(p, &v, sizeof v);
  } else {
    const uint16_t h = float_to_half(v);
    std::memcpy(p, &h, sizeof h);
  }
}

// Byte offset of logical element index k in t.
int64_t offset_of(const HostTensor& t, int64_t k) {
  const int64_t i0 = k % t.ne[0];
  k /= t.ne[0];
  const int64_t i1 = k % t.ne[1];
  k /= t.ne[1];
  const int64_t i2 = k % t.ne[2];
  const int64_t i3 = k / t.ne[2];
  return i0 * t.nb[0] + i1 * t.nb[1] + i2 * t.nb[2] + i3 * t.nb[3];
}

// src rows quantized into dst's rows of blocks (same shapes, dst rows contiguous blocks).
Status copy_quantized(const HostTensor& s, const HostTensor& dst) {
  std::vector<float> row(static_cast<size_t>(s.ne[0]));
  const auto* in = static_cast<const uint8_t*>(s.data);
  auto* out = static_cast<uint8_t*>(dst.data);
  for (int64_t i3 = 0; i3 < s.ne[3]; ++i3)
    for (int64_t i2 = 0; i2 < s.ne[2]; ++i2)
      for (int64_t i1 = 0; i1 < s.ne[1]; ++i1) {
        const uint8_t* sr = in + i1 * s.nb[1] + i2 * s.nb[2] + i3 * s.nb[3];
        for (int64_t i0 = 0; i0 < s.ne[0]; ++i0) row[static_cast<size_t>(i0)] = load(s, sr + i0 * s.nb[0]);
        CLPORT_RETURN_IF_ERROR(quantize_row(dst.dtype, row.data(),
                                            out + i1 * dst.nb[1] + i2 * dst.nb[2] + i3 * dst.nb[3], s.ne[0]));
      }
  return Status::ok_status();
}

}  // namespace

Status check_copy_operands(const Srcs& src, const HostTensor& dst, const OpParams&) {
  constexpr const char* kOp = "copy";
  CLPORT_RETURN_IF_ERROR(check_src_count(kOp, src, 1, 1));
  const HostTensor& s = src[0];
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "src0", s, {DType::F32, DType::F16}, true));
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "dst", dst, {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0}, true));
  if (s.elements() != dst.elements()) {
    return invalid(
        kOp, "src0 " + describe(s) + " and dst " + describe(dst) + " differ in element count");
  }
  if (dst.dtype == DType::Q8_0 || dst.dtype == DType::Q4_0) {
    if (!same_shape(s, dst)) return unsupported(kOp, "a quantized dst needs src0's shape, got " + describe(s) + " -> " + describe(dst));
    if (dst.nb[0] != static_cast<int64_t>(traits(dst.dtype).block_bytes))
      return unsupported(kOp, "a quantized dst needs contiguous blocks in its rows");
  }
  return Status::ok_status();
}

Status copy(const Srcs& src, const HostTensor& dst, const OpParams&, int) {
  const HostTensor& s = src[0];
  if (dst.dtype == DType::Q8_0 || dst.dtype == DType::Q4_0) return copy_quantized(s, dst);
  const auto* in = static_cast<const uint8_t*>(s.data);
  auto* out = static_cast<uint8_t*>(dst.data);
  if (same_shape(s, dst)) {
    for (int64_t i3 = 0; i3 < s.ne[3]; ++i3)
      for (int64_t i2 = 0; i2 < s.ne[2]; ++i2)
        for (int64_t i1 = 0; i1 < s.ne[1]; ++i1) {
          const uint8_t* sr = in + i1 * s.nb[1] + i2 * s.nb[2] + i3 * s.nb[3];
          uint8_t* dr = out + i1 * dst.nb[1] + i2 * dst.nb[2] + i3 * dst.nb[3];
          for (int64_t i0 = 0; i0 < s.ne[0]; ++i0)
            store(dst, dr + i0 * dst.nb[0], load(s, sr + i0 * s.nb[0]));
        }
    return Status::ok_status();
  }
  for (int64_t k = 0; k < s.elements(); ++k)
    store(dst, out + offset_of(dst, k), load(s, in + offset_of(s, k)));
  return Status::ok_status();
}

}  // namespace clport::cpu::detail
