// `clport bench ops`: kernel-level benchmarks on one device. Measures, with OpenCL profiling
// events (median of several repetitions after warm-up):
//   - the device's copy bandwidth (clEnqueueCopyBuffer of a large buffer, read + write bytes);
//   - every mat-mul path of the plugin bound for MUL_MAT (or a named plugin): GEMV (M = 1) as
//     achieved GB/s and as a fraction of the copy bandwidth, GEMM (M = 64) as GFLOP/s, for every
//     weight dtype on LLaMA-like shapes;
//   - for F32 GEMM, CLBlast's SGEMM on the same queue in the same run (libclblast loaded at run
//     time; when it cannot run, the report says why);
//   - the program cache's cold vs warm start.
// A harness, not a test: nothing here judges the numbers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "clport/status.h"

namespace clport::bench {

struct OpsOptions {
  int device_index = -1;          // index into discover_devices(); -1: best_device_index()
  std::string plugin;             // plugin name or file; "" = what the binding picks for MUL_MAT
  std::string config_file;        // user policy layer ("" = CLPORT_CONFIG / defaults)
  bool quick = false;             // 576x1536 and 2048x8192 only, fewer repetitions
  int64_t gemm_m = 64;            // activation rows of the GEMM cases
  int warmup = -1, reps = -1;     // -1: 2 / 10 (quick: 1 / 3)
  std::vector<std::string> dtypes;                       // "" = every weight dtype
  std::vector<std::pair<int64_t, int64_t>> shapes;      // (K, N); empty = the default set
  bool gemv = true, gemm = true;
  bool clblast = true;            // compare F32 GEMM with CLBlast when it can run
  bool program_cache = true;      // measure cold vs warm program builds
};

// The device's copy bandwidth, measured two ways on the same buffers: the driver's
// clEnqueueCopyBuffer and a plain float4 copy kernel. The faster one is the yardstick (PoCL runs
// the copy command on one thread, so a 2-core kernel beat it by 30% and "copy%" read 130%).
struct CopyResult {
  uint64_t buffer_bytes = 0;
  std::string method;   // "clEnqueueCopyBuffer" or "copy kernel": the one below
  double median_ms = 0, min_ms = 0;
  double gb_per_s = 0;  // 2 * buffer_bytes / median time
  double command_gb_per_s = 0;  // clEnqueueCopyBuffer
  double kernel_gb_per_s = 0;   // copy kernel (0 when it could not run)
  std::string kernel_error;     // why the copy kernel did not run
};

struct MatMulResult {
  std::string path;   // "gemv" or "gemm"
  std::string dtype;  // "q4_0", ...
  int64_t K = 0, N = 0, M = 0;
  std::string plugin;          // instance that ran it
  bool prepared = false;       // the weight was in the plugin's own layout (prepare_weight)
  bool ok = false;
  std::string error;           // why it did not run
  double median_ms = 0, min_ms = 0;
  uint64_t bytes = 0;          // weight bytes + activation bytes
  double gb_per_s = 0;         // bytes / median time
  double copy_fraction = 0;    // gb_per_s / copy bandwidth (GEMV)
  // GEMV: clEnqueueCopyBuffer moving the same number of bytes (bytes / 2 read + written), timed
  // the same way. A small copy pays the same fixed launch cost as the kernel, which the large
  // copy behind copy_fraction hides; same_size_copy_fraction = copy time / GEMV time shows how
  // close the kernel is to the device's own best at this size (0 when not measured).
  double same_size_copy_ms = 0;
  double same_size_copy_fraction = 0;
  // GEMV in a decode-like stream: the same GEMV on `stream_weights` distinct copies of the
  // weight, enqueued back to back, together at least as large as the copy measurement's buffer
  // (so they come from memory, not from the cache that holds one small weight between runs);
  // time = the span of one stream / stream_weights. 0 when not measured.
  int64_t stream_weights = 0;
  double stream_ms = 0, stream_gb_per_s = 0, stream_copy_fraction = 0;
  double gflops = 0;           // 2 M N K / median time
  // F32 GEMM only: CLBlast SGEMM measured on the same queue (clblast_ran false when it did not).
  bool clblast_ran = false;
  double clblast_median_ms = 0, clblast_gflops = 0;
  double ratio_vs_clblast = 0;       // gflops / clblast_gflops
  double clblast_max_rel_diff = 0;   // max |ours - clblast| / max |clblast| (same inputs)
};

struct ClblastInfo {
  bool usable = false;
  std::string library;  // what was opened
  std::string reason;   // why it cannot run (empty when usable)
};

struct ProgramCacheInfo {
  bool measured = false;
  std::string error;
  size_t programs = 0;
  double cold_ms = 0, warm_ms = 0;
  uint64_t cold_misses = 0, warm_hits = 0;
  std::string note;  // e.g. the driver's own compiler cache
};

struct OpsReport {
  std::string device, platform, driver, opencl_library;
  int device_index = 0;
  bool quick = false;
  int warmup = 0, reps = 0;
  CopyResult copy;
  ClblastInfo clblast;
  std::vector<MatMulResult> matmul;
  ProgramCacheInfo program_cache;
};

// Progressive output hooks (each may be empty).
struct OpsCallbacks {
  std::function<void(const OpsReport&)> on_start;        // device, copy bandwidth, CLBlast known
  std::function<void(const MatMulResult&)> on_result;   // one mat-mul case measured
  std::function<void(const std::string&)> on_note;       // a progress note
};

// Never throws. A Status when the run cannot start (no device, no plugin for MUL_MAT, ...);
// per-case problems are in MatMulResult::error.
Result<OpsReport> run_ops_bench(const OpsOptions& options, const OpsCallbacks& callbacks = {});

// Text output: the preamble (device, copy bandwidth, CLBlast status), the mat-mul table header,
// one table row, and the program cache summary.
std::string format_preamble(const OpsReport& report);
std::string format_matmul_header();
std::string format_matmul_row(const MatMulResult& r);
std::string format_program_cache(const ProgramCacheInfo& info);

// The whole report as a JSON document (pretty-printed).
std::string report_json(const OpsReport& report);

}  // namespace clport::bench
