// Every one of the 65536 half-precision bit patterns as a Q8_0 block scale, dequantized by the
// device (GET_ROWS) and by the CPU reference: the results must be the same floats, NaN for NaN.
// The device's half widening differs by device type (vload_half on GPUs, integer bit moves with
// a vload_half fallback for zeros, subnormals, infinities and NaNs on CPUs: CLPORT_F16_BITS), and
// random conformance data almost never hits those edge cases.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "backend/backend.h"
#include "engine/engine_core.h"
#include "binding/op_desc.h"

namespace clport {
namespace {

constexpr int64_t kRows = 65536;      // one Q8_0 block (34 bytes) per row, scale = row index
constexpr int64_t kBlockBytes = 34;

std::vector<uint8_t> blocks() {
  std::vector<uint8_t> b(static_cast<size_t>(kRows * kBlockBytes));
  for (int64_t r = 0; r < kRows; ++r) {
    uint8_t* p = b.data() + r * kBlockBytes;
    const uint16_t h = static_cast<uint16_t>(r);
    std::memcpy(p, &h, 2);
    for (int i = 0; i < 32; ++i) p[2 + i] = static_cast<uint8_t>(i - 16);  // q = -16..15
  }
  return b;
}

std::vector<float> dequantize_all(Backend& be) {
  auto w = be.alloc(DType::Q8_0, {32, kRows, 1, 1});
  auto ids = be.alloc(DType::I32, {kRows, 1, 1, 1});
  auto out = be.alloc(DType::F32, {32, kRows, 1, 1});
  EXPECT_TRUE(w.ok() && ids.ok() && out.ok());
  if (!w.ok() || !ids.ok() || !out.ok()) return {};
  const std::vector<uint8_t> data = blocks();
  std::vector<int32_t> rows(static_cast<size_t>(kRows));
  for (int64_t r = 0; r < kRows; ++r) rows[static_cast<size_t>(r)] = static_cast<int32_t>(r);
  EXPECT_TRUE(be.upload(*w, data.data(), data.size()).ok());
  EXPECT_TRUE(be.upload(*ids, rows.data(), rows.size() * 4).ok());
  const Status st = be.run(CLPORT_OP_GET_ROWS, {&w.value(), &ids.value()}, *out, cpu::OpParams{});
  EXPECT_TRUE(st.ok()) << st.to_string();
  EXPECT_TRUE(be.sync().ok());
  std::vector<float> result(static_cast<size_t>(32 * kRows));
  EXPECT_TRUE(be.download(*out, result.data(), result.size() * 4).ok());
  return result;
}

TEST(HalfScales, EveryHalfBitPatternDequantizesLikeTheCpuReference) {
  EngineOptions options;  // device "auto": the best OpenCL device here (PoCL in CI)
  auto device = create_backend(options);
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  ASSERT_EQ(device.value()->name().rfind("opencl:", 0), 0u)
      << "no OpenCL device backend: " << device.value()->description();
  // Which plugin serves this GET_ROWS (a silent CPU fallback would compare the CPU with itself).
  const clport_tensor w = contiguous_tensor(CLPORT_DTYPE_Q8_0, {32, kRows, 1, 1}, 2),
                      ids = contiguous_tensor(CLPORT_DTYPE_I32, {kRows, 1, 1, 1}, 1),
                      dst = contiguous_tensor(CLPORT_DTYPE_F32, {32, kRows, 1, 1}, 2);
  const clport_op op = two_source_op(CLPORT_OP_GET_ROWS, w, ids, dst);
  ASSERT_NE(device.value()->plugin_for(op), "cpu") << "GET_ROWS would not run on the device";
  auto cpu = make_cpu_backend(1);
  const std::vector<float> got = dequantize_all(*device.value());
  const std::vector<float> want = dequantize_all(*cpu);
  ASSERT_EQ(got.size(), want.size());
  int mismatches = 0;
  for (size_t i = 0; i < got.size() && mismatches < 10; ++i) {
    const bool same = std::isnan(want[i]) ? std::isnan(got[i]) : std::memcmp(&got[i], &want[i], 4) == 0;
    if (!same) {
      ++mismatches;
      ADD_FAILURE() << "half 0x" << std::hex << i / 32 << std::dec << ", element " << i % 32
                    << ": device " << got[i] << ", CPU " << want[i];
    }
  }
}

}  // namespace
}  // namespace clport
