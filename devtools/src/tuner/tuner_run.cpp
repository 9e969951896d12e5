// tuner::tune: for each group, one plugin instance per candidate setting (so the kernels are
// rebuilt with that candidate's -D options), a checked warm-up run against the CPU reference,
// then the median of a few profiled runs; the winners go to the tuning file.
#include <algorithm>
#include <chrono>
#include <random>

#include <nlohmann/json.hpp>

#include "binding/binding.h"
#include "ops/cpu_ops.h"
#include "ops/op_registry.h"
#include "runtime/device_context.h"
#include "common/logger.h"
#include "common/nmse.h"
#include "plugins/plugin_manager.h"
#include "programs/program_cache.h"
#include "clport_devtools/tuner.h"
#include "conformance/conformance_operands.h"
#include "conformance/quantized_activations.h"
#include "tuner/tuner_candidates.h"
#include "tuner/tuning_store.h"

namespace clport::tuner {
namespace {

using conformance::detail::Operand;

std::string plugin_error(const clport_plugin& t, clport_plugin_error* e) {
  if (e == nullptr) return "no error object";
  std::string m = t.error_message != nullptr && t.error_message(e) != nullptr ? t.error_message(e) : "?";
  if (t.release_error != nullptr) t.release_error(e);
  return m;
}

// Operands of one group on the device, plus the CPU reference output.
struct Bench {
  std::vector<Operand> src;
  Operand dst;
  std::vector<float> want;
  conformance::detail::QuantizedReference want_quantized;  // values empty unless the op can run on 8-bit activations
  std::vector<clport_tensor> views;
  clport_op op{};
};

Status prepare(DeviceContext& ctx, const conformance::detail::CaseSpec& spec, std::mt19937_64& rng, Bench* b) {
  for (const auto& s : spec.src) b->src.push_back(conformance::detail::make_operand(s, false, rng));
  b->dst = conformance::detail::make_operand(spec.dst, true, rng);
  std::vector<Operand*> all;
  for (auto& s : b->src) all.push_back(&s);
  all.push_back(&b->dst);
  for (Operand* o : all) {
    cl_int err = CL_SUCCESS;
    o->buffer = ctx.cl().clCreateBuffer(ctx.context(), CL_MEM_READ_WRITE, o->initial.size(), nullptr, &err);
    if (o->buffer == nullptr) return Status(Stage::OutOfMemory, std::string("clCreateBuffer: ") + cl_error_name(err));
    CLPORT_RETURN_IF_ERROR(ctx.write(o->buffer, 0, o->initial.data(), o->initial.size()));
  }
  conformance::detail::HostReference host;
  CLPORT_RETURN_IF_ERROR(conformance::detail::run_host_reference(spec, b->src, b->dst, false, &host));
  b->want = conformance::detail::gather_values(b->dst, host.dst);
  if (conformance::detail::takes_quantized_activations(spec, b->src)) {
    auto want_q = conformance::detail::quantized_activation_reference(spec, b->src, b->dst);
    if (!want_q.ok()) return want_q.status();
    b->want_quantized = std::move(want_q.value());
  }
  for (const auto& s : b->src) b->views.push_back(s.device_view(true));
  b->views.push_back(b->dst.device_view(true));
  b->op.struct_size = sizeof(clport_op);
  b->op.kind = spec.kind;
  b->op.n_src = static_cast<int32_t>(b->src.size());
  for (size_t i = 0; i < b->src.size(); ++i) b->op.src[i] = &b->views[i];
  b->op.dst = &b->views.back();
  b->op.n_past = spec.params.n_past;
  b->op.params = spec.params.abi();
  return Status();
}

void release(DeviceContext& ctx, Bench& b) {
  for (auto& s : b.src)
    if (s.buffer != nullptr) ctx.cl().clReleaseMemObject(s.buffer);
  if (b.dst.buffer != nullptr) ctx.cl().clReleaseMemObject(b.dst.buffer);
}

// One enqueue + finish; kernel time from the profiling recorder, else wall time.
Result<double> timed_run(DeviceContext& ctx, const clport_plugin& t, clport_plugin_instance* inst, const clport_op& op,
                         bool* profiled) {
  ctx.take_timings();  // drop anything earlier
  const auto t0 = std::chrono::steady_clock::now();
  clport_plugin_error* error = nullptr;
  const int32_t rc = enqueue_once(t, inst, op, &error);
  if (rc != CLPORT_PLUGIN_OK) return Status(Stage::Plugin, "launch: " + plugin_error(t, error));
  CLPORT_RETURN_IF_ERROR(ctx.finish());
  const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  uint64_t ns = 0;
  for (const auto& k : ctx.take_timings()) ns += k.duration_ns();
  *profiled = ns > 0;
  return ns > 0 ? static_cast<double>(ns) / 1e6 : wall;
}

// `policy`: the policy's settings for the plugin, typed; they win over the candidate's.
Trial run_trial(DeviceContext& ctx, const LoadedPlugin& plugin, const Options& options,
                const std::vector<TypedSetting>& policy, const std::vector<TypedSetting>& candidate, Bench& b,
                const conformance::detail::CaseSpec& spec, int repeats, bool* profiled) {
  Trial trial;
  trial.settings = candidate;
  const clport_plugin& t = plugin.table();
  const clport_host* host = ctx.make_host(plugin.name(), merge_settings(candidate, policy), options.precision);
  const clport_device_desc desc = ctx.info().to_desc();
  clport_plugin_instance* inst = nullptr;
  clport_plugin_error* error = nullptr;
  if (host == nullptr || t.create(host, &desc, &inst, &error) != CLPORT_PLUGIN_OK || inst == nullptr) {
    trial.error = "create failed: " + plugin_error(t, error);
    return trial;
  }
  auto body = [&]() -> Status {
    if (!t.claim_op(inst, &b.op)) return Status(Stage::Unsupported, "the plugin does not run this op with these settings");
    auto warm = timed_run(ctx, t, inst, b.op, profiled);  // builds the program
    if (!warm.ok()) return warm.status();
    std::vector<uint8_t> got(b.dst.initial.size());
    CLPORT_RETURN_IF_ERROR(ctx.read(b.dst.buffer, 0, got.data(), got.size()));
    const std::vector<float> have = conformance::detail::gather_values(b.dst, got);
    const double err = nmse(b.want.data(), have.data(), b.want.size());
    // A candidate on the integer path is judged as conformance judges it.
    if (!(err <= spec.threshold) && !b.want_quantized.values.empty()) {
      double err_q = 0.0;
      bool float_bounded = false;
      const std::string why = conformance::detail::judge_quantized_activations(spec, err, have, b.want_quantized,
                                                                               &err_q, &float_bounded);
      if (!why.empty()) return Status(Stage::Device, "wrong results (" + why + ")");
    } else if (!(err <= spec.threshold)) {
      return Status(Stage::Device, "wrong results (NMSE " + std::to_string(err) + ")");
    }
    std::vector<double> times;
    for (int i = 0; i < repeats; ++i) {
      auto ms = timed_run(ctx, t, inst, b.op, profiled);
      if (!ms.ok()) return ms.status();
      times.push_back(ms.value());
    }
    std::sort(times.begin(), times.end());
    trial.ms = times[times.size() / 2];
    return Status();
  };
  Status st;
  try {
    st = body();
  } catch (const std::exception& e) {
    st = Status(Stage::Internal, e.what());
  }
  t.destroy(inst);
  trial.ok = st.ok();
  if (!st.ok()) trial.error = st.message();
  return trial;
}

int repeats_for(const Options& o) {
  if (o.repeats > 0) return o.repeats;
  switch (o.level) {
    case TuningLevel::Exhaustive: return 9;
    case TuningLevel::Normal: return 5;
    default: return 3;
  }
}

}  // namespace

Result<Report> tune(DeviceContext& ctx, const std::shared_ptr<LoadedPlugin>& plugin, const Options& options) {
  if (plugin == nullptr) return Status(Stage::InvalidArgument, "no plugin to tune");
  Report report;
  report.plugin = plugin->name();
  report.device = ctx.info().name;
  report.file = tuning_file(ctx);
  if (report.file.empty())
    return Status(Stage::Config, "there is nowhere to store tuning results; " + ctx.programs().location().describe());
  // Checked once: every trial keeps them.
  auto policy = check_plugin_settings(plugin->table(), options.policy_settings);
  if (!policy.ok()) return policy.status();
  auto log = logger("tuner");
  if (!ctx.profiling()) log->warn("the queue has no profiling: timing with the wall clock");
  std::mt19937_64 rng(0x7475'6e65ULL);  // fixed data: every candidate sees the same inputs
  const int repeats = repeats_for(options);
  nlohmann::json measurements = nlohmann::json::array();
  for (auto& group : detail::groups(plugin->table(), options.level, options.tiny)) {
    GroupResult gr;
    gr.group = group.name;
    gr.shape = std::string(op_kind_name(group.spec.kind)) + " " + group.spec.dtype + " " + group.spec.shape;
    Bench bench;
    Status st = prepare(ctx, group.spec, rng, &bench);
    if (!st.ok()) {
      release(ctx, bench);
      return st;
    }
    std::vector<std::vector<TypedSetting>> all = {{}};
    all.insert(all.end(), group.candidates.begin(), group.candidates.end());
    for (const auto& candidate : all) {
      bool profiled = false;
      gr.trials.push_back(
          run_trial(ctx, *plugin, options, policy.value(), candidate, bench, group.spec, repeats, &profiled));
      report.profiled = report.profiled || profiled;
      const Trial& tr = gr.trials.back();
      const std::string label = candidate.empty() ? std::string("defaults") : describe(candidate);
      log->info("{} [{}]: {} {}", gr.group, label, tr.ok ? std::to_string(tr.ms) + " ms" : "failed:", tr.error);
    }
    release(ctx, bench);
    // The fastest explicit candidate is stored when the defaults failed, or when it is within
    // accept_within of the defaults' time (default -2%: a real gain, not timing noise).
    int alt = -1;
    for (size_t i = 1; i < gr.trials.size(); ++i)
      if (gr.trials[i].ok && (alt < 0 || gr.trials[i].ms < gr.trials[static_cast<size_t>(alt)].ms)) alt = static_cast<int>(i);
    const Trial& defaults = gr.trials[0];
    if (alt > 0 && (!defaults.ok || gr.trials[static_cast<size_t>(alt)].ms <= defaults.ms * (1.0 + options.accept_within))) {
      gr.best = alt;
      gr.stored = true;
    } else {
      gr.best = defaults.ok ? 0 : -1;
    }
    if (gr.stored)
      for (const TypedSetting& s : gr.trials[static_cast<size_t>(gr.best)].settings) report.stored[s.name] = value_text(s);
    nlohmann::json trials = nlohmann::json::array();
    for (const auto& tr : gr.trials)
      trials.push_back({{"settings", describe(tr.settings)}, {"ok", tr.ok}, {"ms", tr.ms}, {"error", tr.error}});
    measurements.push_back({{"group", gr.group}, {"shape", gr.shape}, {"best", gr.best}, {"stored", gr.stored},
                            {"trials", trials}});
    report.groups.push_back(std::move(gr));
  }
  detail::PluginEntry entry;
  entry.level = level_name(options.level);
  entry.settings = report.stored;
  entry.measurements_json = measurements.dump();
  CLPORT_RETURN_IF_ERROR(detail::save_entry(ctx, report.file, plugin->name(), entry));
  log->info("tuning for plugin '{}' on {} written to {}", report.plugin, report.device, report.file);
  return report;
}

}  // namespace clport::tuner
