// Text table and JSON for `clport bench ops`.
#include <cstdarg>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "clport_devtools/bench_ops.h"

namespace clport::bench {
namespace {

std::string printf_string(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string printf_string(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  return buf;
}

nlohmann::json matmul_json(const MatMulResult& r) {
  nlohmann::json j{{"path", r.path}, {"dtype", r.dtype}, {"K", r.K},     {"N", r.N},
                   {"M", r.M},       {"plugin", r.plugin}, {"prepared", r.prepared}, {"ok", r.ok}, {"error", r.error}};
  if (!r.ok) return j;
  j["median_ms"] = r.median_ms;
  j["min_ms"] = r.min_ms;
  j["bytes"] = r.bytes;
  j["gb_per_s"] = r.gb_per_s;
  j["gflops"] = r.gflops;
  if (r.path == "gemv") {
    j["copy_fraction"] = r.copy_fraction;
    if (r.stream_weights > 0)
      j["stream"] = {{"weights", r.stream_weights}, {"ms_per_gemv", r.stream_ms},
                     {"gb_per_s", r.stream_gb_per_s}, {"copy_fraction", r.stream_copy_fraction}};
    if (r.same_size_copy_ms > 0)
      j["same_size_copy"] = {{"median_ms", r.same_size_copy_ms}, {"fraction", r.same_size_copy_fraction}};
  }
  if (r.clblast_ran) {
    j["clblast"] = {{"median_ms", r.clblast_median_ms},
                    {"gflops", r.clblast_gflops},
                    {"ratio", r.ratio_vs_clblast},
                    {"max_rel_diff", r.clblast_max_rel_diff}};
  }
  return j;
}

}  // namespace

std::string format_preamble(const OpsReport& r) {
  std::string out;
  out += printf_string("device %d: %s (%s, driver %s) via %s\n", r.device_index, r.device.c_str(),
                       r.platform.c_str(), r.driver.c_str(), r.opencl_library.c_str());
  out += printf_string("timing: OpenCL profiling events, median of %d after %d warm-up%s\n", r.reps,
                       r.warmup, r.quick ? " (--quick)" : "");
  out += printf_string("copy bandwidth: %.2f GB/s (%s of %.0f MiB, read + write, %.3f ms; "
                       "clEnqueueCopyBuffer %.2f GB/s, copy kernel %s)\n",
                       r.copy.gb_per_s, r.copy.method.c_str(),
                       static_cast<double>(r.copy.buffer_bytes) / 1048576.0, r.copy.median_ms,
                       r.copy.command_gb_per_s,
                       r.copy.kernel_gb_per_s > 0 ? printf_string("%.2f GB/s", r.copy.kernel_gb_per_s).c_str()
                                                  : ("not run: " + r.copy.kernel_error).c_str());
  out += r.clblast.usable ? "CLBlast: " + r.clblast.library + " (F32 GEMM compared)\n"
                          : "CLBlast: not compared: " + r.clblast.reason + "\n";
  return out;
}

std::string format_matmul_header() {
  return printf_string("%-5s %-5s %5s %6s %3s %10s %9s %9s %7s %10s  %s\n", "path", "dtype", "K",
                       "N", "M", "median ms", "GB/s", "GFLOP/s", "copy%", "vs CLBlast",
                       "plugin / notes");
}

std::string format_matmul_row(const MatMulResult& r) {
  if (!r.ok)
    return printf_string("%-5s %-5s %5lld %6lld %3lld  not run: %s\n", r.path.c_str(), r.dtype.c_str(),
                         static_cast<long long>(r.K), static_cast<long long>(r.N),
                         static_cast<long long>(r.M), r.error.c_str());
  const std::string fraction = r.path == "gemv" ? printf_string("%6.1f%%", 100.0 * r.copy_fraction) : "      -";
  const std::string versus = r.clblast_ran ? printf_string("%9.2fx", r.ratio_vs_clblast) : "         -";
  std::string notes = r.plugin + (r.prepared ? " (prepared layout)" : "");
  if (r.clblast_ran)
    notes += printf_string(" (CLBlast %.1f GFLOP/s, max rel diff %.1e)", r.clblast_gflops,
                           r.clblast_max_rel_diff);
  if (r.stream_weights > 0)
    notes += printf_string(" (stream of %lld: %.3f ms each, %.1f%% of copy)", static_cast<long long>(r.stream_weights),
                           r.stream_ms, 100.0 * r.stream_copy_fraction);
  if (r.same_size_copy_ms > 0)
    notes += printf_string(" (same-size copy %.3f ms = %.0f%% of this time)", r.same_size_copy_ms,
                           100.0 * r.same_size_copy_fraction);
  return printf_string("%-5s %-5s %5lld %6lld %3lld %10.3f %9.2f %9.2f %s %s  %s\n", r.path.c_str(),
                       r.dtype.c_str(), static_cast<long long>(r.K), static_cast<long long>(r.N),
                       static_cast<long long>(r.M), r.median_ms, r.gb_per_s, r.gflops,
                       fraction.c_str(), versus.c_str(), notes.c_str());
}

std::string format_program_cache(const ProgramCacheInfo& p) {
  if (!p.measured) return "program cache: not measured" + (p.error.empty() ? "" : ": " + p.error) + "\n";
  std::string out = printf_string(
      "program cache: %zu programs, cold %.1f ms (%llu built from source), warm %.1f ms (%llu "
      "loaded from cache), %.1fx faster\n",
      p.programs, p.cold_ms, static_cast<unsigned long long>(p.cold_misses), p.warm_ms,
      static_cast<unsigned long long>(p.warm_hits), p.warm_ms > 0 ? p.cold_ms / p.warm_ms : 0.0);
  if (!p.note.empty()) out += "  note: " + p.note + "\n";
  return out;
}

std::string report_json(const OpsReport& r) {
  nlohmann::json j;
  j["device"] = {{"index", r.device_index}, {"name", r.device}, {"platform", r.platform},
                 {"driver", r.driver}, {"opencl_library", r.opencl_library}};
  j["settings"] = {{"quick", r.quick}, {"warmup", r.warmup}, {"reps", r.reps},
                   {"timer", "opencl profiling events, median"}};
  j["copy"] = {{"buffer_bytes", r.copy.buffer_bytes}, {"median_ms", r.copy.median_ms},
               {"min_ms", r.copy.min_ms}, {"gb_per_s", r.copy.gb_per_s},
               {"method", r.copy.method}, {"command_gb_per_s", r.copy.command_gb_per_s},
               {"kernel_gb_per_s", r.copy.kernel_gb_per_s}};
  if (!r.copy.kernel_error.empty()) j["copy"]["kernel_error"] = r.copy.kernel_error;
  j["clblast"] = {{"usable", r.clblast.usable}, {"library", r.clblast.library},
                  {"reason", r.clblast.reason}};
  j["matmul"] = nlohmann::json::array();
  for (const auto& m : r.matmul) j["matmul"].push_back(matmul_json(m));
  const ProgramCacheInfo& p = r.program_cache;
  j["program_cache"] = {{"measured", p.measured}, {"error", p.error}, {"programs", p.programs},
                        {"cold_ms", p.cold_ms}, {"warm_ms", p.warm_ms},
                        {"cold_misses", p.cold_misses}, {"warm_hits", p.warm_hits},
                        {"note", p.note}};
  return j.dump(2);
}

}  // namespace clport::bench
