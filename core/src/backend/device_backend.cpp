#include "backend/device_backend.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "selftest/device_failure.h"
#include "gguf/gguf.h"
#include "common/logger.h"
#include "memory/memory_pool.h"
#include "backend/op_description.h"
#include "memory/file_pages.h"
#include "ops/op_registry.h"

namespace clport {
namespace {

// A node a plugin prepared: each run is one enqueue_launch.
class PluginLaunchOp final : public PreparedOp {
 public:
  explicit PluginLaunchOp(PreparedLaunch launch) : launch_(std::move(launch)) {}
  Status run(uint32_t n_past) override { return launch_.enqueue(static_cast<int32_t>(n_past)); }

 private:
  PreparedLaunch launch_;
};

// What keeps a device tensor alive: its buffer (from the pool, or wrapping host memory in
// place) and, for weights, the plugin layout.
struct DeviceStorage {
  std::shared_ptr<DeviceContext> context;
  cl_mem buffer = nullptr;
  uint64_t bytes = 0;
  bool pooled = true;                // false: a buffer over host_memory (CL_MEM_USE_HOST_PTR)
  std::shared_ptr<void> host_memory;  // what keeps the bytes of an in-place buffer alive
  WeightLayout layout;
  uint64_t* live_counter = nullptr;  // the accounting counter `bytes` is part of
  uint64_t layout_bytes = 0;         // of the repacked layout, part of *layout_counter
  uint64_t* layout_counter = nullptr;
  ~DeviceStorage() {
    layout = WeightLayout();  // the plugin's repack goes before the buffer it was made from
    if (layout_counter != nullptr) *layout_counter -= layout_bytes;
    free_buffer();
  }
  // Gives the buffer back (the in-order queue runs the repack that reads it before anything
  // that reuses it).
  void free_buffer() {
    if (buffer != nullptr) {
      if (pooled) {
        (void)context->pool().free(buffer);
      } else {
        context->unregister_mapped_buffer(buffer);
        context->cl().clReleaseMemObject(buffer);
      }
    }
    if (live_counter != nullptr) *live_counter -= bytes;
    buffer = nullptr;
    bytes = 0;
    host_memory.reset();
  }
};

class DeviceBackend final : public Backend {
 public:
  DeviceBackend(std::shared_ptr<DeviceContext> context, std::shared_ptr<PluginManager> manager,
                std::unique_ptr<DeviceBinding> binding)
      : context_(std::move(context)), manager_(std::move(manager)), binding_(std::move(binding)),
        cpu_(make_cpu_backend()) {}

  ~DeviceBackend() override { (void)context_->finish(); }

  std::string name() const override { return "opencl:" + context_->info().name; }
  std::string description() const override {
    std::string plugins;
    for (const auto& inst : binding_->instances()) plugins += (plugins.empty() ? "" : ", ") + inst->name();
    return "OpenCL " + context_->info().name + " (" + context_->info().platform_name +
           "), plugins: " + (plugins.empty() ? "none" : plugins);
  }

  Result<TensorRef> alloc(DType dtype, std::array<int64_t, 4> ne) override {
    TensorRef t;
    t.dtype = dtype;
    t.ne = ne;
    t.nb = contiguous_strides(dtype, ne);
    const uint64_t bytes = std::max<uint64_t>(t.bytes(), 4);
    auto buffer = context_->pool().allocate(bytes);
    if (!buffer.ok()) return buffer.status();
    auto storage = std::make_shared<DeviceStorage>();
    storage->context = context_;
    storage->buffer = buffer.value();
    storage->bytes = bytes;
    storage->live_counter = &tensor_live_;
    tensor_live_ += bytes;
    peak_ = std::max(peak_, tensor_live_ + copy_live_);
    t.buffer = storage->buffer;
    t.storage = storage;
    return t;
  }

  Result<TensorRef> load_weight(const GgufTensorInfo& info, std::shared_ptr<void> keep_alive,
                                const WeightUse& use) override {
    const bool in_place = use.mapped && context_->info().host_unified_memory && in_place_usable_ &&
                          info.bytes >= kInPlaceMinBytes;
    Result<TensorRef> placed = in_place ? place_in_place(info, std::move(keep_alive))
                                   : Status(Stage::Unsupported, "copy");
    if (!placed.ok()) placed = place_copy(info);
    if (!placed.ok()) return placed.status();
    TensorRef w = placed.value();
    auto* storage = static_cast<DeviceStorage*>(w.storage.get());
    weights_ += info.bytes;
    if (use.matmul) {
      // Let the plugin that will run MUL_MAT on this weight repack it into its own layout; what
      // its instances allocate meanwhile is the layout (the accounting's "<plugin> layout").
      const uint64_t plugins_before = plugin_bytes();
      auto layout = binding_->prepare_weight(CLPORT_OP_MUL_MAT, abi_tensor(w));
      if (!layout.ok()) return layout.status();
      w.layout = layout.value().layout();
      const bool owned = layout.value().owns_weight();
      if (const BoundInstance* owner = layout.value().owner(); owner != nullptr && w.layout != nullptr) {
        storage->layout_bytes = plugin_bytes() - plugins_before;
        storage->layout_counter = &layout_live_[owner->name()];
        *storage->layout_counter += storage->layout_bytes;
      }
      storage->layout = std::move(layout.value());
      // The plain copy goes when nothing reads it any more: the plugin's layout owns the weight
      // and every mat-mul (and, for a tied embedding, every row lookup) the plans can issue on it
      // stays with that plugin (one it declines would run on the CPU path, from the plain copy).
      if (owned && !use.keep_plain && binding_->layout_owner_runs_every_mul_mat(abi_tensor(w), use.max_rows) &&
          (!use.file_layout || binding_->layout_owner_runs_get_rows(abi_tensor(w), use.max_rows))) {
        plain_freed_ += info.bytes;
        storage->free_buffer();
        w.buffer = nullptr;
      }
    }
    // The file's pages of a weight the device now holds in a layout of its own (copied, or
    // repacked from the mapping) are not needed any more; a repack that reads them in place runs
    // first (the upload of a copy has already read them).
    if (use.mapped && (storage->pooled || w.layout != nullptr)) {
      if (!storage->pooled) CLPORT_RETURN_IF_ERROR(context_->finish());
      release_file_pages(info.data, info.bytes);
      released_.push_back({info.data, info.bytes});
    }
    return w;
  }

  void release_idle_memory() override {
    (void)context_->pool().trim();
    // Once more, now that every weight is placed: the page cache holds the file in folios of up
    // to 2 MiB, and the first read of a weight mapped the whole folio it starts in, the released
    // end of the weight before it included.
    for (const auto& [data, bytes] : released_) release_file_pages(data, bytes);
  }

  // A weight in the file's layout, uploaded into a pool buffer.
  Result<TensorRef> place_copy(const GgufTensorInfo& info) {
    auto t = alloc(info.dtype, info.ne);
    if (!t.ok()) return t.status();
    auto* storage = static_cast<DeviceStorage*>(t.value().storage.get());
    tensor_live_ -= storage->bytes;  // a weight, not a tensor of the model's own
    copy_live_ += storage->bytes;
    storage->live_counter = &copy_live_;
    CLPORT_RETURN_IF_ERROR(context_->write(t.value().buffer, 0, info.data, info.bytes));
    return t;
  }

  // Bytes every bound plugin holds through the host table now (layouts and scratch).
  uint64_t plugin_bytes() const {
    uint64_t total = 0;
    for (const auto& inst : binding_->instances()) total += context_->plugin_live_bytes(inst->name());
    return total;
  }

  // A weight in the file's layout used where it lies: a buffer over the whole pages that hold it
  // (page-aligned, which drivers that can avoid a copy need), the weight at its offset inside.
  // A driver that refuses falls back to copies for the rest of the model, said once in the log.
  Result<TensorRef> place_in_place(const GgufTensorInfo& info, std::shared_ptr<void> keep_alive) {
    const PageSpan span = page_span(info.data, info.bytes);
    cl_int err = CL_SUCCESS;
    cl_mem buffer = context_->cl().clCreateBuffer(context_->context(), CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY,
                                                  static_cast<size_t>(span.bytes),
                                                  const_cast<uint8_t*>(span.begin), &err);
    if (buffer == nullptr || err != CL_SUCCESS) {
      if (buffer != nullptr) context_->cl().clReleaseMemObject(buffer);
      in_place_usable_ = false;
      logger("backend")->warn("the device refused a buffer over the mapped model file ({}): weights are copied "
                              "into device memory instead", cl_error_name(err));
      return Status(Stage::Unsupported, "in-place buffer refused");
    }
    if (in_place_weights_ == 0) {
      logger("backend")->info("the device shares host memory: weights in the file's layout are used in place "
                              "from the mapped file (CL_MEM_USE_HOST_PTR)");
    }
    ++in_place_weights_;
    context_->register_mapped_buffer(buffer, span.begin);
    auto storage = std::make_shared<DeviceStorage>();
    storage->context = context_;
    storage->buffer = buffer;
    storage->pooled = false;
    storage->host_memory = std::move(keep_alive);
    storage->bytes = info.bytes;
    storage->live_counter = &in_place_live_;
    in_place_live_ += info.bytes;
    TensorRef t;
    t.dtype = info.dtype;
    t.ne = info.ne;
    t.nb = contiguous_strides(info.dtype, info.ne);
    t.buffer = buffer;
    t.offset = static_cast<uint64_t>(info.data - span.begin);
    t.storage = storage;
    return t;
  }

  Status upload(const TensorRef& dst, const void* data, uint64_t bytes) override {
    return context_->write(dst.buffer, dst.offset, data, bytes);
  }

  Status download(const TensorRef& src, void* data, uint64_t bytes) override {
    return context_->read(src.buffer, src.offset, data, bytes);
  }

  Status run(clport_op_kind kind, const std::vector<const TensorRef*>& src, const TensorRef& dst,
             const cpu::OpParams& params) override {
    if (src.size() > 4) return Status(Stage::InvalidArgument, "an op takes at most 4 inputs");
    const OpDescription desc(kind, src, dst, params);
    if (const BoundInstance* instance = binding_->select(desc.op)) return binding_->enqueue_on(*instance, desc.op);
    return run_on_cpu(kind, src, dst, params);
  }

  // The plugin that serves the op prepares its launch once; an op no plugin serves is replayed
  // through run() (the CPU path).
  Result<std::unique_ptr<PreparedOp>> prepare(clport_op_kind kind, const std::vector<const TensorRef*>& src,
                                              const TensorRef& dst, const cpu::OpParams& params,
                                              uint64_t dst_position_stride) override {
    if (src.size() > 4) return Status(Stage::InvalidArgument, "an op takes at most 4 inputs");
    OpDescription desc(kind, src, dst, params);
    desc.op.dst_position_stride = dst_position_stride;
    const BoundInstance* instance = binding_->select(desc.op);
    if (instance == nullptr) {
      CLPORT_RETURN_IF_ERROR(check_plain_copies(kind, src));
      return Backend::prepare(kind, src, dst, params, dst_position_stride);
    }
    auto launch = binding_->prepare_launch(*instance, desc.op);
    if (!launch.ok()) return launch.status();
    return std::unique_ptr<PreparedOp>(std::make_unique<PluginLaunchOp>(std::move(launch.value())));
  }

  // Only where one plugin would run every op of the sequence (none on the CPU path) and groups
  // them.
  Result<std::unique_ptr<PreparedOp>> prepare_group(const std::vector<GroupOp>& ops) override {
    std::vector<std::unique_ptr<OpDescription>> descs;  // each holds pointers into itself
    const BoundInstance* instance = nullptr;
    for (const GroupOp& g : ops) {
      if (g.src.size() > 4 || g.dst == nullptr) return std::unique_ptr<PreparedOp>();
      descs.push_back(std::make_unique<OpDescription>(g.kind, g.src, *g.dst, g.params));
      descs.back()->op.dst_position_stride = g.dst_position_stride;
      const BoundInstance* chosen = binding_->select(descs.back()->op);
      if (chosen == nullptr || (instance != nullptr && chosen != instance)) return std::unique_ptr<PreparedOp>();
      instance = chosen;
    }
    if (instance == nullptr) return std::unique_ptr<PreparedOp>();
    std::vector<const clport_op*> abi_ops;
    for (const auto& d : descs) abi_ops.push_back(&d->op);
    auto launch = binding_->prepare_group(*instance, abi_ops);
    if (!launch.ok()) {
      if (launch.status().stage() == Stage::Unsupported) return std::unique_ptr<PreparedOp>();
      return launch.status();
    }
    return std::unique_ptr<PreparedOp>(std::make_unique<PluginLaunchOp>(std::move(launch.value())));
  }

  Status sync() override { return context_->finish(); }

  // Live and peak from the pool, so that what plugins hold (repacked weight layouts, scratch)
  // counts too; requested bytes, before the pool's size-class rounding.
  BackendMemoryStats memory_stats() const override {
    const MemoryPoolStats pool = context_->pool().stats();
    BackendMemoryStats stats;
    stats.weights_bytes = weights_;
    stats.live_bytes = pool.requested_bytes + in_place_live_;
    stats.allocated_bytes = pool.requested_bytes;
    stats.peak_bytes = std::max(pool.peak_requested_bytes, peak_);
    stats.plain_freed_bytes = plain_freed_;
    if (in_place_live_ != 0) stats.weights.push_back({"file mapping", in_place_live_});
    if (copy_live_ != 0) stats.weights.push_back({"device copy", copy_live_});
    for (const auto& [plugin, bytes] : layout_live_)
      if (bytes != 0) stats.weights.push_back({plugin + " layout", bytes});
    stats.tensor_bytes = tensor_live_;
    for (const auto& inst : binding_->instances()) {
      const auto layouts = layout_live_.find(inst->name());
      const uint64_t held = context_->plugin_live_bytes(inst->name());
      const uint64_t in_layouts = layouts == layout_live_.end() ? 0 : layouts->second;
      if (held > in_layouts) stats.plugin_scratch.push_back({inst->name(), held - in_layouts});
    }
    return stats;
  }

  Result<std::vector<NamedBytes>> scratch_needs(const clport_op& op) const override {
    auto needs = binding_->scratch_needs(op);
    if (!needs.ok()) return needs.status();
    std::vector<NamedBytes> out;
    for (const ScratchNeed& n : needs.value()) out.push_back({n.plugin + ": " + n.name, n.bytes});
    return out;
  }

  std::string plugin_for(const clport_op& op) const override {
    const BoundInstance* instance = binding_->select(op);
    return instance ? instance->name() : "cpu";
  }

  const DeviceInfo* device_info() const override { return &context_->info(); }

  Result<std::string> record_failure(const std::string& what) override {
    return record_device_failure(*context_, *binding_, what);
  }

  std::vector<OpTiming> take_timings() override {
    std::vector<OpTiming> out;
    for (const auto& t : context_->take_timings()) out.push_back({t.name, t.start_ns, t.duration_ns()});
    return out;
  }

 private:
  // No bound plugin serves this op: run the CPU reference on copies of the operands.
  Status run_on_cpu(clport_op_kind kind, const std::vector<const TensorRef*>& src,
                    const TensorRef& dst, const cpu::OpParams& params) {
    CLPORT_RETURN_IF_ERROR(check_plain_copies(kind, src));
    if (warned_.insert(kind).second) {
      logger("backend")->warn("no plugin serves {} on this device for these operands; running it "
                              "on the CPU (slow)", op_kind_name(kind));
    }
    std::vector<TensorRef> host_src;
    std::vector<const TensorRef*> host_ptrs;
    for (const TensorRef* s : src) {
      auto h = cpu_->alloc(s->dtype, s->ne);
      if (!h.ok()) return h.status();
      CLPORT_RETURN_IF_ERROR(download(*s, h.value().host, s->bytes()));
      host_src.push_back(h.value());
    }
    for (const auto& h : host_src) host_ptrs.push_back(&h);
    auto h_dst = cpu_->alloc(dst.dtype, dst.ne);
    if (!h_dst.ok()) return h_dst.status();
    // In-place ops read dst: start from its current contents.
    CLPORT_RETURN_IF_ERROR(download(dst, h_dst.value().host, dst.bytes()));
    CLPORT_RETURN_IF_ERROR(cpu_->run(kind, host_ptrs, h_dst.value(), params));
    return upload(dst, h_dst.value().host, dst.bytes());
  }

  // The CPU path reads the sources' plain copies: an owned weight whose copy was freed at load
  // cannot go there (load_weight frees it only where its plugin claimed every mat-mul on it).
  static Status check_plain_copies(clport_op_kind kind, const std::vector<const TensorRef*>& src) {
    for (const TensorRef* s : src) {
      if (s->buffer == nullptr && s->layout != nullptr) {
        return Status(Stage::Unsupported, std::string("no plugin runs ") + op_kind_name(kind) +
                                              " on a weight whose plain copy its plugin's layout replaced");
      }
    }
    return Status();
  }

  std::shared_ptr<DeviceContext> context_;
  std::shared_ptr<PluginManager> manager_;
  std::unique_ptr<DeviceBinding> binding_;
  std::unique_ptr<Backend> cpu_;
  std::set<int> warned_;
  // Live bytes by what holds them (memory_stats): the model's tensors (KV cache, activations),
  // plain weight copies in pool buffers, weights read in place from the file mapping, and the
  // plugins' repacked layouts by plugin name.
  uint64_t tensor_live_ = 0, copy_live_ = 0, in_place_live_ = 0;
  std::map<std::string, uint64_t> layout_live_;
  uint64_t peak_ = 0, weights_ = 0, plain_freed_ = 0;
  bool in_place_usable_ = true;  // false once the driver refused an in-place buffer
  uint64_t in_place_weights_ = 0;
  // The file ranges of the weights whose pages load_weight gave back.
  std::vector<std::pair<const uint8_t*, uint64_t>> released_;
};

}  // namespace

std::unique_ptr<Backend> make_device_backend(std::shared_ptr<DeviceContext> context,
                                             std::shared_ptr<PluginManager> manager,
                                             std::unique_ptr<DeviceBinding> binding) {
  return std::make_unique<DeviceBackend>(std::move(context), std::move(manager),
                                         std::move(binding));
}

}  // namespace clport
