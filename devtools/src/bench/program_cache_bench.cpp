#include "clport_devtools/program_cache_bench.h"

#include <chrono>
#include <filesystem>
#include <random>

#include "clport_plugin/embedded_kernel.h"

// The shared kernels (kernels/*.cl), embedded into this library by devtools/CMakeLists.txt: the
// core's own table is internal to libclport.
extern const clport::EmbeddedKernel clport_devtools_shared_kernels[];

namespace clport {
namespace {

namespace fs = std::filesystem;

// Builds every program through a fresh cache on `dir`; returns the elapsed milliseconds.
Result<double> build_all(DeviceContext& ctx, const std::vector<BenchProgram>& programs,
                         const std::string& dir, ProgramCacheCounters& counters) {
  ProgramCacheOptions options;
  options.directory = dir;
  options.use_environment = false;
  options.memoize = false;
  const DeviceInfo& info = ctx.info();
  ProgramCache cache(ctx.cl(), ctx.context(), info.device,
                     {info.name, info.driver_version, info.platform_version}, options);
  if (!cache.enabled()) return Status(Stage::Io, "cannot use " + dir + " as a cache directory");
  const auto start = std::chrono::steady_clock::now();
  for (const auto& program : programs) {
    auto built = cache.build(program.source, program.options);
    if (!built.ok()) {
      return Status(built.status().stage(), program.name + ": " + built.status().message());
    }
    ctx.cl().clReleaseProgram(built.value());
  }
  const auto end = std::chrono::steady_clock::now();
  counters = cache.counters();
  return std::chrono::duration<double, std::milli>(end - start).count();
}

}  // namespace

std::vector<BenchProgram> shared_kernel_bench_programs() {
  // Helper files hold no kernels of their own; the others expect them in front (see the
  // "Needs ... in front" notes at the top of kernels/*.cl).
  static const char* const kHelpers[] = {"common.cl", "blocks.cl", "reduce.cl", "rope_math.cl"};
  std::string prefix;
  for (const char* helper : kHelpers) {
    if (const EmbeddedKernel* k = find_embedded_kernel(clport_devtools_shared_kernels, helper)) {
      prefix.append(k->source, k->size).append("\n");
    }
  }
  std::vector<BenchProgram> out;
  for (const EmbeddedKernel* k = clport_devtools_shared_kernels; k->name != nullptr; ++k) {
    const std::string name = k->name;
    bool helper = false;
    for (const char* h : kHelpers) helper = helper || name == h;
    if (helper) continue;
    // A "_packed" or "_x8" variant is built after its plain file (mul_mat_gemv_packed.cl reuses
    // the reduction of mul_mat_gemv.cl, mul_mat_gemv_q8a_x8.cl the activation blocks of
    // mul_mat_gemv_q8a.cl), as the plugins' programs concatenate them.
    std::string plain;
    for (const std::string suffix : {"_packed.cl", "_x8.cl"}) {
      if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        continue;
      const std::string sibling = name.substr(0, name.size() - suffix.size()) + ".cl";
      if (const EmbeddedKernel* p = find_embedded_kernel(clport_devtools_shared_kernels, sibling.c_str()))
        plain.assign(p->source, p->size).append("\n");
      // The x8 kernels also need their layout's sizes (mul_mat_gemv_q8a_x8_layout.cl).
      const std::string layout = name.substr(0, name.size() - 3) + "_layout.cl";
      if (const EmbeddedKernel* p = find_embedded_kernel(clport_devtools_shared_kernels, layout.c_str()))
        plain.append(p->source, p->size).append("\n");
    }
    out.push_back({name, prefix + plain + std::string(k->source, k->size), ""});
  }
  return out;
}

Result<ProgramCacheBenchResult> bench_program_cache(DeviceContext& context,
                                                    const std::vector<BenchProgram>& programs,
                                                    const std::string& scratch_dir) {
  std::string dir = scratch_dir;
  if (dir.empty()) {
    dir = (fs::temp_directory_path() /
           ("clport-cache-bench-" + std::to_string(std::random_device{}())))
              .string();
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  ProgramCacheBenchResult result;
  result.programs = programs.size();
  auto cold = build_all(context, programs, dir, result.cold);
  Result<double> warm = cold.ok() ? build_all(context, programs, dir, result.warm) : cold;
  fs::remove_all(dir, ec);
  if (!cold.ok()) return cold.status();
  if (!warm.ok()) return warm.status();
  result.cold_ms = cold.value();
  result.warm_ms = warm.value();
  return result;
}

}  // namespace clport
