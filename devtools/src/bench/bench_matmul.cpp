// Mat-mul measurements: one weight on the device, the plugin's GEMV / GEMM timed by profiling
// events, and CLBlast's SGEMM on the same inputs for F32.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "bench_matmul.h"
#include "binding/op_desc.h"
#include "ops/op_registry.h"
#include "quant/quant.h"

namespace clport::bench::detail {
namespace {

constexpr int64_t kDistinctRows = 64;  // random rows uploaded, repeated to fill N

std::vector<float> random_floats(size_t n, float scale, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (auto& f : v) f = dist(rng);
  return v;
}

clport_tensor tensor(DType dtype, int64_t ne0, int64_t ne1, cl_mem buffer) {
  return contiguous_tensor(static_cast<int32_t>(dtype), {ne0, ne1, 1, 1}, 2, buffer);
}

std::string take_error(const clport_plugin& t, clport_plugin_error* e) {
  if (e == nullptr) return "plugin gave no error object";
  std::string m = t.error_message ? t.error_message(e) : "";
  if (t.release_error) t.release_error(e);
  return m;
}

}  // namespace

Status WeightBench::load(DType dtype, int64_t K, int64_t N) {
  auto rb = row_bytes(dtype, K);
  if (!rb) return Status(Stage::Unsupported, "K is not a whole number of blocks");
  dtype_ = dtype;
  K_ = K;
  N_ = N;
  row_bytes_ = *rb;
  weight_ = DeviceBuffer();
  copies_.clear();
  auto buffer = create_buffer(*s_.context, static_cast<size_t>(row_bytes_ * N));
  if (!buffer.ok()) return buffer.status();
  weight_ = std::move(buffer.value());
  // Content does not change the speed; a block of distinct rows repeated keeps set-up fast.
  const int64_t rows = std::min(N, kDistinctRows);
  const std::vector<float> values = random_floats(static_cast<size_t>(rows * K), 0.1f, 1234);
  std::vector<uint8_t> chunk(static_cast<size_t>(rows * row_bytes_));
  for (int64_t r = 0; r < rows; ++r)
    CLPORT_RETURN_IF_ERROR(quantize_row(dtype, values.data() + r * K, chunk.data() + r * row_bytes_, K));
  for (int64_t n = 0; n < N; n += rows) {
    const int64_t count = std::min(rows, N - n);
    CLPORT_RETURN_IF_ERROR(s_.context->write(weight_.get(), static_cast<size_t>(n * row_bytes_),
                                             chunk.data(), static_cast<size_t>(count * row_bytes_)));
  }
  return Status();
}

Result<Stats> WeightBench::time_plugin(const BoundInstance& inst, const clport_op& op) {
  // Prepared once, as a plan prepares it; the timed loop replays it.
  auto launch = PreparedLaunch::prepare(inst.table(), inst.handle(), inst.name(), op);
  if (!launch.ok()) return launch.status();
  return time_runs(*s_.context, reps_, [&]() { return launch.value().enqueue(0); },
                   inst.name() + " " + op_kind_name(op.kind));
}

MatMulResult WeightBench::run(int64_t M) {
  MatMulResult r;
  r.path = M == 1 ? "gemv" : "gemm";
  r.dtype = std::string(dtype_name(dtype_));
  r.K = K_;
  r.N = N_;
  r.M = M;
  DeviceContext& ctx = *s_.context;
  auto x = create_buffer(ctx, static_cast<size_t>(K_ * M * 4));
  auto dst = create_buffer(ctx, static_cast<size_t>(N_ * M * 4));
  if (!x.ok() || !dst.ok()) {
    r.error = (!x.ok() ? x.status() : dst.status()).message();
    return r;
  }
  const std::vector<float> xv = random_floats(static_cast<size_t>(K_ * M), 1.0f, 99);
  if (Status st = ctx.write(x->get(), 0, xv.data(), xv.size() * 4); !st.ok()) {
    r.error = st.message();
    return r;
  }
  const clport_tensor w = tensor(dtype_, K_, N_, weight_.get());
  const clport_tensor xt = tensor(DType::F32, K_, M, x->get());
  const clport_tensor dt = tensor(DType::F32, N_, M, dst->get());
  const clport_op op = two_source_op(CLPORT_OP_MUL_MAT, w, xt, dt);
  const BoundInstance* inst = s_.instance_for(op);
  if (inst == nullptr) {
    r.error = s_.forced_plugin.empty() ? "no bound plugin supports it"
                                       : "plugin " + s_.forced_plugin + " does not support it";
    return r;
  }
  r.plugin = inst->name();
  // The weight in the plugin's own layout, as a model's weights are after loading.
  auto layout = prepare(*inst, w);
  if (!layout.ok()) {
    r.error = layout.status().message();
    return r;
  }
  clport_tensor prepared_w = w;
  prepared_w.layout = layout.value();
  clport_op timed = op;
  timed.src[0] = &prepared_w;
  r.prepared = layout.value() != nullptr;
  auto ms = time_plugin(*inst, timed);
  if (layout.value() != nullptr) {
    (void)ctx.finish();
    inst->table().release_layout(inst->handle(), layout.value());
  }
  if (!ms.ok()) {
    r.error = ms.status().message();
    return r;
  }
  r.ok = true;
  r.median_ms = ms->median_ms;
  r.min_ms = ms->min_ms;
  r.bytes = static_cast<uint64_t>(row_bytes_ * N_ + K_ * M * 4);
  r.gb_per_s = static_cast<double>(r.bytes) / (r.median_ms * 1e6);
  r.copy_fraction = copy_gbps_ > 0 ? r.gb_per_s / copy_gbps_ : 0;
  r.gflops = 2.0 * static_cast<double>(M * N_ * K_) / (r.median_ms * 1e6);
  if (M > 1 && dtype_ == DType::F32 && clblast_ != nullptr) compare_with_clblast(r, x->get(), dst->get());
  if (M == 1) measure_same_size_copy(r);
  if (M == 1) measure_stream(r, *inst, op);
  return r;
}

Result<void*> WeightBench::prepare(const BoundInstance& inst, const clport_tensor& weight) {
  if (inst.table().prepare_weight == nullptr) return static_cast<void*>(nullptr);
  void* layout = nullptr;
  int32_t owns_weight = 0;  // the bench keeps its plain copy regardless
  clport_plugin_error* error = nullptr;
  const int32_t rc = inst.table().prepare_weight(inst.handle(), &weight, &layout, &owns_weight, &error);
  if (rc == CLPORT_PLUGIN_UNSUPPORTED) {
    if (error != nullptr) take_error(inst.table(), error);
    return static_cast<void*>(nullptr);
  }
  if (rc != CLPORT_PLUGIN_OK) return Status(Stage::Plugin, "prepare_weight: " + take_error(inst.table(), error));
  return layout;
}

void WeightBench::measure_stream(MatMulResult& r, const BoundInstance& inst, const clport_op& op) {
  DeviceContext& ctx = *s_.context;
  const uint64_t weight_bytes = static_cast<uint64_t>(row_bytes_ * N_);
  if (stream_bytes_ == 0 || weight_bytes == 0) return;
  // Copies of the weight (device-side copies: the content does not change the speed) until the
  // stream reads stream_bytes_; at most kMaxStreamWeights, so tiny weights keep set-up short.
  constexpr uint64_t kMaxStreamWeights = 64;
  const uint64_t count = std::min<uint64_t>(kMaxStreamWeights, std::max<uint64_t>(1, (stream_bytes_ + weight_bytes - 1) / weight_bytes));
  while (copies_.size() + 1 < count) {
    auto b = create_buffer(ctx, static_cast<size_t>(weight_bytes));
    if (!b.ok()) break;  // a device that cannot hold more streams over what it has
    if (ctx.cl().clEnqueueCopyBuffer(ctx.queue(), weight_.get(), b->get(), 0, 0, static_cast<size_t>(weight_bytes), 0,
                                     nullptr, nullptr) != CL_SUCCESS)
      break;
    copies_.push_back(std::move(b.value()));
  }
  std::vector<clport_tensor> weights(1 + copies_.size(), *op.src[0]);
  for (size_t i = 0; i < copies_.size(); ++i) weights[i + 1].buffer = copies_[i].get();
  std::vector<void*> layouts;
  bool ok = true;
  for (auto& w : weights) {
    auto layout = prepare(inst, w);
    if (!layout.ok()) {
      ok = false;
      break;
    }
    w.layout = layout.value();
    if (w.layout != nullptr) layouts.push_back(w.layout);
  }
  if (ok) {
    std::vector<clport_op> ops(weights.size(), op);
    std::vector<PreparedLaunch> launches;
    for (size_t i = 0; i < ops.size() && ok; ++i) {
      ops[i].src[0] = &weights[i];
      auto launch = PreparedLaunch::prepare(inst.table(), inst.handle(), inst.name(), ops[i]);
      ok = launch.ok();
      if (ok) launches.push_back(std::move(launch.value()));
    }
    Result<Stats> ms = Status(Stage::Plugin, "a streamed GEMV launch could not be prepared");
    if (ok) {
      ms = time_runs(ctx, reps_, [&]() {
        for (const auto& launch : launches) CLPORT_RETURN_IF_ERROR(launch.enqueue(0));
        return Status();
      }, "streamed GEMV");
    }
    if (ms.ok()) {
      r.stream_weights = static_cast<int64_t>(ops.size());
      r.stream_ms = ms->median_ms / static_cast<double>(ops.size());
      r.stream_gb_per_s = static_cast<double>(r.bytes) / (r.stream_ms * 1e6);
      r.stream_copy_fraction = copy_gbps_ > 0 ? r.stream_gb_per_s / copy_gbps_ : 0;
    }
  }
  (void)ctx.finish();
  for (void* l : layouts) inst.table().release_layout(inst.handle(), l);
}

void WeightBench::measure_same_size_copy(MatMulResult& r) {
  // Half the GEMV's bytes read from the weight buffer and written elsewhere: the same traffic,
  // by whichever of the copy command and the copy kernel is faster (as for the big copy).
  const uint64_t weight_bytes = static_cast<uint64_t>(row_bytes_ * N_);
  const uint64_t bytes = std::min<uint64_t>(r.bytes / 2, weight_bytes) & ~uint64_t{15};
  if (bytes == 0) return;
  auto dst = create_buffer(*s_.context, static_cast<size_t>(bytes));
  if (!dst.ok()) return;
  auto command = time_copy(*s_.context, weight_.get(), dst->get(), bytes, reps_);
  if (!command.ok()) return;
  double ms = command->median_ms;
  if (auto kernel = time_copy_kernel(*s_.context, weight_.get(), dst->get(), bytes, reps_); kernel.ok())
    ms = std::min(ms, kernel->median_ms);
  r.same_size_copy_ms = ms;
  r.same_size_copy_fraction = ms / r.median_ms;
}

void WeightBench::compare_with_clblast(MatMulResult& r, cl_mem x, cl_mem ours) {
  DeviceContext& ctx = *s_.context;
  const size_t M = static_cast<size_t>(r.M), N = static_cast<size_t>(N_), K = static_cast<size_t>(K_);
  auto dst = create_buffer(ctx, M * N * 4);
  if (!dst.ok()) return;
  ctx.take_timings();
  std::vector<double> samples;
  for (int i = 0; i < reps_.warmup + reps_.reps; ++i) {
    // A marker in front: CLBlast returns the event of its last kernel only, and may run
    // helper kernels (padding, transposition) before it; the span covers them all.
    cl_event marker = nullptr, ev = nullptr;
    if (ctx.cl().clEnqueueMarkerWithWaitList(ctx.queue(), 0, nullptr, &marker) != CL_SUCCESS) return;
    ctx.record_event("marker", marker);
    ctx.cl().clReleaseEvent(marker);
    if (!clblast_->enqueue(weight_.get(), x, dst->get(), M, N, K, &ev).ok() || ev == nullptr) return;
    ctx.record_event("clblast", ev);
    ctx.cl().clReleaseEvent(ev);
    const auto t = ctx.take_timings();
    if (t.size() != 2) return;
    const uint64_t from = t[0].end_ns != 0 ? t[0].end_ns : t[1].start_ns;
    const double ms = t[1].end_ns > from ? static_cast<double>(t[1].end_ns - from) * 1e-6 : 0;
    if (ms <= 0) return;
    if (i >= reps_.warmup) samples.push_back(ms);
  }
  r.clblast_ran = true;
  r.clblast_median_ms = summarize(samples).median_ms;
  r.clblast_gflops = 2.0 * static_cast<double>(M * N * K) / (r.clblast_median_ms * 1e6);
  r.ratio_vs_clblast = r.gflops / r.clblast_gflops;
  // Same inputs, so the outputs must agree: a cheap check that both computed the same product.
  std::vector<float> a(M * N), b(M * N);
  if (!ctx.read(ours, 0, a.data(), a.size() * 4).ok() || !ctx.read(dst->get(), 0, b.data(), b.size() * 4).ok())
    return;
  float max_ref = 0, max_diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    max_ref = std::max(max_ref, std::fabs(b[i]));
    const float d = std::fabs(a[i] - b[i]);
    if (std::isnan(d)) {
      max_diff = INFINITY;
      break;
    }
    max_diff = std::max(max_diff, d);
  }
  r.clblast_max_rel_diff = max_ref > 0 ? max_diff / max_ref : max_diff;
}

}  // namespace clport::bench::detail
