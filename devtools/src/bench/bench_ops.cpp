// run_ops_bench: the whole `clport bench ops` measurement, in order: copy bandwidth, CLBlast
// availability, every (shape, dtype) mat-mul, program cache cold vs warm.
#include <cstdlib>

#include "bench_matmul.h"
#include "clport_devtools/program_cache_bench.h"

namespace clport::bench {
namespace {

using detail::Repetitions;

std::vector<std::pair<int64_t, int64_t>> default_shapes(bool quick) {
  if (quick) return {{576, 1536}, {2048, 8192}};
  return {{576, 1536}, {2048, 8192}, {4096, 4096}, {4096, 14336}};
}

Result<std::vector<DType>> chosen_dtypes(const std::vector<std::string>& names) {
  std::vector<DType> out;
  if (names.empty()) return std::vector<DType>(std::begin(kWeightDTypes), std::end(kWeightDTypes));
  for (const auto& name : names) {
    auto d = dtype_from_name(name);
    bool weight = false;
    for (DType w : kWeightDTypes) weight = weight || (d && *d == w);
    if (!weight) return Status(Stage::InvalidArgument, "'" + name + "' is not a weight dtype");
    out.push_back(*d);
  }
  return out;
}

ProgramCacheInfo measure_program_cache(DeviceContext& ctx) {
  ProgramCacheInfo info;
  auto result = bench_program_cache(ctx, shared_kernel_bench_programs());
  if (!result.ok()) {
    info.error = result.status().to_string();
    return info;
  }
  info.measured = true;
  info.programs = result->programs;
  info.cold_ms = result->cold_ms;
  info.warm_ms = result->warm_ms;
  info.cold_misses = result->cold.misses;
  info.warm_hits = result->warm.hits;
  const char* pocl_cache = std::getenv("POCL_KERNEL_CACHE");
  if (ctx.info().platform_name.find("Portable Computing Language") != std::string::npos &&
      (pocl_cache == nullptr || std::string(pocl_cache) != "0"))
    info.note = "PoCL's own kernel cache may make 'cold' look warm; set POCL_KERNEL_CACHE=0 "
                "for a true first start";
  return info;
}

Result<OpsReport> run_impl(const OpsOptions& o, const OpsCallbacks& cb) {
  auto note = [&](const std::string& text) {
    if (cb.on_note) cb.on_note(text);
  };
  auto dtypes = chosen_dtypes(o.dtypes);
  if (!dtypes.ok()) return dtypes.status();
  if (o.gemm_m < 2) return Status(Stage::InvalidArgument, "--m must be at least 2 (M = 1 is GEMV)");
  Repetitions reps;
  reps.warmup = o.warmup >= 0 ? o.warmup : (o.quick ? 1 : 2);
  reps.reps = o.reps > 0 ? o.reps : (o.quick ? 3 : 10);

  auto session = detail::open_session(o);
  if (!session.ok()) return session.status();
  detail::Session& s = session.value();
  DeviceContext& ctx = *s.context;

  OpsReport report;
  report.device = ctx.info().name;
  report.platform = ctx.info().platform_name;
  report.driver = ctx.info().driver_version;
  report.opencl_library = s.library->path();
  report.device_index = s.device_index;
  report.quick = o.quick;
  report.warmup = reps.warmup;
  report.reps = reps.reps;

  note("measuring copy bandwidth");
  auto copy = detail::measure_copy(ctx, o.quick, reps);
  if (!copy.ok()) return copy.status();
  report.copy = copy.value();

  std::unique_ptr<detail::ClblastSgemm> clblast;
  if (o.clblast && o.gemm) {
    clblast = detail::ClblastSgemm::open(ctx, &report.clblast);
  } else {
    report.clblast.reason = "not requested";
  }
  if (cb.on_start) cb.on_start(report);

  detail::WeightBench bench(s, reps, report.copy.gb_per_s, clblast.get(), report.copy.buffer_bytes);
  const auto shapes = o.shapes.empty() ? default_shapes(o.quick) : o.shapes;
  for (const auto& [K, N] : shapes) {
    for (DType dtype : dtypes.value()) {
      if (K % traits(dtype).block_size != 0) continue;  // K-quants need K % 256 == 0
      Status loaded = bench.load(dtype, K, N);
      for (int64_t M : {int64_t{1}, o.gemm_m}) {
        if ((M == 1 && !o.gemv) || (M > 1 && !o.gemm)) continue;
        MatMulResult r;
        if (loaded.ok()) {
          r = bench.run(M);
        } else {
          r.path = M == 1 ? "gemv" : "gemm";
          r.dtype = std::string(dtype_name(dtype));
          r.K = K, r.N = N, r.M = M;
          r.error = loaded.message();
        }
        if (cb.on_result) cb.on_result(r);
        report.matmul.push_back(std::move(r));
      }
    }
  }

  if (o.program_cache) {
    note("measuring program cache cold vs warm start");
    report.program_cache = measure_program_cache(ctx);
  }
  return report;
}

}  // namespace

Result<OpsReport> run_ops_bench(const OpsOptions& options, const OpsCallbacks& callbacks) {
  try {
    return run_impl(options, callbacks);
  } catch (const std::exception& e) {
    return Status(Stage::Internal, std::string("bench ops failed: ") + e.what());
  }
}

}  // namespace clport::bench
