// Where a model's tensors live and its ops run: the CPU backend (host memory, CPU reference ops)
// or a device backend (pooled OpenCL buffers, ops dispatched to the bound plugins). The model
// graph is written once against this interface, which is what lets --check-layers run the CPU
// reference alongside the device and compare layer by layer.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ops/cpu_ops.h"
#include "common/dtype.h"
#include "clport/export.h"
#include "clport_plugin/plugin_abi.h"
#include "clport/status.h"

namespace clport {

struct DeviceInfo;
struct GgufTensorInfo;

// A tensor as a backend sees it: dtype, shape, byte strides and where the bytes are. Copies
// share the storage; views (view()) keep the parent storage alive.
struct TensorRef {
  DType dtype = DType::F32;
  std::array<int64_t, 4> ne{1, 1, 1, 1};
  std::array<int64_t, 4> nb{0, 0, 0, 0};
  std::shared_ptr<void> storage;  // owner of the memory (host block, pool allocation, file map)
  uint8_t* host = nullptr;        // CPU backend: address of element 0
  cl_mem buffer = nullptr;        // device backend: buffer and byte offset of element 0
  uint64_t offset = 0;
  void* layout = nullptr;         // plugin-private repacked weight (device backend)

  int64_t elements() const { return ne[0] * ne[1] * ne[2] * ne[3]; }
  // Size in bytes when contiguous.
  uint64_t bytes() const;
  bool valid() const { return storage != nullptr; }
};

// Contiguous byte strides for a shape.
CLPORT_API std::array<int64_t, 4> contiguous_strides(DType dtype, const std::array<int64_t, 4>& ne);
// A view of `base` starting `byte_offset` bytes in, with its own shape (contiguous strides unless
// given).
CLPORT_API TensorRef view(const TensorRef& base, std::array<int64_t, 4> ne, uint64_t byte_offset);
CLPORT_API TensorRef view(const TensorRef& base, DType dtype, std::array<int64_t, 4> ne,
                          std::array<int64_t, 4> nb, uint64_t byte_offset);

// The plugin-ABI description of t (its buffer, offset and layout included).
CLPORT_API clport_tensor abi_tensor(const TensorRef& t);

// How the model's graph reads a weight: what lets a device backend repack it and free its plain
// (file-layout) copy.
struct WeightUse {
  bool matmul = false;  // the weight of MUL_MATs: the plugin that runs them may repack it
  // Also read by GET_ROWS (a token embedding that doubles as the output projection): it keeps
  // its plain copy unless the plugin that repacked it looks rows up in its layout too.
  bool file_layout = false;
  uint32_t max_rows = 1;  // most activation rows one of its MUL_MATs takes (the prompt batch)
  // Keep the plain copy even where the plugin's layout owns the weight (to tell a bug of the
  // freeing apart; costs the memory).
  bool keep_plain = false;
  // The bytes lie in the model file's read-only mapping (not in a copy the loader made): a device
  // that shares host memory uses them in place, and once a weight is copied or repacked its
  // pages are given back (they come in again from the file should anything read them).
  bool mapped = false;
};

// Bytes under one name: a weight placement ("file mapping", "device copy", "<plugin> layout") or
// a plugin's scratch.
struct NamedBytes {
  std::string name;
  uint64_t bytes = 0;
};

struct BackendMemoryStats {
  uint64_t weights_bytes = 0;  // bytes of weights uploaded (or mapped)
  uint64_t live_bytes = 0;     // in use now (weights, activations, KV cache, plugin layouts)
  // Of them, what the backend allocated (device buffers, host blocks): all but the weights read
  // in place from the file mapping.
  uint64_t allocated_bytes = 0;
  uint64_t peak_bytes = 0;     // high-water mark
  uint64_t plain_freed_bytes = 0;  // plain weight copies freed at load (a plugin's layout owns them)
  // Where the weights live now, each counted where its bytes are: "file mapping" (read in place
  // from the mapped model file: the CPU path, or a device that shares host memory), "device
  // copy" (the file's layout uploaded), "<plugin> layout" (repacked by that plugin).
  std::vector<NamedBytes> weights;
  uint64_t tensor_bytes = 0;  // alloc()ed tensors live now: the model's KV cache and activations
  std::vector<NamedBytes> plugin_scratch;  // what each plugin holds beyond its weight layouts
};

// Time spent in one op or kernel (profiling); device times come from OpenCL profiling events.
struct OpTiming {
  std::string name;
  uint64_t start_ns = 0;  // device clock (profiling events); only differences are meaningful
  uint64_t duration_ns = 0;
};

// One op prepared for replay (Backend::prepare): plugin, kernel and arguments are decided once;
// each run enqueues it with the step's position.
class CLPORT_API PreparedOp {
 public:
  virtual ~PreparedOp() = default;
  virtual Status run(uint32_t n_past) = 0;
};

// One op of a sequence offered to Backend::prepare_group.
struct GroupOp {
  clport_op_kind kind = CLPORT_OP_COPY;
  std::vector<const TensorRef*> src;
  const TensorRef* dst = nullptr;
  cpu::OpParams params;
  uint64_t dst_position_stride = 0;  // as for prepare()
};

class CLPORT_API Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;         // "cpu" or "opencl:<device>"
  virtual std::string description() const = 0;  // one line for logs

  // A new contiguous tensor (contents undefined).
  virtual Result<TensorRef> alloc(DType dtype, std::array<int64_t, 4> ne) = 0;
  // A weight from a model file (the file mapping must outlive the backend's use of it: pass
  // `keep_alive`). The CPU backend maps it without copying; a device backend that shares host
  // memory hands the device the mapped bytes in place (`use.mapped`), any other uploads them
  // once; for weights the graph multiplies with (`use.matmul`) it lets the plugin that runs
  // MUL_MAT repack it. Norms and an untied token embedding (read only by GET_ROWS) are not repacked, so
  // they never occupy device memory twice. Where the plugin's layout owns the weight and that
  // plugin runs every MUL_MAT on it up to `use.max_rows` rows (and, with `use.file_layout`,
  // every GET_ROWS), the plain copy is freed (unless `use.keep_plain`): the result's buffer is
  // then NULL.
  virtual Result<TensorRef> load_weight(const GgufTensorInfo& info, std::shared_ptr<void> keep_alive,
                                        const WeightUse& use) = 0;
  // After the last load_weight: gives memory parked during the loading (freed plain copies
  // waiting in a pool, file pages of placed weights that later reads mapped again) back to the
  // system, so that it is neither held nor counted.
  virtual void release_idle_memory() {}
  virtual Status upload(const TensorRef& dst, const void* data, uint64_t bytes) = 0;
  virtual Status download(const TensorRef& src, void* data, uint64_t bytes) = 0;
  // Runs (or enqueues) one op; semantics in plugin_abi.h.
  virtual Status run(clport_op_kind kind, const std::vector<const TensorRef*>& src,
                     const TensorRef& dst, const cpu::OpParams& params) = 0;
  // Plan time: `kind` on these operands, prepared for replay. The tensors' storage must outlive
  // the result. Each run(n_past) runs it with params.n_past = n_past and dst moved by
  // n_past * dst_position_stride bytes (a store into the KV-cache slot of the position). The
  // default replays run(); a device backend binds the plugin and prepares its launch once.
  virtual Result<std::unique_ptr<PreparedOp>> prepare(clport_op_kind kind, const std::vector<const TensorRef*>& src,
                                                      const TensorRef& dst, const cpu::OpParams& params,
                                                      uint64_t dst_position_stride);
  // Plan time: one replayable launch doing what `ops` do in order, where the backend has one (a
  // plugin that runs them as a group); a null pointer when it has none, and the caller prepares
  // the ops one by one. Same storage rule as prepare().
  virtual Result<std::unique_ptr<PreparedOp>> prepare_group(const std::vector<GroupOp>& ops) {
    (void)ops;
    return std::unique_ptr<PreparedOp>();
  }
  // Waits for everything enqueued.
  virtual Status sync() = 0;
  virtual BackendMemoryStats memory_stats() const = 0;
  // Per-op timings recorded since the last call (empty unless profiling was asked for).
  virtual std::vector<OpTiming> take_timings() { return {}; }
  // Which plugin would run `op` (buffers may be NULL: only kinds, dtypes and shapes count);
  // "cpu" on the CPU backend or when no bound plugin serves it.
  virtual std::string plugin_for(const clport_op& op) const {
    (void)op;
    return "cpu";
  }
  // Plan time, before weights are placed: the scratch buffers ("<plugin>: <buffer>") and bytes
  // the plugin that would run `op` holds for it at 1 .. op's activation rows and n_past up to
  // op.n_past. A backend whose ops keep no scratch of their own has none.
  virtual Result<std::vector<NamedBytes>> scratch_needs(const clport_op& op) const {
    (void)op;
    return std::vector<NamedBytes>{};
  }
  // Whether the backend runs `op` with a kernel of its own rather than a plugin's or the
  // reference's (the fast CPU backend): a plan then takes a fused pattern there too.
  virtual bool runs_own_kernel(const clport_op& op) const {
    (void)op;
    return false;
  }
  // The OpenCL device this backend runs on; nullptr on the CPU.
  virtual const DeviceInfo* device_info() const { return nullptr; }
  // Device backends: records that the device failed during a run, so that later starts avoid
  // it (selftest/device_failure.h). Returns the record's file, "" when the cache is off.
  virtual Result<std::string> record_failure(const std::string& what) {
    (void)what;
    return Status(Stage::Unsupported, name() + " keeps no failure record");
  }
};

// The CPU backend: host memory, cpu::run_op. n_threads 0 = all cores. quantized_activations:
// every mat-mul rounds its activations as an integer mat-mul does (cpu::OpParams), the
// reference a device on its integer path is compared with.
CLPORT_API std::unique_ptr<Backend> make_cpu_backend(int n_threads = 0, bool quantized_activations = false);

// The fast CPU backend (core/src/cpu_backend): host memory like the reference, SIMD kernels
// with run-time instruction-set dispatch, a persistent thread pool. Quantized mat-muls use 8-bit
// activations unless float_activations (precision fp32). What --device cpu and the no-OpenCL
// fallback run; the reference above stays the oracle for checks.
struct FastCpuOptions {
  int n_threads = 0;               // 0 = all cores
  bool float_activations = false;  // precision fp32: dequantize weights, float dot products
  bool profiling = false;          // record per-op wall times for take_timings()
};
CLPORT_API std::unique_ptr<Backend> make_fast_cpu_backend(const FastCpuOptions& options);
CLPORT_API std::unique_ptr<Backend> make_fast_cpu_backend(int n_threads = 0);

}  // namespace clport
