// Element-wise ops: SILU, SWIGLU, GEGLU, SCALE, and ADD / MUL with src1 broadcast (src1's ne[i] must
// divide src0's: element (i0..i3) of src0 pairs with (i0 % ne1[0], ..., i3 % ne1[3]) of src1).
#include <cmath>

#include "ops/cpu_common.h"
#include "ops/cpu_kernels.h"
#include "ops/cpu_parallel.h"

namespace clport::cpu::detail {
namespace {

float silu_value(float x) { return x / (1.0f + std::exp(-x)); }

// Shared body of the unary ops: maps `f` over rows.
template <typename Fn>
Status unary(const Srcs& src, const HostTensor& dst, int n_threads, Fn f) {
  const int64_t n = dst.ne[0];
  run_parallel(plan_threads(rows(dst), 10.0 * static_cast<double>(n), n_threads), rows(dst),
               [&](int, int64_t begin, int64_t end) {
                 for (int64_t r = begin; r < end; ++r) {
                   const float* in = flat_row_f32(src[0], r);
                   float* out = flat_row_f32(dst, r);
                   for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]);
                 }
               });
  return Status::ok_status();
}

// Shared body of ADD / MUL.
template <typename Fn>
Status binary_broadcast(const Srcs& src, const HostTensor& dst, int n_threads, Fn f) {
  const HostTensor& a = src[0];
  const HostTensor& b = src[1];
  const int64_t n = a.ne[0];
  const int64_t nb0 = b.ne[0];
  run_parallel(plan_threads(rows(dst), 2.0 * static_cast<double>(n), n_threads), rows(dst),
               [&](int, int64_t begin, int64_t end) {
                 for (int64_t r = begin; r < end; ++r) {
                   const int64_t i1 = r % a.ne[1];
                   const int64_t i2 = (r / a.ne[1]) % a.ne[2];
                   const int64_t i3 = r / (a.ne[1] * a.ne[2]);
                   const float* x = row_f32(a, i1, i2, i3);
                   const float* y = row_f32(b, i1 % b.ne[1], i2 % b.ne[2], i3 % b.ne[3]);
                   float* out = row_f32(dst, i1, i2, i3);
                   if (nb0 == n) {
                     for (int64_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
                   } else {
                     for (int64_t i = 0; i < n; ++i) out[i] = f(x[i], y[i % nb0]);
                   }
                 }
               });
  return Status::ok_status();
}

}  // namespace

// src0 and dst: F32, the same shape (SILU, SCALE).
Status check_unary_operands(const char* op, const Srcs& src, const HostTensor& dst) {
  CLPORT_RETURN_IF_ERROR(check_src_count(op, src, 1, 1));
  CLPORT_RETURN_IF_ERROR(check_tensor(op, "src0", src[0], {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_tensor(op, "dst", dst, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_same_shape(op, "src0", src[0], "dst", dst));
  return Status::ok_status();
}

Status check_scale_operands(const Srcs& src, const HostTensor& dst, const OpParams& p) {
  if (!std::isfinite(p.scale)) return invalid("scale", "the scale must be finite");
  return check_unary_operands("scale", src, dst);
}

Status silu(const Srcs& src, const HostTensor& dst, const OpParams&, int n_threads) {
  return unary(src, dst, n_threads, silu_value);
}

Status scale(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads) {
  const float s = p.scale;
  return unary(src, dst, n_threads, [s](float x) { return x * s; });
}

// gate, up and dst: F32, the same shape (SWIGLU, GEGLU).
Status check_gated_operands(const char* op, const Srcs& src, const HostTensor& dst) {
  CLPORT_RETURN_IF_ERROR(check_src_count(op, src, 2, 2));
  CLPORT_RETURN_IF_ERROR(check_tensor(op, "src0 (gate)", src[0], {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_tensor(op, "src1 (up)", src[1], {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_tensor(op, "dst", dst, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_same_shape(op, "src0", src[0], "dst", dst));
  CLPORT_RETURN_IF_ERROR(check_same_shape(op, "src1", src[1], "dst", dst));
  return Status::ok_status();
}

namespace {

// Shared body of the gated activations: dst = act(gate) * up, all three the same shape.
template <typename Act>
Status gated(const Srcs& src, const HostTensor& dst, int n_threads, double cost, Act act) {
  const int64_t n = dst.ne[0];
  run_parallel(plan_threads(rows(dst), cost * static_cast<double>(n), n_threads), rows(dst),
               [&](int, int64_t begin, int64_t end) {
                 for (int64_t r = begin; r < end; ++r) {
                   const float* gate = flat_row_f32(src[0], r);
                   const float* up = flat_row_f32(src[1], r);
                   float* out = flat_row_f32(dst, r);
                   for (int64_t i = 0; i < n; ++i) out[i] = act(gate[i]) * up[i];
                 }
               });
  return Status::ok_status();
}

}  // namespace

float gelu_tanh_value(float x) {
  const double v = x, sqrt_2_over_pi = 0.79788456080286535588;
  return static_cast<float>(0.5 * v * (1.0 + std::tanh(sqrt_2_over_pi * (v + 0.044715 * v * v * v))));
}

Status swiglu(const Srcs& src, const HostTensor& dst, const OpParams&, int n_threads) {
  return gated(src, dst, n_threads, 12.0, silu_value);
}

Status geglu(const Srcs& src, const HostTensor& dst, const OpParams&, int n_threads) {
  return gated(src, dst, n_threads, 16.0, gelu_tanh_value);
}

// src0, src1 and dst F32, src0 and dst the same shape, src1 broadcast to it (ADD, MUL).
Status check_broadcast_operands(const char* op, const Srcs& src, const HostTensor& dst) {
  CLPORT_RETURN_IF_ERROR(check_src_count(op, src, 2, 2));
  const HostTensor& a = src[0];
  const HostTensor& b = src[1];
  CLPORT_RETURN_IF_ERROR(check_tensor(op, "src0", a, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_tensor(op, "src1", b, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_tensor(op, "dst", dst, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_same_shape(op, "src0", a, "dst", dst));
  for (int i = 0; i < 4; ++i) {
    if (a.ne[i] % b.ne[i] != 0) {
      return invalid(op, "src1 " + describe(b) + " does not broadcast to src0 " + describe(a) +
                             " (dimension " + std::to_string(i) + " must be 1 or divide it)");
    }
  }
  return Status::ok_status();
}

Status add(const Srcs& src, const HostTensor& dst, const OpParams&, int n_threads) {
  return binary_broadcast(src, dst, n_threads, [](float x, float y) { return x + y; });
}

Status mul(const Srcs& src, const HostTensor& dst, const OpParams&, int n_threads) {
  return binary_broadcast(src, dst, n_threads, [](float x, float y) { return x * y; });
}

}  // namespace clport::cpu::detail
