#include "nv_attention_cells.hpp"

#include <algorithm>

#include "clport_common/attention_parts.hpp"

extern const clport::EmbeddedKernel clport_plugin_kernels[];

namespace nvidia {
namespace {

constexpr size_t kGroup = 128;        // NV_DEC_WG: also the keys of one chunk
constexpr int64_t kMinRangeCells = 64;  // cells of the cache a key range spans at least

}  // namespace

NvAttentionCells::NvAttentionCells(const clport_host& host, uint32_t compute_units, uint32_t groups_per_unit,
                                   bool ptx, bool mma)
    : host_(host),
      h_(host),
      compute_units_(compute_units > 0 ? compute_units : 1),
      groups_per_unit_(groups_per_unit > 0 ? groups_per_unit : 1),
      ptx_(ptx),
      mma_(mma) {}

bool NvAttentionCells::takes(const clport_op& op) {
  if (op.kind != CLPORT_OP_ROPE_ATTENTION_CELLS) return false;
  const clport_tensor &q = *op.src[0], &cache = *op.src[1];
  if (cache.dtype != CLPORT_DTYPE_F16 && cache.dtype != CLPORT_DTYPE_F32) return false;
  const int64_t hd = q.ne[0], group = q.ne[1] / cache.ne[1];
  // The value rows are copied as 16-byte words; the cells are read as an int array.
  const bool aligned = op.src[2]->offset % 4 == 0 && cache.offset % 16 == 0 && cache.nb[1] % 16 == 0 && cache.nb[2] % 16 == 0 && cache.nb[3] % 16 == 0;
  return aligned && hd % 8 == 0 && hd <= kMaxHeadDim && group >= 1 && group <= kMaxGroup;
}

int NvAttentionCells::splits(int64_t n_tokens, int64_t n_kv_head, int64_t n_ctx) const {
  const int64_t groups = std::max<int64_t>(1, n_tokens * n_kv_head);
  const int64_t by_units = (static_cast<int64_t>(groups_per_unit_) * compute_units_ + groups - 1) / groups;
  const int64_t by_cells = std::max<int64_t>(1, n_ctx / kMinRangeCells);
  return static_cast<int>(std::clamp<int64_t>(by_units, 1, std::min<int64_t>(by_cells, 256)));
}

cl_mem NvAttentionCells::partials(size_t bytes) {
  cl_mem part = part_scratch_.grow(bytes);
  if (part == nullptr)
    throw clport::sdk::Failure("nvidia: no device memory for the decode attention's partial results (" +
                                   std::to_string(bytes) + " bytes)",
                               CLPORT_PLUGIN_OUT_OF_MEMORY);
  return part;
}

const clport::sdk::Kernel& NvAttentionCells::kernel(int64_t head_dim, int64_t group, const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  clport::sdk::Program& program = programs_[{head_dim, group}];
  if (program.get() == nullptr) {
    const std::string options = "-cl-std=CL1.2 -DNV_DEC_HD=" + std::to_string(head_dim) +
                                " -DNV_DEC_R=" + std::to_string(group) + " -DNV_PTX=" + (ptx_ ? "1" : "0");
    const std::string source =
        h_.shared_source("rope_math.cl") + "\n" +
        clport::sdk::plugin_kernel_source(clport_plugin_kernels, "nvidia", "nv_ptx.cl") + "\n" +
        clport::sdk::plugin_kernel_source(clport_plugin_kernels, "nvidia", "nv_attention_cells.cl") +
        (takes_mma(head_dim)
             ? "\n" + clport::sdk::plugin_kernel_source(clport_plugin_kernels, "nvidia", "nv_attention_cells_mma.cl")
             : std::string());
    program = clport::sdk::Program(&h_.cl(), h_.build_program(source, options));
  }
  const std::string key = std::to_string(head_dim) + "/" + std::to_string(group) + name;
  auto it = kernels_.find(key);
  if (it == kernels_.end()) it = kernels_.emplace(key, clport::sdk::Kernel(h_.cl(), program, name.c_str())).first;
  return it->second;
}

std::vector<clport_scratch_need> NvAttentionCells::scratch_needs(const clport_op& op) {
  const clport_tensor &q = *op.src[0], &cache = *op.src[1];
  size_t most = 0, most_counts = 0;
  for (int64_t n = 1; n <= q.ne[2]; ++n) {
    const int n_split = splits(n, cache.ne[1], cache.ne[2]);
    if (n_split == 1) continue;
    most = std::max(most, clport::plugin_common::attention_part_bytes(n, q.ne[1], q.ne[0], n_split));
    most_counts = std::max(most_counts, static_cast<size_t>(n * cache.ne[1]));
  }
  if (most == 0) return {};
  return {part_scratch_.plan(most), arrivals_.plan(most_counts)};
}

void NvAttentionCells::enqueue(const clport_op& op) {
  const clport_tensor &q = *op.src[0], &cache = *op.src[1], &cells = *op.src[2], &d = *op.dst;
  const clport_rope_params& r = op.params.rope;
  const clport_attention_params& a = op.params.attention;
  const bool has_factors = op.n_src > 3;
  const clport_tensor& factors = has_factors ? *op.src[3] : q;
  const int64_t hd = q.ne[0], n_head = q.ne[1], n_kv_head = cache.ne[1], n_tokens = q.ne[2];
  const int64_t group = n_head / n_kv_head;
  const int n_split = splits(n_tokens, n_kv_head, cache.ne[2]);
  cl_mem part = nullptr, counts = nullptr;
  if (n_split > 1) {
    part = partials(clport::plugin_common::attention_part_bytes(n_tokens, n_head, hd, n_split));
    counts = arrivals_.get(static_cast<size_t>(n_tokens * n_kv_head));
    if (counts == nullptr)
      throw clport::sdk::Failure("nvidia: no device memory for the decode attention's arrival counts",
                                 CLPORT_PLUGIN_OUT_OF_MEMORY);
  }
  // A sequence is its K and V halves (2 nb[3] bytes).
  const std::string name = cache.dtype != CLPORT_DTYPE_F16 ? "nv_attention_cells_f32"
                           : takes_mma(hd)                  ? "nv_attention_cells_mma_f16"
                                                            : "nv_attention_cells_f16";
  const clport::sdk::Kernel& k = kernel(hd, group, name);
  clport::sdk::set_args(
      h_.cl(), k, q.buffer, cl_ulong(q.offset), cl_ulong(q.nb[1]), cl_ulong(q.nb[2]), cache.buffer,
      cl_ulong(cache.offset), cl_ulong(cache.offset + cache.nb[3]), cl_ulong(cache.nb[1]), cl_ulong(cache.nb[2]),
      cl_ulong(2 * cache.nb[3]), cells.buffer, cl_ulong(cells.offset), d.buffer, cl_ulong(d.offset), cl_int(n_head), cl_float(a.scale),
      cl_int(r.n_rot), cl_int(r.mode == 2 ? 1 : 0), cl_float(r.freq_base), cl_float(r.freq_scale), factors.buffer,
      cl_ulong(factors.offset), cl_int(has_factors ? 1 : 0), cl_int(a.window), cl_int(n_split),
      part != nullptr ? part : d.buffer, counts != nullptr ? counts : d.buffer);
  const size_t global[3] = {kGroup * static_cast<size_t>(n_split), static_cast<size_t>(n_kv_head),
                            static_cast<size_t>(n_tokens)};
  const size_t local[3] = {kGroup, 1, 1};
  clport::sdk::enqueue(host_, k, 3, global, local);
}

}  // namespace nvidia
