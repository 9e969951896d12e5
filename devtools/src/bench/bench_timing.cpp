// The repeated, profiled run every `clport bench ops` measurement is made of.
#include <vector>

#include "bench_matmul.h"

namespace clport::bench::detail {

Result<Stats> time_runs(DeviceContext& ctx, const Repetitions& reps, const std::function<Status()>& enqueue,
                        const std::string& what) {
  ctx.take_timings();
  std::vector<double> samples;
  for (int i = 0; i < reps.warmup + reps.reps; ++i) {
    CLPORT_RETURN_IF_ERROR(enqueue());
    const double ms = span_ms(ctx.take_timings());
    if (ms <= 0) return Status(Stage::Device, "the device gave no profiling times for " + what);
    if (i >= reps.warmup) samples.push_back(ms);
  }
  return summarize(samples);
}

}  // namespace clport::bench::detail
