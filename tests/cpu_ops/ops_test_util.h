// Test helpers for the CPU reference ops: owned host buffers wrapped as HostTensors, random
// data, and a run() shorthand.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "ops/cpu_ops.h"
#include "quant/quant.h"

namespace clport::test {

// A contiguous tensor that owns its bytes.
struct OwnedTensor {
  std::vector<uint8_t> bytes;
  cpu::HostTensor view;

  OwnedTensor(DType dtype, std::array<int64_t, 4> ne) {
    const auto row = row_bytes(dtype, ne[0]);
    bytes.assign(static_cast<size_t>(row.value_or(0) * ne[1] * ne[2] * ne[3]), 0);
    view = cpu::HostTensor::contiguous(dtype, ne, bytes.data());
  }
  float* f32() { return reinterpret_cast<float*>(bytes.data()); }
  std::vector<float> values() const {  // contents as floats (F32 only)
    const auto* p = reinterpret_cast<const float*>(bytes.data());
    return std::vector<float>(p, p + bytes.size() / sizeof(float));
  }
};

inline OwnedTensor f32_tensor(std::array<int64_t, 4> ne, const std::vector<float>& values) {
  OwnedTensor t(DType::F32, ne);
  EXPECT_EQ(values.size() * sizeof(float), t.bytes.size());
  std::copy(values.begin(), values.end(), t.f32());
  return t;
}

inline std::vector<float> random_values(size_t n, unsigned seed, float stddev = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, stddev);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// Quantizes row-major [rows][k] floats into a weight tensor [k, rows] of `dtype`.
inline OwnedTensor quantized_tensor(DType dtype, int64_t k, int64_t rows,
                                    const std::vector<float>& values) {
  OwnedTensor t(dtype, {k, rows, 1, 1});
  const int64_t rb = *row_bytes(dtype, k);
  for (int64_t r = 0; r < rows; ++r) {
    const Status s = quantize_row(dtype, values.data() + r * k, t.bytes.data() + r * rb, k);
    EXPECT_TRUE(s.ok()) << s.to_string();
  }
  return t;
}

// The floats a weight tensor actually holds (its dequantized rows), row-major.
inline std::vector<float> dequantized(const OwnedTensor& t) {
  const int64_t k = t.view.ne[0], rows = t.view.ne[1] * t.view.ne[2] * t.view.ne[3];
  std::vector<float> out(static_cast<size_t>(k * rows));
  const int64_t rb = *row_bytes(t.view.dtype, k);
  for (int64_t r = 0; r < rows; ++r) {
    const Status s = dequantize_row(t.view.dtype, t.bytes.data() + r * rb, out.data() + r * k, k);
    EXPECT_TRUE(s.ok()) << s.to_string();
  }
  return out;
}

inline cpu::OpParams params_eps(float eps) {
  cpu::OpParams p;
  p.eps = eps;
  return p;
}

inline cpu::OpParams params_scale(float scale) {
  cpu::OpParams p;
  p.scale = scale;
  return p;
}

inline Status run(clport_op_kind kind, std::vector<cpu::HostTensor> src, const cpu::HostTensor& dst,
                  const cpu::OpParams& p = {}, int n_threads = 0) {
  return cpu::run_op(kind, src, dst, p, n_threads);
}

}  // namespace clport::test
