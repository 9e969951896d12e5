// The CPU backend: tensors in host memory, ops by the CPU reference (cpu_ops.h). It is the path
// that always works, whatever state the OpenCL install is in, and the reference that device
// results are compared with.
#include <cstdlib>
#include <cstring>

#include "backend/backend.h"
#include "gguf/gguf.h"

namespace clport {
namespace {

class CpuBackend final : public Backend {
 public:
  CpuBackend(int n_threads, bool quantized_activations)
      : n_threads_(n_threads), quantized_activations_(quantized_activations) {}

  std::string name() const override { return "cpu"; }
  std::string description() const override { return "CPU reference backend"; }

  Result<TensorRef> alloc(DType dtype, std::array<int64_t, 4> ne) override {
    TensorRef t;
    t.dtype = dtype;
    t.ne = ne;
    t.nb = contiguous_strides(dtype, ne);
    const uint64_t bytes = t.bytes();
    // calloc, not new + memset: large blocks come zeroed from the kernel and take resident
    // memory only as they are written, so a KV cache sized for the whole context costs what the
    // conversation has filled, not its capacity.
    auto* data = static_cast<uint8_t*>(std::calloc(bytes == 0 ? 1 : bytes, 1));
    if (data == nullptr) {
      return Status(Stage::OutOfMemory, "cannot allocate " + std::to_string(bytes) +
                                            " bytes of host memory for a tensor");
    }
    live_ += bytes;
    peak_ = std::max(peak_, live_);
    auto* live = &live_;
    t.storage = std::shared_ptr<void>(data, [live, bytes](void* p) {
      *live -= bytes;
      std::free(p);
    });
    t.host = data;
    return t;
  }

  Result<TensorRef> load_weight(const GgufTensorInfo& info,
                                std::shared_ptr<void> keep_alive, const WeightUse&) override {
    // Zero copy: the weight is read straight from the file mapping.
    TensorRef t;
    t.dtype = info.dtype;
    t.ne = info.ne;
    t.nb = contiguous_strides(info.dtype, info.ne);
    t.storage = std::move(keep_alive);
    t.host = const_cast<uint8_t*>(info.data);
    weights_ += info.bytes;
    return t;
  }

  Status upload(const TensorRef& dst, const void* data, uint64_t bytes) override {
    if (bytes > dst.bytes()) return Status(Stage::InvalidArgument, "upload larger than tensor");
    std::memcpy(dst.host, data, bytes);
    return Status();
  }

  Status download(const TensorRef& src, void* data, uint64_t bytes) override {
    if (bytes > src.bytes()) return Status(Stage::InvalidArgument, "download larger than tensor");
    std::memcpy(data, src.host, bytes);
    return Status();
  }

  Status run(clport_op_kind kind, const std::vector<const TensorRef*>& src, const TensorRef& dst,
             const cpu::OpParams& params) override {
    std::vector<cpu::HostTensor> host_src;
    host_src.reserve(src.size());
    for (const TensorRef* s : src) host_src.push_back(to_host(*s));
    cpu::OpParams p = params;
    p.quantized_activations = p.quantized_activations || quantized_activations_;
    return cpu::run_op(kind, host_src, to_host(dst), p, n_threads_);
  }

  Status sync() override { return Status(); }

  BackendMemoryStats memory_stats() const override {
    BackendMemoryStats stats;
    stats.weights_bytes = weights_;
    stats.live_bytes = live_ + weights_;
    stats.allocated_bytes = live_;
    stats.peak_bytes = peak_ + weights_;
    if (weights_ != 0) stats.weights.push_back({"file mapping", weights_});
    stats.tensor_bytes = live_;
    return stats;
  }

 private:
  static cpu::HostTensor to_host(const TensorRef& t) {
    cpu::HostTensor h;
    h.dtype = t.dtype;
    h.ne = t.ne;
    h.nb = t.nb;
    h.data = t.host;
    return h;
  }

  int n_threads_;
  bool quantized_activations_;
  uint64_t live_ = 0, peak_ = 0, weights_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(int n_threads, bool quantized_activations) {
  return std::make_unique<CpuBackend>(n_threads, quantized_activations);
}

}  // namespace clport
