// Device copy bandwidth: the yardstick for memory-bound kernels (GEMV). One large buffer copied
// to another with clEnqueueCopyBuffer and with a copy kernel, timed by profiling events; read +
// write bytes count, and the faster of the two is the yardstick.
#include <algorithm>
#include <vector>

#include "programs/program_cache.h"

#include "bench_matmul.h"

namespace clport::bench::detail {

Result<Stats> time_copy(DeviceContext& ctx, cl_mem src, cl_mem dst, uint64_t bytes, const Repetitions& reps) {
  return time_runs(ctx, reps, [&]() {
    cl_event ev = nullptr;
    const cl_int err = ctx.cl().clEnqueueCopyBuffer(ctx.queue(), src, dst, 0, 0, bytes, 0, nullptr, &ev);
    if (err != CL_SUCCESS)
      return Status(Stage::Device, std::string("clEnqueueCopyBuffer failed: ") + cl_error_name(err));
    ctx.record_event("copy", ev);
    ctx.cl().clReleaseEvent(ev);
    return Status();
  }, "the copy");
}

namespace {

constexpr const char* kCopyKernel = R"CL(
kernel void clport_bench_copy(const global float4* src, global float4* dst) {
  dst[get_global_id(0)] = src[get_global_id(0)];
}
)CL";

// Owns a kernel object for the copy kernel's lifetime in time_copy_kernel.
struct KernelHandle {
  const clport_cl_api& cl;
  cl_kernel kernel = nullptr;
  ~KernelHandle() {
    if (kernel != nullptr) cl.clReleaseKernel(kernel);
  }
};

}  // namespace

Result<Stats> time_copy_kernel(DeviceContext& ctx, cl_mem src, cl_mem dst, uint64_t bytes, const Repetitions& reps) {
  if (bytes % 16 != 0) return Status(Stage::InvalidArgument, "copy kernel needs a multiple of 16 bytes");
  auto program = ctx.programs().build(kCopyKernel, "-cl-std=CL1.2");
  if (!program.ok()) return program.status();
  cl_int err = CL_SUCCESS;
  KernelHandle k{ctx.cl()};
  k.kernel = ctx.cl().clCreateKernel(program.value(), "clport_bench_copy", &err);
  ctx.cl().clReleaseProgram(program.value());  // the kernel keeps it alive
  if (err != CL_SUCCESS || k.kernel == nullptr)
    return Status(Stage::Device, std::string("clCreateKernel(copy) failed: ") + cl_error_name(err));
  if ((err = ctx.cl().clSetKernelArg(k.kernel, 0, sizeof(cl_mem), &src)) != CL_SUCCESS ||
      (err = ctx.cl().clSetKernelArg(k.kernel, 1, sizeof(cl_mem), &dst)) != CL_SUCCESS)
    return Status(Stage::Device, std::string("clSetKernelArg(copy) failed: ") + cl_error_name(err));
  const size_t global = static_cast<size_t>(bytes / 16);
  return time_runs(ctx, reps, [&]() {
    cl_event ev = nullptr;
    const cl_int e = ctx.cl().clEnqueueNDRangeKernel(ctx.queue(), k.kernel, 1, nullptr, &global, nullptr, 0, nullptr, &ev);
    if (e != CL_SUCCESS) return Status(Stage::Device, std::string("copy kernel enqueue failed: ") + cl_error_name(e));
    ctx.record_event("copy kernel", ev);
    ctx.cl().clReleaseEvent(ev);
    return Status();
  }, "the copy kernel");
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

  auto command = time_copy(ctx, src->get(), dst->get(), bytes, reps);
  if (!command.ok()) return command.status();
  CopyResult r;
  r.buffer_bytes = bytes;
  r.method = "clEnqueueCopyBuffer";
  r.median_ms = command->median_ms;
  r.min_ms = command->min_ms;
  r.command_gb_per_s = 2.0 * static_cast<double>(bytes) / (command->median_ms * 1e6);
  auto kernel = time_copy_kernel(ctx, src->get(), dst->get(), bytes, reps);
  if (kernel.ok()) {
    r.kernel_gb_per_s = 2.0 * static_cast<double>(bytes) / (kernel->median_ms * 1e6);
    if (kernel->median_ms < command->median_ms) {
      r.method = "copy kernel";
      r.median_ms = kernel->median_ms;
      r.min_ms = kernel->min_ms;
    }
  } else {
    r.kernel_error = kernel.status().message();
  }
  r.gb_per_s = 2.0 * static_cast<double>(bytes) / (r.median_ms * 1e6);
  return r;
}

}  // namespace clport::bench::detail
