// `clport bench ops [--device N] [--plugin NAME] [--quick] [--json FILE]`: copy bandwidth, every
// mat-mul path per weight dtype (GEMV GB/s and fraction of the copy bandwidth, GEMM GFLOP/s,
// F32 GEMM vs CLBlast) and the program cache's cold vs warm start. See clport/bench_ops.h.
#include <charconv>
#include <cstdio>
#include <memory>
#include <regex>

#include "clport_devtools/bench_ops.h"
#include "command_registry.h"
#include "engine_flags.h"
#include "output_files.h"
#include "option_ranges.h"

namespace clport::cli {
namespace {

struct OpsFlags {
  bench::OpsOptions options;
  std::vector<std::string> shapes;  // "KxN"
  bool no_clblast = false, no_program_cache = false, gemv_only = false, gemm_only = false;
  std::string json_file;
};

// Larger than any LLaMA-family mat-mul dimension (vocabularies included).
constexpr int64_t kMaxShapeDim = 1 << 20;

bool shape_dim(const std::string& digits, int64_t* value) {
  const auto [stop, error] = std::from_chars(digits.data(), digits.data() + digits.size(), *value);
  return error == std::errc() && stop == digits.data() + digits.size() && *value >= 1 &&
         *value <= kMaxShapeDim;
}

int run(OpsFlags& f) {
  for (const auto& text : f.shapes) {
    std::smatch m;
    int64_t k = 0, n = 0;
    if (!std::regex_match(text, m, std::regex(R"((\d+)[xX](\d+))")) ||
        !shape_dim(m[1].str(), &k) || !shape_dim(m[2].str(), &n)) {
      std::fprintf(stderr,
                   "clport bench ops: --shape '%s' is not KxN with K and N from 1 to %lld (e.g. "
                   "4096x14336)\n",
                   text.c_str(), static_cast<long long>(kMaxShapeDim));
      return 2;
    }
    f.options.shapes.emplace_back(k, n);
  }
  f.options.clblast = !f.no_clblast;
  f.options.program_cache = !f.no_program_cache;
  f.options.gemv = !f.gemm_only;
  f.options.gemm = !f.gemv_only;
  bench::OpsCallbacks cb;
  cb.on_note = [](const std::string& note) { std::fprintf(stderr, "bench ops: %s\n", note.c_str()); };
  cb.on_start = [](const bench::OpsReport& r) {
    std::fputs(bench::format_preamble(r).c_str(), stdout);
    std::fputs(bench::format_matmul_header().c_str(), stdout);
    std::fflush(stdout);
  };
  cb.on_result = [](const bench::MatMulResult& r) {
    std::fputs(bench::format_matmul_row(r).c_str(), stdout);
    std::fflush(stdout);
  };
  auto report = bench::run_ops_bench(f.options, cb);
  if (!report.ok()) return report_failure("bench ops", report.status());
  std::fputs(bench::format_program_cache(report->program_cache).c_str(), stdout);
  if (f.json_file.empty()) return 0;
  return write_output_file("bench ops", "--json", f.json_file, bench::report_json(report.value()) + "\n");
}

const RegisterBenchCommand kRegisterBenchOps{
    {"ops", "Copy bandwidth, mat-mul GEMV/GEMM per dtype (vs CLBlast), program cache start",
     [](CLI::App& app) {
       auto f = std::make_shared<OpsFlags>();
       app.add_option("--device", f->options.device_index, "device index (default: the best)")
           ->transform(integer_range(0, kMaxDeviceIndex));
       app.add_option("--plugin", f->options.plugin,
                      "plugin name or file (default: the plugin bound for MUL_MAT)");
       app.add_option("--config", f->options.config_file, "policy YAML layered over the defaults");
       app.add_flag("--quick", f->options.quick, "576x1536 and 2048x8192 only, fewer repetitions");
       app.add_option("--m", f->options.gemm_m, "activation rows of the GEMM cases (default 64)")
           ->transform(integer_range(1, kMaxBatch));
       app.add_option("--warmup", f->options.warmup, "warm-up runs per case")
           ->transform(integer_range(0, 10000));
       app.add_option("--reps", f->options.reps, "timed runs per case (the median is reported)")
           ->transform(integer_range(1, 10000));
       app.add_option("--dtype", f->options.dtypes, "weight dtypes to run (repeatable; default all)");
       app.add_option("--shape", f->shapes, "KxN shapes to run (repeatable; default LLaMA-like set)");
       app.add_flag("--gemv-only", f->gemv_only, "skip the GEMM cases");
       app.add_flag("--gemm-only", f->gemm_only, "skip the GEMV cases");
       app.add_flag("--no-clblast", f->no_clblast, "do not compare with CLBlast");
       app.add_flag("--no-program-cache", f->no_program_cache, "skip the program cache measurement");
       app.add_option("--json", f->json_file, "write every result as JSON to this file");
       return [f]() { return run(*f); };
     }}};

}  // namespace
}  // namespace clport::cli
