#include "nv_attention.hpp"

#include "clport_plugin/dtype_table.hpp"

extern const clport::EmbeddedKernel clport_plugin_kernels[];

namespace nvidia {

namespace {
constexpr size_t kMmaGroup = 256;   // NV_AMMA_WG
constexpr size_t kMmaTokens = 128;  // NV_AMMA_BQ
}  // namespace

NvAttention::NvAttention(const clport_host& host, uint64_t local_mem_bytes, bool mma, bool async)
    : host_(host), h_(host), local_mem_bytes_(local_mem_bytes), mma_(mma), async_(mma && async) {}

bool NvAttention::on_tensor_cores(const clport_op& op) const {
  const clport_tensor &q = *op.src[0], &kc = *op.src[1], &vc = *op.src[2];
  const auto aligned = [](const clport_tensor& t) { return t.offset % 16 == 0 && t.nb[1] % 16 == 0 && t.nb[2] % 16 == 0; };
  return mma_ && kc.dtype == CLPORT_DTYPE_F16 && vc.dtype == CLPORT_DTYPE_F16 && q.ne[0] % 16 == 0 && aligned(kc) &&
         aligned(vc) && kc.nb[1] == vc.nb[1] && kc.nb[2] == vc.nb[2];
}

NvAttention::Tiles NvAttention::tiles(int64_t head_dim) {
  // Local memory stays near 33 KiB: a query row per token plus a key and a value tile.
  return head_dim <= 64 ? Tiles{64, 32} : Tiles{32, 16};
}

bool NvAttention::takes(const clport_op& op) const {
  if (op.kind != CLPORT_OP_ATTENTION && op.kind != CLPORT_OP_ROPE_ATTENTION) return false;
  const clport_tensor& q = *op.src[0];
  const int64_t hd = q.ne[0];
  // The tiles read one cache type for K and V (F16, F32, or Q8_0 / Q4_0 rows of whole blocks,
  // decoded as they are staged); a mixed cache goes to the shared kernels.
  const int32_t kt = op.src[1]->dtype;
  const bool quantized = kt == CLPORT_DTYPE_Q8_0 || kt == CLPORT_DTYPE_Q4_0;
  if (kt != op.src[2]->dtype || (kt != CLPORT_DTYPE_F16 && kt != CLPORT_DTYPE_F32 && !quantized)) return false;
  if (quantized && hd % 32 != 0) return false;
  // The output row lives in registers: head sizes up to 128 (256 would spill).
  if (q.ne[2] < kMinTokens || hd % 4 != 0 || hd > 128) return false;
  const Tiles t = tiles(hd);
  const uint64_t local = 4ull * (t.bq * (hd + 1) + 2 * hd * t.bk);
  return local + 1024 <= local_mem_bytes_;
}

const clport::sdk::Kernel& NvAttention::kernel(int64_t head_dim, const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  clport::sdk::Program& program = programs_[head_dim];
  if (program.get() == nullptr) {
    const Tiles t = tiles(head_dim);
    const std::string options = "-cl-std=CL1.2 -DNV_ATT_HD=" + std::to_string(head_dim) +
                                " -DNV_ATT_BQ=" + std::to_string(t.bq) + " -DNV_ATT_BK=" + std::to_string(t.bk) +
                                " -DNV_PTX=" + (mma_ ? "1" : "0") + (async_ ? " -DNV_ASYNC=1" : "");
    const std::string source =
        h_.shared_source("common.cl") + "\n" + h_.shared_source("blocks.cl") + "\n" +
        h_.shared_source("rope_math.cl") + "\n" +
        clport::sdk::plugin_kernel_source(clport_plugin_kernels, "nvidia", "nv_ptx.cl") + "\n" +
        clport::sdk::plugin_kernel_source(clport_plugin_kernels, "nvidia", "nv_attention.cl") + "\n" +
        clport::sdk::plugin_kernel_source(clport_plugin_kernels, "nvidia", "nv_attention_mma.cl");
    program = clport::sdk::Program(&h_.cl(), h_.build_program(source, options));
  }
  const std::string key = std::to_string(head_dim) + name;
  auto it = kernels_.find(key);
  if (it == kernels_.end()) it = kernels_.emplace(key, clport::sdk::Kernel(h_.cl(), program, name.c_str())).first;
  return it->second;
}

void NvAttention::enqueue(const clport_op& op) {
  const clport_tensor &q = *op.src[0], &kc = *op.src[1], &vc = *op.src[2], &d = *op.dst;
  // ATTENTION: q contiguous, no rotation.
  const bool rope = op.kind == CLPORT_OP_ROPE_ATTENTION;
  const clport_rope_params& r = op.params.rope;
  const clport_attention_params& a = op.params.attention;
  const bool has_factors = rope && op.n_src > 3;
  const clport_tensor& factors = has_factors ? *op.src[3] : q;
  const cl_ulong q_nb1 = rope ? q.nb[1] : q.ne[0] * 4, q_nb2 = rope ? q.nb[2] : q.ne[0] * q.ne[1] * 4;
  const bool mma = on_tensor_cores(op);
  // The plain kernels' names end in their cache type (nv_attention.cl).
  const std::string name = mma ? "nv_attention_mma_f16" : "nv_attention_prompt_" + clport::sdk::kernel_suffix(kc.dtype);
  const clport::sdk::Kernel& k = kernel(q.ne[0], name);
  clport::sdk::set_args(h_.cl(), k, q.buffer, cl_ulong(q.offset), q_nb1, q_nb2, kc.buffer, cl_ulong(kc.offset),
                        vc.buffer, cl_ulong(vc.offset), cl_ulong(kc.nb[1]), cl_ulong(kc.nb[2]), d.buffer,
                        cl_ulong(d.offset), cl_int(q.ne[2]), cl_int(q.ne[1]), cl_int(kc.ne[1]),
                        cl_int(op.n_past), cl_float(a.scale), cl_int(rope ? r.n_rot : 0),
                        cl_int(rope && r.mode == 2 ? 1 : 0), cl_float(rope ? r.freq_base : 1.0f),
                        cl_float(rope ? r.freq_scale : 1.0f), factors.buffer, cl_ulong(factors.offset),
                        cl_int(has_factors ? 1 : 0), cl_int(a.window));
  const size_t bq = mma ? kMmaTokens : static_cast<size_t>(tiles(q.ne[0]).bq);
  const size_t group = mma ? kMmaGroup : bq;
  const size_t global[2] = {group * static_cast<size_t>(q.ne[1]), (static_cast<size_t>(q.ne[2]) + bq - 1) / bq};
  const size_t local[2] = {group, 1};
  clport::sdk::enqueue(host_, k, 2, global, local);
}

}  // namespace nvidia
