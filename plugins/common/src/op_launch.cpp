// Per-op kernel arguments and NDRange choice for the shared kernels (see kernels/*.cl for the
// matching signatures). Operands were checked by check_op before any of these run.
#include <algorithm>
#include <string>

#include "clport_common/attention_parts.hpp"
#include "clport_common/op_checks.hpp"
#include "clport_common/op_runner.hpp"

namespace clport::plugin_common {
namespace {

using sdk::round_up;
using sdk::set_args;

std::string type_suffix(int32_t dtype) { return kernel_type_suffix(dtype); }

cl_int i32(int64_t v) { return static_cast<cl_int>(v); }
cl_uint u32(int64_t v) { return static_cast<cl_uint>(v); }
cl_ulong u64(uint64_t v) { return static_cast<cl_ulong>(v); }
cl_int4 ne4(const clport_tensor& t) { return cl_int4{{i32(t.ne[0]), i32(t.ne[1]), i32(t.ne[2]), i32(t.ne[3])}}; }
cl_ulong4 nb4(const clport_tensor& t) {
  return cl_ulong4{{u64(t.nb[0]), u64(t.nb[1]), u64(t.nb[2]), u64(t.nb[3])}};
}

// RoPE's frequency factors (source `index`) when the op carries them; else src0 stands
// in as a valid buffer the kernel never reads (its has_ff argument is 0).
const clport_tensor& rope_factors(const clport_op& op, int index) {
  return op.n_src > index ? *op.src[index] : *op.src[0];
}

}  // namespace

void OpRunner::get_rows(const clport_op& op) {
  const clport_tensor &w = *op.src[0], &idx = *op.src[1], &d = *op.dst;
  const int64_t items = dtype_info(w.dtype)->block_size == 1 ? w.ne[0] : w.ne[0] / 32;
  // A repacked weight is looked up in its layout (kernels/get_rows_repacked.cl), which may be its
  // only copy.
  const PackedWeight* p = find_packed(w);
  if (p != nullptr) {
    const std::string form = p->format == PackedFormat::Rows8 ? "get_rows_x8_" : "get_rows_packed_";
    const sdk::Kernel& k = kernel(ProgramId::GetRows, form + kernel_type_suffix(w.dtype), kernel_type_suffix(w.dtype));
    if (p->format == PackedFormat::Rows8) {
      set_args(h_.cl(), k, p->q, idx.buffer, u64(idx.offset), d.buffer, u64(d.offset), i32(w.ne[0]), i32(w.ne[1]));
    } else {
      set_args(h_.cl(), k, p->q, p->s, idx.buffer, u64(idx.offset), d.buffer, u64(d.offset), i32(w.ne[0]),
               i32(w.ne[1]));
    }
    const size_t global[2] = {round_up(items, tuning_.elt_wg), static_cast<size_t>(idx.ne[0])};
    const size_t local[2] = {tuning_.elt_wg, 1};
    return run(k, 2, global, local);
  }
  const sdk::Kernel& k = kernel(ProgramId::GetRows, "get_rows_" + type_suffix(w.dtype), type_suffix(w.dtype));
  set_args(h_.cl(), k, w.buffer, u64(w.offset), u64(w.nb[1]), idx.buffer, u64(idx.offset),
           d.buffer, u64(d.offset), i32(w.ne[0]), i32(w.ne[1]));
  const size_t global[2] = {round_up(items, tuning_.elt_wg), static_cast<size_t>(idx.ne[0])};
  const size_t local[2] = {tuning_.elt_wg, 1};
  run(k, 2, global, local);
}

void OpRunner::rms_norm(const clport_op& op) {
  const clport_tensor &x = *op.src[0], &d = *op.dst;
  const clport_tensor* g = op.n_src == 2 ? op.src[1] : nullptr;
  const sdk::Kernel& k = kernel(ProgramId::Norm, "rms_norm_f32");
  set_args(h_.cl(), k, x.buffer, u64(x.offset), g ? g->buffer : x.buffer, u64(g ? g->offset : 0),
           cl_int(g ? 1 : 0), d.buffer, u64(d.offset), i32(x.ne[0]), op.params.eps);
  const size_t rows = static_cast<size_t>(element_count(x) / x.ne[0]);
  const size_t global[2] = {tuning_.norm_wg, rows}, local[2] = {tuning_.norm_wg, 1};
  run(k, 2, global, local);
}

void OpRunner::mul_mat(const clport_op& op) {
  const clport_tensor &w = *op.src[0], &x = *op.src[1], &d = *op.dst;
  const int64_t K = w.ne[0], N = w.ne[1], M = x.ne[1];
  const std::string t = type_suffix(w.dtype);
  const bool gemv = M <= tuning_.gemv_max_m_for(w.dtype);
  // A packed weight's GEMV reads the packed arrays; its GEMM keeps the plain buffer.
  if (const PackedWeight* p = packed_layout(w); p != nullptr && gemv) return mul_mat_packed(*p, op);
  if (takes_q8a_gemv(op) && q8a_gemv(op)) return;
  if (gemv) {
    const sdk::Kernel& k = kernel(ProgramId::Gemv, "mul_mat_gemv_" + t, t);
    set_args(h_.cl(), k, w.buffer, u64(w.offset), u64(w.nb[1]), x.buffer, u64(x.offset), d.buffer,
             u64(d.offset), i32(K), i32(N));
    const size_t groups = static_cast<size_t>((N + tuning_.gemv_rows - 1) / tuning_.gemv_rows);
    const size_t global[2] = {groups * tuning_.gemv_wg, static_cast<size_t>(M)};
    const size_t local[2] = {tuning_.gemv_wg, 1};
    return run(k, 2, global, local);
  }
  const sdk::Kernel& k = kernel(ProgramId::Gemm, "mul_mat_gemm_" + t, t);
  set_args(h_.cl(), k, w.buffer, u64(w.offset), u64(w.nb[1]), x.buffer, u64(x.offset), d.buffer,
           u64(d.offset), i32(K), i32(N), i32(M));
  const size_t wgx = tuning_.gemm_tn / tuning_.gemm_rn, wgy = tuning_.gemm_tm / tuning_.gemm_rm;
  const size_t global[2] = {static_cast<size_t>((N + tuning_.gemm_tn - 1) / tuning_.gemm_tn) * wgx,
                            static_cast<size_t>((M + tuning_.gemm_tm - 1) / tuning_.gemm_tm) * wgy};
  const size_t local[2] = {wgx, wgy};
  run(k, 2, global, local);
}

void OpRunner::mul_mat_packed(const PackedWeight& w, const clport_op& op) {
  const clport_tensor &x = *op.src[1], &d = *op.dst;
  const sdk::Kernel& k = kernel(ProgramId::GemvPacked, "mul_mat_gemv_packed_" + type_suffix(w.dtype), type_suffix(w.dtype));
  set_args(h_.cl(), k, w.q, w.s, x.buffer, u64(x.offset), d.buffer, u64(d.offset), i32(w.K), i32(w.N));
  const size_t groups = static_cast<size_t>((w.N + tuning_.gemv_packed_rows - 1) / tuning_.gemv_packed_rows);
  const size_t global[2] = {groups * tuning_.gemv_packed_wg, static_cast<size_t>(x.ne[1])};
  const size_t local[2] = {tuning_.gemv_packed_wg, 1};
  run(k, 2, global, local);
}

void OpRunner::rope(const clport_op& op) {
  const clport_tensor &x = *op.src[0], &d = *op.dst;
  const clport_tensor& factors = rope_factors(op, 1);
  const clport_rope_params& r = op.params.rope;
  const sdk::Kernel& k = kernel(ProgramId::Rope, "rope_f32");
  set_args(h_.cl(), k, x.buffer, u64(x.offset), d.buffer, u64(d.offset), i32(x.ne[0]),
           i32(x.ne[1]), i32(x.ne[2]), cl_int(op.n_past), cl_int(r.n_rot), cl_int(r.mode == 2 ? 1 : 0),
           r.freq_base, r.freq_scale, factors.buffer, u64(factors.offset), cl_int(op.n_src > 1));
  const size_t global = round_up(static_cast<size_t>(element_count(x) / 2), tuning_.elt_wg);
  const size_t local = tuning_.elt_wg;
  run(k, 1, &global, &local);
}

void OpRunner::fused_gemv(const clport_op& op) {
  if (takes_q8a_gemv(op) && q8a_gemv(op)) return;
  const clport_tensor &w = *op.src[0], &x = *op.src[1], &d = *op.dst;
  const int64_t K = w.ne[0], N = w.ne[1], M = x.ne[1];
  const std::string t = type_suffix(w.dtype);
  const std::string name = op.kind == CLPORT_OP_MUL_MAT_ADD ? "mul_mat_gemv_add_"
                           : op.kind == CLPORT_OP_RMS_NORM_MUL_MAT ? "mul_mat_gemv_norm_"
                                                                   : "mul_mat_gemv_norm_swiglu_";
  const sdk::Kernel& k = kernel(ProgramId::GemvFused, name + t, t);
  const clport_tensor& third = *op.src[2];  // the residual or the norm weight
  if (op.kind == CLPORT_OP_MUL_MAT_ADD) {
    set_args(h_.cl(), k, w.buffer, u64(w.offset), u64(w.nb[1]), x.buffer, u64(x.offset), d.buffer,
             u64(d.offset), i32(K), i32(N), third.buffer, u64(third.offset));
  } else if (op.kind == CLPORT_OP_RMS_NORM_MUL_MAT) {
    set_args(h_.cl(), k, w.buffer, u64(w.offset), u64(w.nb[1]), x.buffer, u64(x.offset), d.buffer,
             u64(d.offset), i32(K), i32(N), third.buffer, u64(third.offset), op.params.eps);
  } else {
    const clport_tensor& up = *op.src[3];
    set_args(h_.cl(), k, w.buffer, u64(w.offset), u64(w.nb[1]), x.buffer, u64(x.offset), d.buffer,
             u64(d.offset), i32(K), i32(N), third.buffer, u64(third.offset), op.params.eps, up.buffer,
             u64(up.offset));
  }
  const size_t groups = static_cast<size_t>((N + tuning_.gemv_rows - 1) / tuning_.gemv_rows);
  const size_t global[2] = {groups * tuning_.gemv_wg, static_cast<size_t>(M)};
  const size_t local[2] = {tuning_.gemv_wg, 1};
  run(k, 2, global, local);
}

void OpRunner::kv_store_rope(const clport_op& op) {
  const clport_tensor &kt = *op.src[0], &vt = *op.src[1], &c = *op.dst;
  const clport_tensor& factors = rope_factors(op, 2);
  const clport_rope_params& r = op.params.rope;
  // A quantized cache is stored a row (head, token) per work-item, by the quantizer next to the
  // attention kernels (attention.cl); F16 / F32 an element pair per work-item (rope.cl).
  const bool quantized = is_quantized_kv(c.dtype);
  const sdk::Kernel& k = kernel(quantized ? ProgramId::Attention : ProgramId::Rope,
                                "kv_store_rope_" + type_suffix(c.dtype), quantized ? type_suffix(c.dtype) : "");
  set_args(h_.cl(), k, kt.buffer, u64(kt.offset), u64(kt.nb[1]), u64(kt.nb[2]), vt.buffer,
           u64(vt.offset), u64(vt.nb[1]), u64(vt.nb[2]), c.buffer, u64(c.offset), u64(c.nb[1]),
           u64(c.nb[2]), u64(c.nb[3]), i32(kt.ne[0]), i32(kt.ne[1]), i32(kt.ne[2]),
           cl_int(op.n_past), cl_int(r.n_rot), cl_int(r.mode == 2 ? 1 : 0), r.freq_base, r.freq_scale,
           factors.buffer, u64(factors.offset), cl_int(op.n_src > 2));
  const size_t items = static_cast<size_t>(quantized ? kt.ne[1] * kt.ne[2] : element_count(kt) / 2);
  const size_t global = round_up(items, tuning_.elt_wg);
  const size_t local = tuning_.elt_wg;
  run(k, 1, &global, &local);
}

void OpRunner::attention(const clport_op& op) {
  // ROPE_KV_STORE_ATTENTION: the attention reads K and V from halves of the cache it stores into.
  const bool store = op.kind == CLPORT_OP_ROPE_KV_STORE_ATTENTION;
  clport_tensor k_half{}, v_half{};
  if (store) {
    k_half = *op.src[3];
    k_half.ne[3] = 1;
    v_half = k_half;
    v_half.offset += static_cast<uint64_t>(op.src[3]->nb[3]);
  }
  const clport_tensor &q = *op.src[0], &kc = store ? k_half : *op.src[1], &vc = store ? v_half : *op.src[2],
                      &d = *op.dst;
  const clport_tensor &kn = store ? *op.src[1] : q, &vn = store ? *op.src[2] : q;
  // K and V of one type: kernels made for it; of two types (never the fused store): the mixed
  // kernel, which takes V's strides and both types as four more arguments.
  const bool mixed = kc.dtype != vc.dtype;
  const std::string types = mixed ? "mixed" : type_suffix(kc.dtype);
  const bool serial = tuning_.att_serial == 1;
  const std::string name = std::string(serial ? "attention_serial_" : "attention_") + (store ? "store_" : "") + types;
  // Plain ATTENTION: q contiguous, no rotation.
  const bool rope = op.kind != CLPORT_OP_ATTENTION;
  const clport_rope_params& r = op.params.rope;
  const clport_attention_params& a = op.params.attention;
  const bool has_factors = op.kind == CLPORT_OP_ROPE_ATTENTION && op.n_src > 3;
  const clport_tensor& factors = has_factors ? *op.src[3] : q;
  const uint64_t q_nb1 = rope ? q.nb[1] : q.ne[0] * 4, q_nb2 = rope ? q.nb[2] : q.ne[0] * q.ne[1] * 4;
  // The arguments every attention kernel takes (the split one appends two of its own).
  auto set_attention_args = [&](const sdk::Kernel& k) {
    set_args(h_.cl(), k, q.buffer, u64(q.offset), kc.buffer, u64(kc.offset), vc.buffer,
             u64(vc.offset), u64(kc.nb[1]), u64(kc.nb[2]), d.buffer, u64(d.offset), i32(q.ne[0]),
             i32(q.ne[1]), i32(kc.ne[1]), cl_int(op.n_past), a.scale, u64(q_nb1), u64(q_nb2),
             cl_int(rope ? r.n_rot : 0), cl_int(rope && r.mode == 2 ? 1 : 0), rope ? r.freq_base : 1.0f,
             rope ? r.freq_scale : 1.0f, kn.buffer, u64(kn.offset), u64(kn.nb[1]), vn.buffer, u64(vn.offset),
             u64(vn.nb[1]), kc.buffer, u64(kc.offset), u64(store ? op.src[3]->nb[3] : 0), cl_int(a.window),
             factors.buffer, u64(factors.offset), cl_int(has_factors));
  };
  constexpr cl_uint kSplitArgs = 34;  // index of the split (or mixed) kernel's first own argument
  const size_t wg = serial ? 1 : tuning_.att_wg;
  // Serial kernels: the query heads of one KV head form a work-group, which a CPU runtime runs
  // on one core one after the other, so the second and later heads read K and V from its cache.
  // Unless that leaves fewer work-groups than compute units (an unsplit decode step of few KV
  // groups): then a work-item each.
  const int splits = attention_splits(op);
  const auto serial_local_for = [&](int64_t items_per_kv_head) {
    return kc.ne[1] * items_per_kv_head >= compute_units_ ? static_cast<size_t>(q.ne[1] / kc.ne[1]) : size_t{1};
  };
  const size_t serial_local = serial_local_for(q.ne[2] * splits);
  if (splits > 1) {
    const size_t part_bytes = attention_part_bytes(1, q.ne[1], q.ne[0], splits);
    if (cl_mem part = attention_parts_.grow(part_bytes); part != nullptr) {
      const std::string split_name = serial ? "attention_serial_split_store_" : "attention_split_store_";
      const sdk::Kernel& ks = kernel(ProgramId::Attention, split_name + types, types);
      set_attention_args(ks);
      sdk::detail::set_one(h_.cl(), ks, kSplitArgs, cl_int(splits));
      sdk::detail::set_one(h_.cl(), ks, kSplitArgs + 1, part);
      const size_t global_s[2] = {static_cast<size_t>(q.ne[1]) * wg, static_cast<size_t>(splits)};
      const size_t local_s[2] = {serial ? serial_local : wg, 1};
      run(ks, 2, global_s, local_s);
      const sdk::Kernel& km = kernel(ProgramId::Attention, "attention_merge", types);
      set_args(h_.cl(), km, part, cl_int(splits), i32(q.ne[0]), d.buffer, u64(d.offset));
      const size_t global_m[2] = {round_up(static_cast<size_t>(q.ne[0]), 64), static_cast<size_t>(q.ne[1])};
      const size_t local_m[2] = {64, 1};
      run(km, 2, global_m, local_m);
      return;
    }
  }
  // A prompt on a CPU device with an F16 cache: two tokens a work-item, each shared key and value
  // row converted once for both (attention_serial.cl).
  if (serial && !store && !mixed && kc.dtype == CLPORT_DTYPE_F16 && q.ne[2] >= 2) {
    const sdk::Kernel& kp = kernel(ProgramId::Attention, "attention_serial_pair_f16", types);
    set_attention_args(kp);
    sdk::detail::set_one(h_.cl(), kp, kSplitArgs, i32(q.ne[2]));
    const size_t pairs = static_cast<size_t>((q.ne[2] + 1) / 2);
    const size_t global_p[2] = {static_cast<size_t>(q.ne[1]), pairs};
    const size_t local_p[2] = {serial_local_for(static_cast<int64_t>(pairs)), 1};
    run(kp, 2, global_p, local_p);
    return;
  }
  const sdk::Kernel& k = kernel(ProgramId::Attention, name, types);
  set_attention_args(k);
  if (mixed) {
    sdk::detail::set_one(h_.cl(), k, kSplitArgs, u64(vc.nb[1]));
    sdk::detail::set_one(h_.cl(), k, kSplitArgs + 1, u64(vc.nb[2]));
    sdk::detail::set_one(h_.cl(), k, kSplitArgs + 2, cl_int(kc.dtype));
    sdk::detail::set_one(h_.cl(), k, kSplitArgs + 3, cl_int(vc.dtype));
  }
  const size_t global[2] = {static_cast<size_t>(q.ne[1]) * wg, static_cast<size_t>(q.ne[2])};
  const size_t local[2] = {serial ? serial_local : wg, 1};
  run(k, 2, global, local);
}

int OpRunner::attention_splits(const clport_op& op) const {
  if (op.kind != CLPORT_OP_ROPE_KV_STORE_ATTENTION || tuning_.att_split != 1 || op.src[0]->ne[2] != 1) return 1;
  // Enough work-groups for a few per compute unit, each range at least att_split_keys keys. The
  // serial kernels of CPU devices take 8 (head, range) work-items per core: their work-groups
  // are whole KV groups (a single one for Gemma 3 270M's 4 heads), and with few ranges a count
  // that does not divide among the cores leaves one idle for a whole range.
  const int64_t n_head = op.src[0]->ne[1], n_past = op.n_past, window = op.params.attention.window;
  const int64_t cached = window > 0 ? std::min<int64_t>(n_past, window - 1) : n_past;
  // A CPU's merge launch costs about what a range of 200 keys does (PoCL, Gemma 3 270M decode):
  // serial ranges take 4x att_split_keys.
  const bool serial = tuning_.att_serial == 1;
  const int64_t by_keys = cached / (static_cast<int64_t>(tuning_.att_split_keys) * (serial ? 4 : 1));
  const int64_t per_unit = serial ? 8 : 4;
  const int64_t by_groups = (per_unit * static_cast<int64_t>(compute_units_) + n_head - 1) / n_head;
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>({by_keys, by_groups, 256})));
}

void OpRunner::softmax(const clport_op& op) {
  const clport_tensor &x = *op.src[0], &d = *op.dst;
  const sdk::Kernel& k = kernel(ProgramId::Softmax, "softmax_f32");
  set_args(h_.cl(), k, x.buffer, u64(x.offset), d.buffer, u64(d.offset), i32(x.ne[0]),
           op.params.scale);
  const size_t rows = static_cast<size_t>(element_count(x) / x.ne[0]);
  const size_t global[2] = {tuning_.softmax_wg, rows}, local[2] = {tuning_.softmax_wg, 1};
  run(k, 2, global, local);
}

void OpRunner::unary(const clport_op& op) {
  const clport_tensor &x = *op.src[0], &d = *op.dst;
  const cl_uint n = u32(element_count(x));
  const bool scale = op.kind == CLPORT_OP_SCALE;
  const sdk::Kernel& k = kernel(ProgramId::Elementwise, scale ? "scale_f32" : "silu_f32");
  if (scale) {
    set_args(h_.cl(), k, x.buffer, u64(x.offset), d.buffer, u64(d.offset), n, op.params.scale);
  } else {
    set_args(h_.cl(), k, x.buffer, u64(x.offset), d.buffer, u64(d.offset), n);
  }
  const size_t global = round_up(n, tuning_.elt_wg), local = tuning_.elt_wg;
  run(k, 1, &global, &local);
}

void OpRunner::binary(const clport_op& op) {
  const clport_tensor &a = *op.src[0], &b = *op.src[1], &d = *op.dst;
  const cl_uint n = u32(element_count(a));
  if (op.kind == CLPORT_OP_SWIGLU || op.kind == CLPORT_OP_GEGLU) {
    const sdk::Kernel& k = kernel(ProgramId::Elementwise, op.kind == CLPORT_OP_SWIGLU ? "swiglu_f32" : "geglu_f32");
    set_args(h_.cl(), k, a.buffer, u64(a.offset), b.buffer, u64(b.offset), d.buffer,
             u64(d.offset), n);
    const size_t global = round_up(n, tuning_.elt_wg), local = tuning_.elt_wg;
    return run(k, 1, &global, &local);
  }
  const sdk::Kernel& k =
      kernel(ProgramId::Elementwise, op.kind == CLPORT_OP_ADD ? "add_f32" : "mul_f32");
  set_args(h_.cl(), k, a.buffer, u64(a.offset), b.buffer, u64(b.offset), d.buffer, u64(d.offset),
           n, ne4(a), ne4(b));
  const size_t global = round_up(n, tuning_.elt_wg), local = tuning_.elt_wg;
  run(k, 1, &global, &local);
}

void OpRunner::copy(const clport_op& op) {
  const clport_tensor &s = *op.src[0], &d = *op.dst;
  if (is_quantized_kv(d.dtype)) {
    // Into a quantized cache slot: a row of blocks per work-item (attention.cl, next to the
    // quantizer of the fused stores); same shapes (check_copy).
    const cl_uint rows = u32(s.ne[1] * s.ne[2] * s.ne[3]);
    const sdk::Kernel& k = kernel(ProgramId::Attention, "copy_f32_" + type_suffix(d.dtype), type_suffix(d.dtype));
    set_args(h_.cl(), k, s.buffer, u64(s.offset), ne4(s), nb4(s), d.buffer, u64(d.offset), ne4(d), nb4(d), rows);
    const size_t global = round_up(rows, tuning_.elt_wg), local = tuning_.elt_wg;
    return run(k, 1, &global, &local);
  }
  const cl_uint n = u32(element_count(s));
  const std::string name = "copy_" + type_suffix(s.dtype) + "_" + type_suffix(d.dtype);
  const sdk::Kernel& k = kernel(ProgramId::Copy, name);
  set_args(h_.cl(), k, s.buffer, u64(s.offset), ne4(s), nb4(s), d.buffer, u64(d.offset), ne4(d),
           nb4(d), n);
  const size_t global = round_up(n, tuning_.elt_wg), local = tuning_.elt_wg;
  run(k, 1, &global, &local);
}

}  // namespace clport::plugin_common
