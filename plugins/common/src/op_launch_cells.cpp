// The ops of a step over several sequences (plugin_abi.h's *_CELLS): one launch stores every
// token's K and V at its own sequence's cell (on CPU devices a work-item per KV head and token), one (split over key ranges on GPUs, then merged)
// attends every token over its own sequence. The kernels are the one-sequence ones of rope.cl and
// attention.cl with each token's sequence and position read from the cells.
#include <algorithm>
#include <string>

#include "clport_common/attention_parts.hpp"
#include "clport_common/op_checks.hpp"
#include "clport_common/op_runner.hpp"

namespace clport::plugin_common {
namespace {

cl_int cells_i32(int64_t v) { return static_cast<cl_int>(v); }
cl_ulong cells_u64(uint64_t v) { return static_cast<cl_ulong>(v); }

}  // namespace

void OpRunner::kv_store_rope_cells(const clport_op& op) {
  const clport_tensor &kt = *op.src[0], &vt = *op.src[1], &cells = *op.src[2], &c = *op.dst;
  const bool has_factors = op.n_src > 3;
  const clport_tensor& factors = has_factors ? *op.src[3] : kt;
  const clport_rope_params& r = op.params.rope;
  // CPU devices: a work-item per (KV head, token) (attention_serial.cl), else one per pair (rope.cl).
  const bool serial = tuning_.att_serial == 1;
  const std::string type = kernel_type_suffix(c.dtype);
  const sdk::Kernel& k = serial ? kernel(ProgramId::Attention, "kv_store_rope_cells_serial_" + type, type)
                                : kernel(ProgramId::Rope, "kv_store_rope_cells_" + type);
  // A sequence is its K and V halves: 2 nb[3] bytes.
  sdk::set_args(h_.cl(), k, kt.buffer, cells_u64(kt.offset), cells_u64(kt.nb[1]), cells_u64(kt.nb[2]), vt.buffer,
                cells_u64(vt.offset), cells_u64(vt.nb[1]), cells_u64(vt.nb[2]), c.buffer, cells_u64(c.offset),
                cells_u64(c.nb[1]), cells_u64(c.nb[2]), cells_u64(c.nb[3]), cells_i32(kt.ne[0]), cells_i32(kt.ne[1]),
                cells_i32(kt.ne[2]), cl_int(0), cl_int(r.n_rot), cl_int(r.mode == 2 ? 1 : 0), r.freq_base,
                r.freq_scale, factors.buffer, cells_u64(factors.offset), cl_int(has_factors ? 1 : 0), cells.buffer,
                cells_u64(cells.offset), cells_u64(2 * c.nb[3]));
  if (serial) {
    const size_t global[2] = {static_cast<size_t>(kt.ne[1]), static_cast<size_t>(kt.ne[2])}, local[2] = {1, 1};
    return run(k, 2, global, local);
  }
  const size_t global = sdk::round_up(static_cast<size_t>(element_count(kt) / 2), tuning_.elt_wg);
  const size_t local = tuning_.elt_wg;
  run(k, 1, &global, &local);
}

void OpRunner::attention_cells(const clport_op& op) {
  const clport_tensor &q = *op.src[0], &cache = *op.src[1], &cells = *op.src[2], &d = *op.dst;
  const std::string type = kernel_type_suffix(cache.dtype);
  const clport_rope_params& r = op.params.rope;
  const clport_attention_params& a = op.params.attention;
  const bool has_factors = op.n_src > 3;
  const clport_tensor& factors = has_factors ? *op.src[3] : q;
  const int64_t hd = q.ne[0], n_head = q.ne[1], n_tokens = q.ne[2];
  // Sequence 0's K and V; sequence s's lie 2 s nb[3] bytes further.
  const cl_ulong k_off = cells_u64(cache.offset), v_off = cells_u64(cache.offset + cache.nb[3]);
  const cl_ulong seq_bytes = cells_u64(2 * cache.nb[3]);
  auto set_common = [&](const sdk::Kernel& k) {
    sdk::set_args(h_.cl(), k, q.buffer, cells_u64(q.offset), cache.buffer, k_off, cache.buffer, v_off,
                  cells_u64(cache.nb[1]), cells_u64(cache.nb[2]), d.buffer, cells_u64(d.offset), cells_i32(hd),
                  cells_i32(n_head), cells_i32(cache.ne[1]), cl_int(0), a.scale, cells_u64(q.nb[1]),
                  cells_u64(q.nb[2]), cl_int(r.n_rot), cl_int(r.mode == 2 ? 1 : 0), r.freq_base, r.freq_scale,
                  q.buffer, cells_u64(q.offset), cells_u64(q.nb[1]), q.buffer, cells_u64(q.offset),
                  cells_u64(q.nb[1]), cache.buffer, k_off, cl_ulong{0}, cl_int(a.window), factors.buffer,
                  cells_u64(factors.offset), cl_int(has_factors ? 1 : 0));
  };
  constexpr cl_uint kOwnArgs = 34;  // the first argument after the common ones (attention.cl)
  auto set_cells = [&](const sdk::Kernel& k, cl_uint at) {
    sdk::detail::set_one(h_.cl(), k, at, cells.buffer);
    sdk::detail::set_one(h_.cl(), k, at + 1, cells_u64(cells.offset));
    sdk::detail::set_one(h_.cl(), k, at + 2, seq_bytes);
  };
  const bool serial = tuning_.att_serial == 1;
  if (serial) {
    const sdk::Kernel& k = kernel(ProgramId::Attention, "attention_serial_cells_" + type, type);
    set_common(k);
    set_cells(k, kOwnArgs);
    const size_t global[2] = {static_cast<size_t>(n_head), static_cast<size_t>(n_tokens)}, local[2] = {1, 1};
    return run(k, 2, global, local);
  }
  // Key ranges per token: enough work-groups for a few per compute unit (a few tokens of a decode
  // step leave most of a big GPU idle), each range at least att_split_keys of the cache's
  // positions; the ranges past a token's own keys add nothing.
  const int splits = cells_attention_splits(n_tokens, n_head, cache.ne[2]);
  const size_t wg = tuning_.att_wg;
  if (splits > 1) {
    const size_t part_bytes = attention_part_bytes(n_tokens, n_head, hd, splits);
    if (cl_mem part = attention_parts_.grow(part_bytes); part != nullptr) {
      const sdk::Kernel& ks = kernel(ProgramId::Attention, "attention_split_cells_" + type, type);
      set_common(ks);
      sdk::detail::set_one(h_.cl(), ks, kOwnArgs, cl_int(splits));
      sdk::detail::set_one(h_.cl(), ks, kOwnArgs + 1, part);
      set_cells(ks, kOwnArgs + 2);
      const size_t global_s[3] = {static_cast<size_t>(n_head) * wg, static_cast<size_t>(splits),
                                  static_cast<size_t>(n_tokens)};
      const size_t local_s[3] = {wg, 1, 1};
      run(ks, 3, global_s, local_s);
      const sdk::Kernel& km = kernel(ProgramId::Attention, "attention_merge", type);
      sdk::set_args(h_.cl(), km, part, cl_int(splits), cells_i32(hd), d.buffer, cells_u64(d.offset));
      const size_t global_m[3] = {sdk::round_up(static_cast<size_t>(hd), 64), static_cast<size_t>(n_head),
                                  static_cast<size_t>(n_tokens)};
      const size_t local_m[3] = {64, 1, 1};
      return run(km, 3, global_m, local_m);
    }
  }
  const sdk::Kernel& k = kernel(ProgramId::Attention, "attention_cells_" + type, type);
  set_common(k);
  set_cells(k, kOwnArgs);
  const size_t global[2] = {static_cast<size_t>(n_head) * wg, static_cast<size_t>(n_tokens)};
  const size_t local[2] = {wg, 1};
  run(k, 2, global, local);
}

int OpRunner::cells_attention_splits(int64_t n_tokens, int64_t n_head, int64_t cache_positions) const {
  if (tuning_.att_split != 1) return 1;
  const int64_t by_groups = (4 * static_cast<int64_t>(compute_units_) + n_head * n_tokens - 1) / (n_head * n_tokens);
  const int64_t by_keys = cache_positions / static_cast<int64_t>(tuning_.att_split_keys);
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>({by_groups, by_keys, 256})));
}

}  // namespace clport::plugin_common
