// Internal to `clport bench ops`: the device copy bandwidth and the mat-mul measurements.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench_session.h"
#include "clblast_sgemm.h"
#include "common/dtype.h"

namespace clport::bench::detail {

struct Repetitions {
  int warmup = 2, reps = 10;
};

// Runs `enqueue` warmup + reps times, each followed by a wait for its profiled events; the
// statistics cover the timed runs (the span of each run's events). `what` names the work in
// the error when the device gives no profiling times.
Result<Stats> time_runs(DeviceContext& ctx, const Repetitions& reps, const std::function<Status()>& enqueue,
                        const std::string& what);

// clEnqueueCopyBuffer of a large initialised buffer (size scaled to the device's limits).
Result<CopyResult> measure_copy(DeviceContext& ctx, bool quick, const Repetitions& reps);
// Median and minimum profiled time of copying `bytes` from src to dst (both at offset 0), with
// clEnqueueCopyBuffer and with a float4 copy kernel (bytes a multiple of 16).
Result<Stats> time_copy(DeviceContext& ctx, cl_mem src, cl_mem dst, uint64_t bytes, const Repetitions& reps);
Result<Stats> time_copy_kernel(DeviceContext& ctx, cl_mem src, cl_mem dst, uint64_t bytes, const Repetitions& reps);

// One weight of `dtype` and shape K x N on the device, measured for GEMV (M = 1) and GEMM
// (M = gemm_m) as asked. `clblast` may be null.
class WeightBench {
 public:
  // stream_bytes: how many weight bytes the streamed GEMV reads per sample (see
  // MatMulResult::stream_weights); 0 skips that measurement.
  WeightBench(Session& session, Repetitions reps, double copy_gb_per_s, ClblastSgemm* clblast,
              uint64_t stream_bytes)
      : s_(session), reps_(reps), copy_gbps_(copy_gb_per_s), clblast_(clblast), stream_bytes_(stream_bytes) {}

  // Uploads a K x N weight (a few distinct random rows, repeated). Status when K is not a whole
  // number of blocks or the device cannot hold it.
  Status load(DType dtype, int64_t K, int64_t N);
  MatMulResult run(int64_t M);  // M = 1: GEMV figures, otherwise GEMM figures

 private:
  Result<Stats> time_plugin(const BoundInstance& inst, const clport_op& op);
  void compare_with_clblast(MatMulResult& r, cl_mem x, cl_mem ours);
  void measure_same_size_copy(MatMulResult& r);
  // Prepares `weight` in inst's own layout when it has one; returns the layout (NULL: plain).
  Result<void*> prepare(const BoundInstance& inst, const clport_tensor& weight);
  void measure_stream(MatMulResult& r, const BoundInstance& inst, const clport_op& op);

  Session& s_;
  Repetitions reps_;
  double copy_gbps_;
  ClblastSgemm* clblast_;
  DType dtype_ = DType::F32;
  int64_t K_ = 0, N_ = 0, row_bytes_ = 0;
  DeviceBuffer weight_;
  uint64_t stream_bytes_;
  std::vector<DeviceBuffer> copies_;  // the streamed GEMV's extra weights (copies of weight_)
};

}  // namespace clport::bench::detail
