#include "nv_layer.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <utility>
#include <vector>

#include "nv_dtypes.hpp"

extern const clport::EmbeddedKernel clport_plugin_kernels[];

namespace nvidia {
namespace {

using clport::plugin_common::PackedWeight;

// The most key ranges a head's attention is split into (the merge reads every range's partial
// result for each element of the row).
constexpr uint32_t kMaxSplits = 32;
constexpr cl_uint kNPastArg = 36;   // nv_layer's n_past argument
constexpr cl_uint kSplitsArg = 38;  // and its key ranges per head
constexpr cl_uint kGqArg = 39;      // and the query heads an attention item takes

// A device buffer from the host's pool, freed with it.
class PoolBuffer {
 public:
  PoolBuffer(const clport_host& host, size_t bytes) : host_(&host) {
    int32_t status = 0;
    buffer_ = host.alloc_buffer(host.host_ctx, bytes, &status);
    if (buffer_ == nullptr)
      throw clport::sdk::Failure("nvidia: no device memory for the layer kernel's scratch", CLPORT_PLUGIN_OUT_OF_MEMORY);
  }
  ~PoolBuffer() {
    if (buffer_ != nullptr) host_->free_buffer(host_->host_ctx, buffer_);
  }
  PoolBuffer(const PoolBuffer&) = delete;
  PoolBuffer& operator=(const PoolBuffer&) = delete;
  cl_mem get() const { return buffer_; }

 private:
  const clport_host* host_;
  cl_mem buffer_ = nullptr;
};

// The barrier words (with PTX a 64-bit arrival count, else arrivals and generation; gave-up), then nv_layer.cl's timing slots (launches,
// one per checkpoint), zeroed.
constexpr size_t kTimingSlots = 13;
// Then, from word kArrivalWord (the kernel's NV_ARRIVALS), a count per head group of the key
// ranges that have finished (the last one merges them).
constexpr size_t kArrivalWord = 32;
constexpr size_t kMaxHeadGroups = 256;
constexpr size_t kBarrierWords = kArrivalWord + kMaxHeadGroups;

// The layer's diagnostics, each on when its variable is 1:
// - CLPORT_NV_LAYER_TIMING: the layer kernels count SM cycles per phase and print them when the
//   plan is torn down (where a layer's time goes, on the device itself);
// - CLPORT_NV_LAYER_PORTABLE: the layer is taken without inline PTX where its launch is one
//   work-group (no grid barrier to wait at), so that a simulator such as oclgrind, which runs
//   work-groups one after another, can check its portable OpenCL C (PoCL's work-group compiler
//   takes too long on it).
bool diagnostic_on(const char* variable) {
  const char* v = std::getenv(variable);
  return v != nullptr && v[0] == '1';
}

std::unique_ptr<PoolBuffer> barrier_words(const clport_host& host) {
  auto words = std::make_unique<PoolBuffer>(host, kBarrierWords * sizeof(cl_uint));
  const cl_uint zero[kBarrierWords] = {};
  clport::sdk::check_cl(host.cl->clEnqueueWriteBuffer(host.queue, words->get(), CL_TRUE, 0, sizeof(zero), zero, 0,
                                                      nullptr, nullptr),
                        "clEnqueueWriteBuffer(barrier words)");
  return words;
}

// How a step's keys are cut into ranges: as few ranges as take one trip of the attention loop
// each (two keys per key lane), since fewer ranges make a shorter merge, and at most max_splits
// (enough items for every work-group). An item takes gq query heads of a KV head once every range
// would take two trips or more at max_splits_gq ranges (H200, 8B shape: one head an item is faster
// to 2048 keys, four beyond, 227 against 145 tok/s at 16384): below that, items of one head give
// more work-groups a range.
struct SplitRule {
  int32_t keys_per_trip = 1, max_splits = 1, gq = 1, max_splits_gq = 1, window = 0, gq_from_keys = 0;
  struct Step {
    cl_int splits, gq;
  };
  Step at(int32_t n_past) const {
    const int32_t first = window > 0 ? std::max(0, n_past - window + 1) : 0, keys = n_past + 1 - first;
    const int32_t from = gq_from_keys > 0 ? gq_from_keys : 2 * keys_per_trip * max_splits_gq;
    const bool grouped = gq > 1 && keys >= from;
    const int32_t most = grouped ? max_splits_gq : max_splits;
    return {std::clamp((keys + keys_per_trip - 1) / keys_per_trip, 1, most), grouped ? gq : 1};
  }
};

// One layer's launch: its own kernel object with every argument set once; a step sets n_past and
// the key ranges.
class LayerLaunch final : public clport_launch {
 public:
  LayerLaunch(const clport_host& host, clport::sdk::Kernel kernel, std::unique_ptr<PoolBuffer> part,
              std::unique_ptr<PoolBuffer> bar, size_t global, size_t local, SplitRule split, cl_uint clock_mhz)
      : host_(&host), kernel_(std::move(kernel)), part_(std::move(part)), bar_(std::move(bar)),
        global_(global), local_(local), split_(split), clock_mhz_(clock_mhz) {}
  ~LayerLaunch() override {
    if (clock_mhz_ > 0) print_timing();
  }
  void enqueue(const clport_step& step) override {
    const cl_int n_past = step.n_past;
    const SplitRule::Step at = split_.at(n_past);
    clport::sdk::check_cl(host_->cl->clSetKernelArg(kernel_.get(), kNPastArg, sizeof(n_past), &n_past),
                          "clSetKernelArg(nv_layer n_past)");
    clport::sdk::check_cl(host_->cl->clSetKernelArg(kernel_.get(), kSplitsArg, sizeof(at.splits), &at.splits),
                          "clSetKernelArg(nv_layer splits)");
    clport::sdk::check_cl(host_->cl->clSetKernelArg(kernel_.get(), kGqArg, sizeof(at.gq), &at.gq),
                          "clSetKernelArg(nv_layer gq)");
    clport::sdk::detail::enqueue_kernel(*host_, kernel_.get(), kernel_.name(), 1, &global_, &local_);
  }

 private:
  void print_timing() const {
    cl_uint words[kBarrierWords] = {};
    if (host_->cl->clEnqueueReadBuffer(host_->queue, bar_->get(), CL_TRUE, 0, sizeof(words), words, 0, nullptr,
                                       nullptr) != CL_SUCCESS || words[3] == 0)
      return;
    static const char* const names[kTimingSlots] = {"norm+quant", "qkv", "sync1", "attention", "sync2",
                                                    "attn quant", "o", "sync3", "norm+quant", "ffn",
                                                    "sync4", "quant", "down"};
    std::fprintf(stderr, "nv_layer timing (us/launch over %u launches):", words[3]);
    double total = 0;
    for (size_t i = 0; i < kTimingSlots; ++i) {
      const double us = static_cast<double>(words[4 + i]) / words[3] / clock_mhz_;
      total += us;
      std::fprintf(stderr, " %s %.2f", names[i], us);
    }
    std::fprintf(stderr, " total %.2f\n", total);
  }

  const clport_host* host_;
  clport::sdk::Kernel kernel_;
  std::unique_ptr<PoolBuffer> part_, bar_;
  size_t global_, local_;
  SplitRule split_;
  cl_uint clock_mhz_;  // 0: not timed
};

bool is_f32_row(const clport_tensor* t) { return t != nullptr && t->dtype == CLPORT_DTYPE_F32 && t->nb[0] == 4; }

const char* rows_fn(int32_t dtype, bool swiglu) {
  switch (dtype) {
    case CLPORT_DTYPE_Q4_0: return swiglu ? "nv_swiglu_rows_q4_0" : "nv_rows_q4_0";
    case CLPORT_DTYPE_Q4_1: return swiglu ? "nv_swiglu_rows_q4_1" : "nv_rows_q4_1";
    case CLPORT_DTYPE_Q8_0: return swiglu ? "nv_swiglu_rows_q8_0" : "nv_rows_q8_0";
    default: return nullptr;
  }
}

}  // namespace

NvLayer::NvLayer(const clport_host& host, const clport_device_desc& device, GemvConfig gemv, LayerConfig config)
    : host_(host), h_(host), gemv_(gemv), config_(config),
      compute_units_(device.compute_units > 0 ? device.compute_units : 1),
      local_mem_bytes_(device.local_mem_bytes), gpu_((device.device_type & CL_DEVICE_TYPE_GPU) != 0),
      portable_(diagnostic_on("CLPORT_NV_LAYER_PORTABLE")) {
  if (diagnostic_on("CLPORT_NV_LAYER_TIMING") && gemv_.ptx &&
      h_.cl().clGetDeviceInfo(device.device, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof(clock_mhz_), &clock_mhz_, nullptr) !=
          CL_SUCCESS)
    clock_mhz_ = 0;
}

NvLayer::~NvLayer() = default;

int64_t NvLayer::heads_per_item(int64_t heads, int64_t kv_heads) const {
  const int64_t group = heads / std::max<int64_t>(kv_heads, 1);
  for (int64_t gq = config_.heads_per_item; gq > 1; gq /= 2)
    if (group % gq == 0) return gq;
  return 1;
}

uint32_t NvLayer::splits(int64_t heads, int64_t gq) const {
  const int64_t items = std::max<int64_t>(heads / gq, 1);
  return std::clamp<uint32_t>(groups() / static_cast<uint32_t>(items), 1u, kMaxSplits);
}

uint64_t NvLayer::att_bytes(int64_t head_dim, int64_t heads, int64_t gq) const {
  // gq query rows, the warps' sums (NV_WARPS rows of head_dim), a reduction scratch.
  const uint64_t attention = ((gq + gemv_.wg / 32) * static_cast<uint64_t>(head_dim) + gemv_.wg) * sizeof(float);
  // The merge of a head group's ranges: their maxima and sums.
  const uint64_t merge = 2 * static_cast<uint64_t>(gq) * splits(heads, gq) * sizeof(float);
  return std::max(attention, merge);
}

uint64_t NvLayer::arena_bytes(int64_t max_k, uint64_t att) {
  // One byte a code; the attention's arrays (nv_layer.cl phase 2) use the same bytes in between.
  const uint64_t bytes = std::max(static_cast<uint64_t>(max_k), att);
  return (bytes + 15) / 16 * 16;
}

uint32_t NvLayer::groups() const {
  if (config_.groups > 0) return config_.groups;
  return gpu_ ? compute_units_ : 1;
}

uint64_t NvLayer::local_bytes(const clport_op* const* ops) const {
  int64_t max_k = 0;
  for (size_t i : {0, 2, 3, 4}) max_k = std::max(max_k, ops[i]->src[0]->ne[0]);
  const clport_tensor& q = *ops[1]->src[0];
  const int64_t hd = q.ne[0];
  const uint64_t rows = static_cast<uint64_t>(gemv_.wg / 32) * gemv_.rows_per_warp;
  const uint64_t red = 2 * rows * 33 * sizeof(float);
  const uint64_t arena = arena_bytes(max_k, att_bytes(hd, q.ne[1], heads_per_item(q.ne[1], ops[1]->src[1]->ne[1])));
  return red + arena + static_cast<uint64_t>(max_k / 32) * 8 + 16;
}

bool NvLayer::takes(const clport_op* const* ops, size_t n) const {
  // Inline PTX only: without it the grid barrier's fence is OpenCL's work-group-scoped
  // mem_fence, and PoCL's work-group compiler (what runs a spoofed identity) does not get through
  // a kernel with this many barriers in loops in reasonable time. CLPORT_NV_LAYER_PORTABLE lets a
  // one-group launch through for a simulator's check.
  if (!config_.enabled || n != kOps || (!gemv_.ptx && !(portable_ && groups() == 1))) return false;
  const int32_t kinds[kOps] = {CLPORT_OP_RMS_NORM_MUL_MAT, CLPORT_OP_ROPE_KV_STORE_ATTENTION, CLPORT_OP_MUL_MAT_ADD,
                               CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU, CLPORT_OP_MUL_MAT_ADD};
  for (size_t i = 0; i < kOps; ++i) {
    // One token: a mat-mul's output is one column, the attention's [head_dim, heads, 1].
    const int64_t tokens = i == 1 ? ops[i]->dst->ne[2] : ops[i]->dst->ne[1];
    if (ops[i]->kind != kinds[i] || !is_f32_row(ops[i]->dst) || tokens != 1) return false;
    for (int32_t s = 0; s < ops[i]->n_src; ++s)
      if (ops[i]->src[s] == nullptr || ops[i]->src[s]->offset % 4 != 0) return false;
    if (ops[i]->dst->offset % 4 != 0) return false;
  }
  const clport_op& att = *ops[1];
  if (ops[0]->n_src < 3 || att.n_src != 4 || ops[2]->n_src < 3 || ops[3]->n_src < 4 || ops[4]->n_src < 3)
    return false;
  const clport_tensor &q = *att.src[0], &k = *att.src[1], &v = *att.src[2], &cache = *att.src[3];
  const int64_t hd = q.ne[0], heads = q.ne[1], kv_heads = k.ne[1];
  if (!is_f32_row(&q) || !is_f32_row(&k) || !is_f32_row(&v) || q.ne[2] != 1) return false;
  if (cache.dtype != CLPORT_DTYPE_F16 && cache.dtype != CLPORT_DTYPE_F32) return false;
  // The attention loads eight cache elements at a time as 16-byte words.
  for (const uint64_t at : {cache.offset, static_cast<uint64_t>(cache.nb[1]), static_cast<uint64_t>(cache.nb[2]),
                            static_cast<uint64_t>(cache.nb[3])})
    if (at % 16 != 0) return false;
  // A key lane of the attention is hd / 8 work-items of one warp, summed with shuffles.
  const int64_t parts = hd / 8;
  if (hd % 8 != 0 || parts < 1 || parts > 32 || (parts & (parts - 1)) != 0 || hd > static_cast<int64_t>(gemv_.wg) ||
      kv_heads < 1 || heads % kv_heads != 0)
    return false;
  // A head group's arrival count each (items of one head at short caches).
  if (heads > static_cast<int64_t>(kMaxHeadGroups)) return false;
  if ((heads * hd) % 32 != 0 || att.params.rope.n_rot < 2 || att.params.rope.n_rot > hd || att.params.rope.n_rot % 2 != 0)
    return false;
  if (att.params.rope.mode != 0 && att.params.rope.mode != 2) return false;
  // The output projection's input must be the attention's output: the kernel hands the merged
  // row over in local memory.
  const clport_tensor &attn = *att.dst, &o_in = *ops[2]->src[1];
  if (attn.buffer != o_in.buffer || attn.offset != o_in.offset || attn.ne[0] * attn.ne[1] != o_in.ne[0] ||
      attn.nb[1] != attn.ne[0] * 4 || o_in.ne[0] != heads * hd)
    return false;
  return local_bytes(ops) + 1024 <= local_mem_bytes_;
}

const clport::sdk::Program& NvLayer::program(const Weights& w, bool cache_f16) {
  std::ostringstream key;
  key << gemv_.build_options() << " -DNV_QKV_ROWS=" << rows_fn(w[0]->dtype, false) << " -DNV_O_ROWS=" << rows_fn(w[1]->dtype, false)
      << " -DNV_FFN_ROWS=" << rows_fn(w[2]->dtype, true) << " -DNV_DOWN_ROWS=" << rows_fn(w[4]->dtype, false)
      << " -DNV_CACHE_F16=" << (cache_f16 ? 1 : 0) << " -DNV_ATT_GQA=" << config_.heads_per_item << (clock_mhz_ > 0 ? " -DNV_LAYER_TIMING=1" : "");
  auto it = programs_.find(key.str());
  if (it != programs_.end()) return it->second;
  const std::string source = h_.shared_source("rope_math.cl") + "\n" + gemv_source(h_) + "\n" +
                             clport::sdk::plugin_kernel_source(clport_plugin_kernels, "nvidia", "nv_layer_attention.cl") +
                             "\n" + clport::sdk::plugin_kernel_source(clport_plugin_kernels, "nvidia", "nv_layer.cl");
  return programs_.emplace(key.str(), clport::sdk::Program(&h_.cl(), h_.build_program(source, key.str()))).first->second;
}

bool NvLayer::barrier_works(const clport::sdk::Program& p) {
  if (barrier_checked_ >= 0) return barrier_checked_ == 1;
  const clport_cl_api& cl = h_.cl();
  const cl_uint n = groups();
  auto bar = barrier_words(host_);
  PoolBuffer result(host_, sizeof(cl_uint));
  clport::sdk::Kernel probe(cl, p, "nv_grid_probe");
  clport::sdk::set_args(cl, probe, bar->get(), n, result.get());
  const size_t local = gemv_.wg, global = static_cast<size_t>(n) * local;
  clport::sdk::detail::enqueue_kernel(host_, probe.get(), probe.name(), 1, &global, &local);
  cl_uint met = 0;
  clport::sdk::check_cl(cl.clEnqueueReadBuffer(h_.queue(), result.get(), CL_TRUE, 0, sizeof(met), &met, 0, nullptr,
                                               nullptr),
                        "clEnqueueReadBuffer(grid probe)");
  barrier_checked_ = met == 1 ? 1 : 0;
  if (met != 1)
    h_.log(CLPORT_LOG_WARN, "nvidia: " + std::to_string(n) +
                                " work-groups did not meet at a grid barrier; decode layers run op by op");
  return met == 1;
}

std::unique_ptr<clport_launch> NvLayer::prepare(const clport_op* const* ops, const Weights& w) {
  std::lock_guard<std::mutex> lock(mutex_);
  const clport_op &o0 = *ops[0], &o1 = *ops[1], &o2 = *ops[2], &o3 = *ops[3], &o4 = *ops[4];
  const clport_tensor &q = *o1.src[0], &k = *o1.src[1], &v = *o1.src[2], &cache = *o1.src[3];
  const clport::sdk::Program& p = program(w, cache.dtype == CLPORT_DTYPE_F16);
  if (!barrier_works(p)) return nullptr;

  const cl_int hd = static_cast<cl_int>(q.ne[0]), heads = static_cast<cl_int>(q.ne[1]);
  const cl_uint n_groups = groups();
  const int64_t gq = heads_per_item(heads, k.ne[1]);
  // The most ranges any step takes (items of gq heads have the most), for the partials' buffer.
  const cl_int splits = static_cast<cl_int>(this->splits(heads, gq));
  auto part = std::make_unique<PoolBuffer>(host_, static_cast<size_t>(heads) * splits * (hd + 2) * sizeof(float));
  auto bar = barrier_words(host_);

  const clport_cl_api& cl = h_.cl();
  clport::sdk::Kernel kernel(cl, p, "nv_layer");
  const auto& rope = o1.params.rope;
  const int64_t max_k = std::max({w[0]->K, w[1]->K, w[2]->K, w[4]->K});
  const clport::sdk::LocalMem codes{static_cast<size_t>(arena_bytes(max_k, att_bytes(hd, heads, gq)))},
      scales{static_cast<size_t>(max_k / 32) * 8};
  const auto u = [](uint64_t x) { return static_cast<cl_ulong>(x); };
  const auto i = [](int64_t x) { return static_cast<cl_int>(x); };
  clport::sdk::set_args(
      cl, kernel,
      // 1
      w[0]->q, w[0]->s, o0.src[1]->buffer, u(o0.src[1]->offset), o0.src[2]->buffer, u(o0.src[2]->offset),
      cl_float(o0.params.eps), o0.dst->buffer, u(o0.dst->offset), i(w[0]->K), i(w[0]->N),
      // 2
      q.buffer, u(q.offset), u(q.nb[1]), k.buffer, u(k.offset), u(k.nb[1]), v.buffer, u(v.offset), u(v.nb[1]),
      cache.buffer, u(cache.offset), u(cache.nb[1]), u(cache.nb[2]), u(cache.nb[3]), o1.dst->buffer,
      u(o1.dst->offset), heads, i(k.ne[1]), hd, cl_int(rope.n_rot), cl_int(rope.mode == 2 ? 1 : 0),
      cl_float(rope.freq_base), cl_float(rope.freq_scale), cl_float(o1.params.attention.scale),
      cl_int(o1.params.attention.window), cl_int(o1.n_past), part->get(), splits, i(gq),
      // 3
      w[1]->q, w[1]->s, o2.src[2]->buffer, u(o2.src[2]->offset), o2.dst->buffer, u(o2.dst->offset), i(w[1]->N),
      // 4
      w[2]->q, w[2]->s, w[3]->q, w[3]->s, o3.src[1]->buffer, u(o3.src[1]->offset), o3.src[2]->buffer,
      u(o3.src[2]->offset), cl_float(o3.params.eps), o3.dst->buffer, u(o3.dst->offset), i(w[2]->K), i(w[2]->N),
      // 5
      w[4]->q, w[4]->s, o4.src[1]->buffer, u(o4.src[1]->offset), o4.src[2]->buffer, u(o4.src[2]->offset),
      o4.dst->buffer, u(o4.dst->offset), i(w[4]->K), i(w[4]->N),
      // grid barrier, local arenas (the codes, in turn the attention's arrays; the scales)
      bar->get(), n_groups, codes, scales);
  const size_t local = gemv_.wg, global = static_cast<size_t>(n_groups) * local;
  SplitRule split;
  split.keys_per_trip = 2 * static_cast<int32_t>(gemv_.wg / (hd / 8));
  split.max_splits = static_cast<int32_t>(this->splits(heads, 1));
  split.gq = static_cast<int32_t>(gq);
  split.max_splits_gq = splits;
  split.window = o1.params.attention.window;
  split.gq_from_keys = static_cast<int32_t>(config_.gqa_from_keys);
  return std::make_unique<LayerLaunch>(host_, std::move(kernel), std::move(part), std::move(bar), global, local, split, clock_mhz_);
}

}  // namespace nvidia
