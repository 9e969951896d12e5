// Device copy bandwidth: the yardstick for memory-bound kernels (GEMV). One large buffer copied
// to another with clEnqueueCopyBuffer, timed by profiling events; read + write bytes count.
#include <algorithm>
#include <vector>

#include "bench_matmul.h"

namespace clport::bench::detail {

Result<Stats> time_copy(DeviceContext& ctx, cl_mem src, cl_mem dst, uint64_t bytes, const Repetitions& reps) {
  ctx.take_timings();
  std::vector<double> samples;
  for (int i = 0; i < reps.warmup + reps.reps; ++i) {
    cl_event ev = nullptr;
    const cl_int err = ctx.cl().clEnqueueCopyBuffer(ctx.queue(), src, dst, 0, 0, bytes, 0, nullptr, &ev);
    if (err != CL_SUCCESS)
      return Status(Stage::Device, std::string("clEnqueueCopyBuffer failed: ") + cl_error_name(err));
    ctx.record_event("copy", ev);
    ctx.cl().clReleaseEvent(ev);
    const double ms = span_ms(ctx.take_timings());
    if (ms <= 0) return Status(Stage::Device, "the device gave no profiling times for the copy");
    if (i >= reps.warmup) samples.push_back(ms);
  }
  return summarize(samples);
}

Result<CopyResult> measure_copy(DeviceContext& ctx, bool quick, const Repetitions& reps) {
  const DeviceInfo& info = ctx.info();
  // Large enough to defeat caches (CPU last-level caches reach hundreds of MiB nowhere yet),
  // small enough for two copies on any device.
  uint64_t bytes = quick ? (64ull << 20) : (256ull << 20);
  if (info.max_alloc_bytes > 0) bytes = std::min<uint64_t>(bytes, info.max_alloc_bytes / 2);
  if (info.global_mem_bytes > 0) bytes = std::min<uint64_t>(bytes, info.global_mem_bytes / 8);
  bytes &= ~uint64_t{4095};
  if (bytes == 0) return Status(Stage::DeviceUnusable, "device reports no usable memory size");

  auto src = create_buffer(ctx, bytes);
  if (!src.ok()) return src.status();
  auto dst = create_buffer(ctx, bytes);
  if (!dst.ok()) return dst.status();
  // Real data in the source: an untouched buffer may be backed by a shared zero page on CPU
  // devices, which reads from cache and overstates the bandwidth.
  std::vector<uint32_t> pattern(1 << 20);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint32_t>(i * 2654435761u);
  const size_t chunk = pattern.size() * sizeof(uint32_t);
  for (uint64_t off = 0; off < bytes; off += chunk)
    CLPORT_RETURN_IF_ERROR(ctx.write(src->get(), off, pattern.data(),
                                     static_cast<size_t>(std::min<uint64_t>(chunk, bytes - off))));

  auto timed = time_copy(ctx, src->get(), dst->get(), bytes, reps);
  if (!timed.ok()) return timed.status();
  const Stats& st = timed.value();
  CopyResult r;
  r.buffer_bytes = bytes;
  r.median_ms = st.median_ms;
  r.min_ms = st.min_ms;
  r.gb_per_s = 2.0 * static_cast<double>(bytes) / (st.median_ms * 1e6);
  return r;
}

}  // namespace clport::bench::detail
