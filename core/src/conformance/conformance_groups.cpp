#include "conformance_groups.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

#include "common/nmse.h"
#include "conformance_operands.h"

namespace clport::conformance::detail {
namespace {

constexpr double kExactNmse = 1e-6;  // float activations, against the exact reference

OperandSpec operand(DType d, std::array<int64_t, 4> ne) {
  OperandSpec o;
  o.dtype = d;
  o.ne = ne;
  return o;
}

// A view of `base`'s buffer: another shape and strides, element 0 `byte_offset` further.
Operand view_of(const Operand& base, std::array<int64_t, 4> ne, std::array<int64_t, 4> nb, int64_t byte_offset) {
  Operand v = base;
  v.spec.ne = ne;
  v.nb = nb;
  v.tensor_offset += byte_offset;
  return v;
}

// The layer's operands, in upload order; q, k, v and the attention row are views of two of them.
struct LayerOperands {
  // X_OUT: the down projection's residual sum goes to a slot of its own (a model's plan writes
  // it over x), so that x after the output projection, the FFN's input, is seen as well.
  enum Slot { X, ATTN_NORM, WQKV, QKV, CACHE, ATTN, WO, FFN_NORM, GATE, UP, ACT, DOWN, X_OUT, COUNT };
  std::vector<Operand> slots;
  Operand q, k, v, attn_row;

  LayerOperands(const LayerGroupSpec& s, std::mt19937_64& rng) {
    const int64_t nq = s.heads * s.head_dim, nkv = s.kv_heads * s.head_dim, nqkv = nq + 2 * nkv;
    // The attention norm's weights keep q and k elements near 2 whatever the width, so scores
    // stay in a model's range: with unit weights the 70B-width case's scores were hundreds, a
    // softmax so sharp that a near-tie between two keys turned the rotation's rounding at
    // position 700 (the kernel's angle in float, the reference's in double) into 4e-6 and
    // 1.3e-5 of its attention row (H100, two seeds of six; 1.1e-10 with these weights under
    // oclgrind on one of them, 4.7e-7 before).
    OperandSpec attn_norm = operand(DType::F32, {s.embd, 1, 1, 1});
    attn_norm.scale = 2.0f / std::sqrt(static_cast<float>(s.embd));
    const std::pair<OperandSpec, bool> specs[COUNT] = {
        {operand(DType::F32, {s.embd, 1, 1, 1}), false},      {attn_norm, false},
        {operand(s.weight, {s.embd, nqkv, 1, 1}), false},      {operand(DType::F32, {nqkv, 1, 1, 1}), true},
        {operand(s.kv, {s.head_dim, s.kv_heads, s.n_ctx, 2}), false}, {operand(DType::F32, {s.head_dim, s.heads, 1, 1}), true},
        {operand(s.weight, {nq, s.embd, 1, 1}), false},        {operand(DType::F32, {s.embd, 1, 1, 1}), false},
        {operand(s.weight, {s.embd, s.ff, 1, 1}), false},      {operand(s.weight, {s.embd, s.ff, 1, 1}), false},
        {operand(DType::F32, {s.ff, 1, 1, 1}), true},          {operand(s.weight, {s.ff, s.embd, 1, 1}), false},
        {operand(DType::F32, {s.embd, 1, 1, 1}), true}};
    for (const auto& [spec, output] : specs) slots.push_back(make_operand(spec, output, rng));
    const Operand& qkv = slots[QKV];
    const int64_t row = nqkv * 4;
    q = view_of(qkv, {s.head_dim, s.heads, 1, 1}, {4, s.head_dim * 4, row, row}, 0);
    k = view_of(qkv, {s.head_dim, s.kv_heads, 1, 1}, {4, s.head_dim * 4, row, row}, nq * 4);
    v = view_of(qkv, {s.head_dim, s.kv_heads, 1, 1}, {4, s.head_dim * 4, row, row}, (nq + nkv) * 4);
    attn_row = view_of(slots[ATTN], {nq, 1, 1, 1}, {4, nq * 4, nq * 4, nq * 4}, 0);
  }
};

struct OpShape {
  clport_op_kind kind;
  std::vector<const Operand*> src;
  const Operand* dst;
  cpu::OpParams params;
};

std::vector<OpShape> layer_ops(const LayerGroupSpec& s, const LayerOperands& o) {
  using L = LayerOperands;
  const auto& t = o.slots;
  cpu::OpParams norm;
  norm.eps = 1e-5f;
  cpu::OpParams attention;
  attention.n_past = s.n_past;
  attention.rope.mode = s.rope_mode;
  attention.rope.n_rot = static_cast<int32_t>(s.head_dim);
  attention.rope.freq_base = 10000.0f;
  attention.rope.freq_scale = 1.0f;
  attention.attention.scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  attention.attention.window = s.window;
  return {{CLPORT_OP_RMS_NORM_MUL_MAT, {&t[L::WQKV], &t[L::X], &t[L::ATTN_NORM]}, &t[L::QKV], norm},
          {CLPORT_OP_ROPE_KV_STORE_ATTENTION, {&o.q, &o.k, &o.v, &t[L::CACHE]}, &t[L::ATTN], attention},
          {CLPORT_OP_MUL_MAT_ADD, {&t[L::WO], &o.attn_row, &t[L::X]}, &t[L::X], {}},
          {CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU, {&t[L::GATE], &t[L::X], &t[L::FFN_NORM], &t[L::UP]}, &t[L::ACT], norm},
          {CLPORT_OP_MUL_MAT_ADD, {&t[L::DOWN], &t[L::ACT], &t[L::X]}, &t[L::X_OUT], {}}};
}

// Which slot's bytes an operand (or a view of one) lives in.
size_t slot_of(const LayerOperands& o, const Operand* op) {
  using L = LayerOperands;
  if (op == &o.q || op == &o.k || op == &o.v) return L::QKV;
  if (op == &o.attn_row) return L::ATTN;
  return static_cast<size_t>(op - o.slots.data());
}

// The five ops through the CPU reference on host copies of every slot.
Status run_reference(const LayerOperands& o, const std::vector<OpShape>& ops, bool quantized,
                     std::vector<std::vector<uint8_t>>& bytes) {
  for (const OpShape& op : ops) {
    std::vector<cpu::HostTensor> src;
    for (const Operand* s : op.src) src.push_back(s->host_view(bytes[slot_of(o, s)]));
    cpu::OpParams p = op.params;
    p.quantized_activations = quantized;
    CLPORT_RETURN_IF_ERROR(cpu::run_op(op.kind, src, op.dst->host_view(bytes[slot_of(o, op.dst)]), p));
  }
  return Status();
}

// ROPE_KV_STORE_ATTENTION's reference as its two parts: this token's key and value stored into
// the cache in `bytes`, and the attention of q (a view of bytes' Q/K/V) over `device_cache` (the
// device's, this token's key and value as the device stored them) into `attn`.
Status reference_store_then_attention(const LayerOperands& o, const OpShape& op,
                                      std::vector<std::vector<uint8_t>>& bytes, std::vector<uint8_t> device_cache,
                                      std::vector<uint8_t>& attn) {
  using L = LayerOperands;
  CLPORT_RETURN_IF_ERROR(cpu::run_op(CLPORT_OP_KV_STORE_ROPE, {o.k.host_view(bytes[L::QKV]), o.v.host_view(bytes[L::QKV])},
                                     o.slots[L::CACHE].host_view(bytes[L::CACHE]), op.params));
  const cpu::KvHalves kv = cpu::kv_halves(o.slots[L::CACHE].host_view(device_cache));
  return cpu::run_op(CLPORT_OP_ROPE_ATTENTION, {o.q.host_view(bytes[L::QKV]), kv.k, kv.v},
                     o.slots[L::ATTN].host_view(attn), op.params);
}

// The rounding (8-bit activation) reference op by op: each op on the inputs the device gave it
// (Q/K/V, the KV-cache slot, the attention row, x after the output projection, the FFN
// activations), so that a near-tie in one activation's rounding (the kernel's sums run in
// another order than the CPU's) moves one op's output by a code's worth instead of being carried
// through the softmax and every op after it; a wrong op still shows at its own output. The
// attention reads the cache the device stored into: the kernel rotates this token's key by an
// angle in float, the reference by one in double, so some of its elements round to the
// neighbouring f16 (22 of the 70B-width case's 2048 under oclgrind), which the softmax would
// carry into the attention row; the store itself is judged at the cache. bytes: the initial
// slots in, each slot's reference output out.
Status run_rounding_reference_stepwise(const LayerOperands& o, const std::vector<OpShape>& ops,
                                       const std::vector<std::vector<uint8_t>>& device,
                                       std::vector<std::vector<uint8_t>>& bytes) {
  using L = LayerOperands;
  std::vector<std::vector<uint8_t>> outputs = bytes;
  for (const OpShape& op : ops) {
    const size_t dst = slot_of(o, op.dst);
    if (op.kind == CLPORT_OP_ROPE_KV_STORE_ATTENTION) {
      CLPORT_RETURN_IF_ERROR(reference_store_then_attention(o, op, bytes, device[L::CACHE], outputs[dst]));
      outputs[L::CACHE] = bytes[L::CACHE];
      bytes[L::CACHE] = device[L::CACHE];
    } else {
      CLPORT_RETURN_IF_ERROR(run_reference(o, {op}, true, bytes));
      outputs[dst] = bytes[dst];
    }
    bytes[dst] = device[dst];
  }
  bytes = std::move(outputs);
  return Status();
}

}  // namespace

std::string LayerGroupSpec::name() const {
  return "layer group " + std::string(dtype_name(weight)) + " kv " + std::string(dtype_name(kv)) +
         (rope_mode == 2 ? " neox" : "") +
         " embd=" + std::to_string(embd) + " h=" + std::to_string(heads) + "/" + std::to_string(kv_heads) +
         " hd=" + std::to_string(head_dim) + " ff=" + std::to_string(ff) + " past=" + std::to_string(n_past) +
         (window > 0 ? " win=" + std::to_string(window) : "");
}

std::vector<LayerGroupSpec> layer_group_catalogue(bool small) {
  std::vector<LayerGroupSpec> out;
  for (DType w : {DType::Q4_0, DType::Q4_1, DType::Q8_0}) {
    LayerGroupSpec s;
    s.weight = w;
    out.push_back(s);
    if (small) return out;
  }
  LayerGroupSpec longer;  // many keys per range, NeoX pairs, an F32 cache, 64-wide heads
  longer.weight = DType::Q8_0;
  longer.kv = DType::F32;
  longer.rope_mode = 2;
  longer.head_dim = 64;
  longer.n_past = 300;
  out.push_back(longer);
  LayerGroupSpec wide;  // 128-wide heads (Llama 3, the 8B shape): 16 work-items a key
  wide.weight = DType::Q4_0;
  wide.embd = 512;
  wide.head_dim = 128;
  wide.ff = 512;
  wide.n_past = 450;
  out.push_back(wide);
  LayerGroupSpec grouped;  // four query heads a KV head (Llama 3 8B / 70B), as one attention item takes them
  grouped.weight = DType::Q4_0;
  grouped.embd = 512;
  grouped.heads = 8;
  grouped.kv_heads = 2;
  grouped.head_dim = 64;
  grouped.ff = 512;
  grouped.n_ctx = 5120;
  // A long cache: on an H200's 132 work-groups items of one head over ranges of 313 keys; with
  // nv_layer_groups 8 (a few ranges a head), items of four heads.
  grouped.n_past = 5000;
  out.push_back(grouped);
  LayerGroupSpec wide_ffn;  // the 70B shape's head groups and 28672-wide down projection
  wide_ffn.weight = DType::Q4_0;
  wide_ffn.embd = 1024;
  wide_ffn.heads = 64;
  wide_ffn.kv_heads = 8;
  wide_ffn.head_dim = 128;
  wide_ffn.ff = 28672;
  wide_ffn.n_ctx = 1024;
  wide_ffn.n_past = 700;
  out.push_back(wide_ffn);
  LayerGroupSpec windowed = grouped;  // a sliding window: the ranges start at n_past - window + 1
  windowed.window = 1000;
  out.push_back(windowed);
  return out;
}

CaseResult run_layer_group(DeviceContext& ctx, const clport_plugin& table, clport_plugin_instance* instance,
                           const LayerGroupSpec& spec, std::mt19937_64& rng) {
  CaseResult r;
  r.name = spec.name();
  r.op = "layer group";
  r.dtype = std::string(dtype_name(spec.weight));
  r.shape = r.name.substr(r.name.find("embd="));
  r.threshold = kExactNmse;
  if (!CLPORT_PLUGIN_HAS_PREPARE_GROUP(&table)) {
    r.message = "not supported by the plugin";
    return r;
  }
  LayerOperands o(spec, rng);
  const std::vector<OpShape> shapes = layer_ops(spec, o);
  const clport_cl_api& cl = ctx.cl();
  std::vector<void*> layouts;
  const auto release = [&] {
    (void)ctx.finish();
    for (void* l : layouts) table.release_layout(instance, l);
    for (Operand& s : o.slots)
      if (s.buffer != nullptr) cl.clReleaseMemObject(s.buffer);
  };
  const auto fail = [&](const std::string& why) {
    release();
    r.message = why;
    return r;
  };

  for (Operand& s : o.slots) {
    cl_int err = CL_SUCCESS;
    s.buffer = cl.clCreateBuffer(ctx.context(), CL_MEM_READ_WRITE, s.initial.size(), nullptr, &err);
    if (s.buffer == nullptr || err != CL_SUCCESS) return fail("clCreateBuffer failed");
    if (Status st = ctx.write(s.buffer, 0, s.initial.data(), s.initial.size()); !st.ok()) return fail(st.message());
  }
  for (Operand* view : {&o.q, &o.k, &o.v}) view->buffer = o.slots[LayerOperands::QKV].buffer;
  o.attn_row.buffer = o.slots[LayerOperands::ATTN].buffer;

  // Device views: the weights in the plugin's layout, as a model's are.
  std::vector<std::vector<clport_tensor>> views(shapes.size());
  std::vector<clport_op> ops(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    for (const Operand* s : shapes[i].src) views[i].push_back(s->device_view(true));
    views[i].push_back(shapes[i].dst->device_view(true));
  }
  const std::pair<size_t, size_t> weights[] = {{0, 0}, {2, 0}, {3, 0}, {3, 3}, {4, 0}};  // (op, source)
  for (const auto& [i, w] : weights) {
    if (table.prepare_weight == nullptr) break;
    void* layout = nullptr;
    int32_t owns = 0;
    clport_plugin_error* error = nullptr;
    const int32_t rc = table.prepare_weight(instance, &views[i][w], &layout, &owns, &error);
    if (error != nullptr) take_plugin_error(table, error);
    if (rc == CLPORT_PLUGIN_OK && layout != nullptr) {
      views[i][w].layout = layout;
      layouts.push_back(layout);
    }
  }
  std::vector<const clport_op*> op_ptrs;
  for (size_t i = 0; i < shapes.size(); ++i) {
    clport_op& op = ops[i];
    op.struct_size = sizeof(clport_op);
    op.kind = shapes[i].kind;
    op.n_src = static_cast<int32_t>(shapes[i].src.size());
    for (size_t s = 0; s < shapes[i].src.size(); ++s) op.src[s] = &views[i][s];
    op.dst = &views[i].back();
    op.n_past = shapes[i].params.n_past;
    op.params = shapes[i].params.abi();
    if (table.claim_op(instance, &op) == 0) {
      release();
      r.message = "not supported by the plugin";
      return r;
    }
    op_ptrs.push_back(&op);
  }

  clport_launch* launch = nullptr;
  clport_plugin_error* error = nullptr;
  int32_t rc = table.prepare_group(instance, op_ptrs.data(), op_ptrs.size(), &launch, &error);
  if (rc == CLPORT_PLUGIN_UNSUPPORTED) {
    if (error != nullptr) take_plugin_error(table, error);
    release();
    r.message = "not supported by the plugin";
    return r;
  }
  r.supported = true;
  if (rc != CLPORT_PLUGIN_OK || launch == nullptr)
    return fail("prepare_group returned " + std::to_string(rc) + ": " + take_plugin_error(table, error));
  const auto t0 = std::chrono::steady_clock::now();
  const clport_step step{sizeof(clport_step), spec.n_past};
  rc = table.enqueue_launch(instance, launch, &step, &error);
  Status finished = ctx.finish();
  table.release_launch(instance, launch);
  if (rc != CLPORT_PLUGIN_OK)
    return fail("the launch returned " + std::to_string(rc) + ": " + take_plugin_error(table, error));
  if (!finished.ok()) return fail(finished.message());
  r.millis = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  std::vector<std::vector<uint8_t>> exact, rounded, got;
  for (const Operand& s : o.slots) {
    exact.push_back(s.initial);
    got.emplace_back(s.initial.size());
    if (Status st = ctx.read(s.buffer, 0, got.back().data(), got.back().size()); !st.ok()) return fail(st.message());
  }
  rounded = exact;
  if (Status st = run_reference(o, shapes, false, exact); !st.ok()) return fail("CPU reference failed: " + st.to_string());
  if (Status st = run_rounding_reference_stepwise(o, shapes, got, rounded); !st.ok())
    return fail("CPU reference failed: " + st.to_string());

  // Every written slot against both references; every other slot unchanged.
  using L = LayerOperands;
  double worst_exact = 0.0, worst_rounded = 0.0;
  size_t worst_exact_slot = 0, worst_rounded_slot = 0;
  for (size_t i = 0; i < o.slots.size(); ++i) {
    const bool written =
        i == L::X || i == L::QKV || i == L::CACHE || i == L::ATTN || i == L::ACT || i == L::X_OUT;
    if (!written) {
      if (got[i] != o.slots[i].initial) return fail("operand " + std::to_string(i) + " was modified by the group");
      continue;
    }
    if (std::string damage = check_untouched(o.slots[i], got[i]); !damage.empty())
      return fail("operand " + std::to_string(i) + ": " + damage);
    const std::vector<float> have = gather_values(o.slots[i], got[i]);
    const std::vector<float> want = gather_values(o.slots[i], exact[i]);
    const std::vector<float> want_q = gather_values(o.slots[i], rounded[i]);
    const double e = nmse(want.data(), have.data(), want.size()), q = nmse(want_q.data(), have.data(), want_q.size());
    if (!(e <= worst_exact)) worst_exact_slot = i;
    if (!(q <= worst_rounded)) worst_rounded_slot = i;
    worst_exact = std::max(worst_exact, std::isnan(e) ? INFINITY : e);
    worst_rounded = std::max(worst_rounded, std::isnan(q) ? INFINITY : q);
  }
  release();
  r.nmse = worst_exact;
  r.nmse_quantized = worst_rounded;
  // Float activations are held to the exact reference; 8-bit ones to the reference that rounds
  // them the same way, op by op from the device's values, at the same bound.
  if (worst_exact <= kExactNmse) {
    r.passed = true;
  } else if (worst_rounded <= kExactNmse) {
    r.threshold = std::numeric_limits<double>::infinity();
    r.passed = true;
  } else {
    r.message = "NMSE " + std::to_string(worst_exact) + " against the exact reference (operand " +
                std::to_string(worst_exact_slot) + "), " + std::to_string(worst_rounded) +
                " against the rounding one (operand " + std::to_string(worst_rounded_slot) + ")";
  }
  return r;
}

}  // namespace clport::conformance::detail
