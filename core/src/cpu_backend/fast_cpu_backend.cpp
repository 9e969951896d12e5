// The fast CPU backend: what --device cpu and the no-OpenCL fallback run. Tensors live in host
// memory exactly as on the CPU reference backend (which this backend holds and hands storage,
// weight mapping and every op it does not accelerate to), so any op kind the reference learns
// runs here too. The op registry says which ops have a kernel here (SIMD kernels on one
// persistent thread pool) and which the reference serves.
#include <chrono>
#include <exception>
#include <new>

#include "backend/backend.h"
#include "cpu_backend/fast_ops.h"
#include "cpu_backend/kernel_self_check.h"
#include "cpu_backend/simd_kernels.h"
#include "ops/op_registry.h"

namespace clport {
namespace {

cpu::HostTensor to_host(const TensorRef& t) {
  cpu::HostTensor h;
  h.dtype = t.dtype;
  h.ne = t.ne;
  h.nb = t.nb;
  h.data = t.host;
  return h;
}

class FastCpuBackend final : public Backend {
 public:
  explicit FastCpuBackend(const FastCpuOptions& options)
      : options_(options),
        reference_(make_cpu_backend(options.n_threads)),
        pool_(options.n_threads) {}

  std::string name() const override { return "cpu"; }
  std::string description() const override {
    return std::string("CPU backend (") + fastcpu::simd_target_name() + ", " +
           std::to_string(pool_.size()) + " threads, " +
           (options_.float_activations ? "float activations" : "8-bit activations") + ")";
  }

  Result<TensorRef> alloc(DType dtype, std::array<int64_t, 4> ne) override {
    return reference_->alloc(dtype, ne);
  }
  Result<TensorRef> load_weight(const GgufTensorInfo& info, std::shared_ptr<void> keep_alive,
                                const WeightUse& use) override {
    return reference_->load_weight(info, std::move(keep_alive), use);
  }
  Status upload(const TensorRef& dst, const void* data, uint64_t bytes) override {
    return reference_->upload(dst, data, bytes);
  }
  Status download(const TensorRef& src, void* data, uint64_t bytes) override {
    return reference_->download(src, data, bytes);
  }
  Status sync() override { return Status(); }
  BackendMemoryStats memory_stats() const override { return reference_->memory_stats(); }

  Status run(clport_op_kind kind, const std::vector<const TensorRef*>& src, const TensorRef& dst,
             const cpu::OpParams& params) override {
    const auto start = std::chrono::steady_clock::now();
    Status status = dispatch(kind, src, dst, params);
    if (options_.profiling) {
      const auto end = std::chrono::steady_clock::now();
      const auto ns = [](std::chrono::steady_clock::time_point t) {
        return static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
      };
      const ops::OpEntry* op = ops::find(kind);
      timings_.push_back({op != nullptr ? op->short_name : "op", ns(start), ns(end) - ns(start)});
    }
    return status;
  }

  std::vector<OpTiming> take_timings() override { return std::move(timings_); }

  bool runs_own_kernel(const clport_op& op) const override {
    const ops::OpEntry* entry = ops::find(op.kind);
    if (entry == nullptr || entry->fast != ops::FastCpu::Kernel) return false;
    if (entry->fast_takes == nullptr) return true;
    const clport_tensor* key = entry->key_source == ops::kKeyDst ? op.dst
                               : entry->key_source < op.n_src ? op.src[entry->key_source]
                                                              : nullptr;
    return key != nullptr && entry->fast_takes(static_cast<DType>(key->dtype));
  }

 private:
  Status dispatch(clport_op_kind kind, const std::vector<const TensorRef*>& src,
                  const TensorRef& dst, const cpu::OpParams& params) {
    try {
      const ops::OpEntry* op = ops::find(kind);
      if (op == nullptr || op->fast == ops::FastCpu::Reference) return reference_->run(kind, src, dst, params);
      host_src_.clear();
      for (const TensorRef* s : src) host_src_.push_back(to_host(*s));
      const cpu::HostTensor out = to_host(dst);
      if (op->fast == ops::FastCpu::ReferenceOnCaller) return cpu::run_op(kind, host_src_, out, params, 1);
      CLPORT_RETURN_IF_ERROR(op->check(host_src_, out, params));
      fastcpu::FastContext ctx{pool_, scratch_, options_.float_activations};
      return op->fast_kernel(ctx, host_src_, out, params);
    } catch (const std::bad_alloc&) {
      return Status(Stage::OutOfMemory, "cpu: out of host memory for op scratch buffers");
    } catch (const std::exception& e) {
      return Status(Stage::Internal, std::string("cpu: unexpected exception: ") + e.what());
    }
  }

  FastCpuOptions options_;
  std::unique_ptr<Backend> reference_;  // storage, weight mapping, ops not accelerated here
  fastcpu::ThreadPool pool_;
  fastcpu::Scratch scratch_;
  std::vector<cpu::HostTensor> host_src_;
  std::vector<OpTiming> timings_;
};

}  // namespace

std::unique_ptr<Backend> make_fast_cpu_backend(const FastCpuOptions& options) {
  fastcpu::check_simd_kernels_once();
  return std::make_unique<FastCpuBackend>(options);
}

std::unique_ptr<Backend> make_fast_cpu_backend(int n_threads) {
  FastCpuOptions options;
  options.n_threads = n_threads;
  return make_fast_cpu_backend(options);
}

}  // namespace clport
