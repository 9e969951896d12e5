// Op routing: layout owner first, then the best-ranked instance that supports the op, else CPU.
#include <array>
#include <string>
#include <utility>

#include "binding/binding.h"
#include "common/dtype.h"
#include "clport/log.h"
#include "binding/op_desc.h"
#include "binding/plugin_status.h"
#include "ops/op_registry.h"

namespace clport {
namespace {

// Turns a plugin's status + error object into a Status, freeing the error object.
Status plugin_status(const BoundInstance& inst, int32_t rc, clport_plugin_error* error, const std::string& what) {
  return plugin_call_status(inst.table(), inst.name(), rc, error, what);
}

}  // namespace

const BoundInstance* DeviceBinding::owner_of_layout(const clport_op& op) const {
  std::lock_guard<std::mutex> lock(layouts_mutex_);
  for (int i = 0; i < op.n_src && i < 4; ++i) {
    if (op.src[i] == nullptr || op.src[i]->layout == nullptr) continue;
    for (const auto& [layout, owner] : layouts_) {
      if (layout == op.src[i]->layout) return owner.lock().get();
    }
  }
  return nullptr;
}

const BoundInstance* DeviceBinding::select(const clport_op& op) const {
  // A repacked weight can only be read by the plugin that packed it.
  if (const BoundInstance* owner = owner_of_layout(op)) return owner->supports(op) ? owner : nullptr;
  for (const auto& inst : instances_) {
    if (inst->supports(op) && !excluded(inst->name(), op)) return inst.get();
  }
  return nullptr;
}

Status DeviceBinding::enqueue(const clport_op& op) const {
  const BoundInstance* inst = select(op);
  if (inst == nullptr) {
    return Status(Stage::Unsupported, std::string("no plugin on this device runs ") + op_kind_name(op.kind) +
                                          " with these operands: use the CPU path");
  }
  return enqueue_on(*inst, op);
}

Status DeviceBinding::enqueue_on(const BoundInstance& inst, const clport_op& op) const {
  auto launch = prepare_launch(inst, op);
  if (!launch.ok()) return launch.status();
  return launch.value().enqueue(op.n_past);
}

std::shared_ptr<BoundInstance> DeviceBinding::shared(const BoundInstance* instance) const {
  for (const auto& inst : instances_) {
    if (inst.get() == instance) return inst;
  }
  return nullptr;
}

Result<PreparedLaunch> DeviceBinding::prepare_launch(const BoundInstance& inst, const clport_op& op) const {
  std::shared_ptr<BoundInstance> owner = shared(&inst);
  if (!owner) return Status(Stage::Internal, "prepare_launch: plugin '" + inst.name() + "' is not bound here");
  return PreparedLaunch::prepare(inst.table(), inst.handle(), inst.name(), op, std::move(owner));
}

Result<PreparedLaunch> DeviceBinding::prepare_group(const BoundInstance& inst,
                                                    const std::vector<const clport_op*>& ops) const {
  std::shared_ptr<BoundInstance> owner = shared(&inst);
  if (!owner) return Status(Stage::Internal, "prepare_group: plugin '" + inst.name() + "' is not bound here");
  return PreparedLaunch::prepare_group(inst.table(), inst.handle(), inst.name(), ops, std::move(owner));
}

Result<std::vector<ScratchNeed>> DeviceBinding::scratch_needs(const clport_op& op) const {
  std::vector<ScratchNeed> out;
  const BoundInstance* inst = select(op);
  if (inst == nullptr || !CLPORT_PLUGIN_HAS_SCRATCH_NEEDS(&inst->table())) return out;
  // Room for a few names first; a plugin that names more says how many, and is asked again.
  std::vector<clport_scratch_need> needs(8);
  for (int attempt = 0; attempt < 2; ++attempt) {
    size_t n = 0;
    clport_plugin_error* error = nullptr;
    int32_t rc = CLPORT_PLUGIN_ERROR;
    try {
      rc = inst->table().scratch_needs(inst->handle(), &op, needs.data(), needs.size(), &n, &error);
    } catch (...) {
      return Status(Stage::Plugin, "plugin '" + inst->name() + "' threw in scratch_needs");
    }
    Status st = plugin_status(*inst, rc, error, "scratch_needs");
    if (!st.ok()) return st;
    if (n > needs.size()) {
      needs.resize(n);
      continue;
    }
    for (size_t i = 0; i < n; ++i)
      out.push_back({inst->name(), needs[i].name != nullptr ? needs[i].name : "scratch", needs[i].bytes});
    return out;
  }
  return Status(Stage::Plugin, "plugin '" + inst->name() + "' named more scratch buffers on a second call to scratch_needs");
}

Result<WeightLayout> DeviceBinding::prepare_weight(clport_op_kind kind, const clport_tensor& weight) const {
  if (kind != CLPORT_OP_MUL_MAT && kind != CLPORT_OP_GET_ROWS) {
    return Status(Stage::InvalidArgument, "prepare_weight: only MUL_MAT and GET_ROWS weights are repacked");
  }
  // The op this weight will feed, as the decode path issues it.
  clport_tensor w = weight;
  w.layout = nullptr;
  const clport_tensor other = kind == CLPORT_OP_MUL_MAT
                                  ? contiguous_tensor(CLPORT_DTYPE_F32, {weight.ne[0], 1, 1, 1}, 2)
                                  : contiguous_tensor(CLPORT_DTYPE_I32, {1, 1, 1, 1}, 1);
  const clport_tensor dst =
      contiguous_tensor(CLPORT_DTYPE_F32, {kind == CLPORT_OP_MUL_MAT ? weight.ne[1] : weight.ne[0], 1, 1, 1}, 2);
  const clport_op op = two_source_op(kind, w, other, dst);
  const BoundInstance* chosen = select(op);
  if (chosen == nullptr || chosen->table().prepare_weight == nullptr) return WeightLayout();
  const std::shared_ptr<BoundInstance> owner = shared(chosen);
  void* layout = nullptr;
  int32_t owns_weight = 0;
  clport_plugin_error* error = nullptr;
  int32_t rc = CLPORT_PLUGIN_ERROR;
  try {
    rc = owner->table().prepare_weight(owner->handle(), &weight, &layout, &owns_weight, &error);
  } catch (...) {
    return Status(Stage::Plugin, "plugin '" + owner->name() + "' threw in prepare_weight");
  }
  if (rc == CLPORT_PLUGIN_UNSUPPORTED) {
    if (error != nullptr) owner->table().release_error(error);
    return WeightLayout();  // plain layout
  }
  Status st = plugin_status(*owner, rc, error, "prepare_weight");
  if (!st.ok()) return st;
  if (layout == nullptr) return WeightLayout();
  std::lock_guard<std::mutex> lock(layouts_mutex_);
  layouts_.emplace_back(layout, owner);
  return WeightLayout(owner, layout, owns_weight != 0);
}

bool DeviceBinding::layout_owner_runs_every_mul_mat(const clport_tensor& weight, uint32_t max_rows) const {
  if (weight.layout == nullptr) return false;
  const int64_t K = weight.ne[0], N = weight.ne[1];
  clport_tensor x = contiguous_tensor(CLPORT_DTYPE_F32, {K, 1, 1, 1}, 2);
  clport_tensor dst = contiguous_tensor(CLPORT_DTYPE_F32, {N, 1, 1, 1}, 2);
  const clport_op probe = two_source_op(CLPORT_OP_MUL_MAT, weight, x, dst);
  const BoundInstance* owner = owner_of_layout(probe);
  if (owner == nullptr) return false;
  // Claims may change with the row count (a GEMV up to some rows, a GEMM beyond): ask for each.
  for (uint32_t m = 1; m <= max_rows; ++m) {
    x = contiguous_tensor(CLPORT_DTYPE_F32, {K, m, 1, 1}, 2);
    dst = contiguous_tensor(CLPORT_DTYPE_F32, {N, m, 1, 1}, 2);
    if (select(two_source_op(CLPORT_OP_MUL_MAT, weight, x, dst)) != owner) return false;
  }
  return true;
}

bool DeviceBinding::layout_owner_runs_get_rows(const clport_tensor& weight, uint32_t max_rows) const {
  if (weight.layout == nullptr) return false;
  const int64_t D = weight.ne[0];
  const clport_tensor probe_ids = contiguous_tensor(CLPORT_DTYPE_I32, {1, 1, 1, 1}, 1);
  const clport_tensor probe_dst = contiguous_tensor(CLPORT_DTYPE_F32, {D, 1, 1, 1}, 2);
  const BoundInstance* owner = owner_of_layout(two_source_op(CLPORT_OP_GET_ROWS, weight, probe_ids, probe_dst));
  if (owner == nullptr) return false;
  for (uint32_t n = 1; n <= max_rows; ++n) {
    const clport_tensor ids = contiguous_tensor(CLPORT_DTYPE_I32, {n, 1, 1, 1}, 1);
    const clport_tensor dst = contiguous_tensor(CLPORT_DTYPE_F32, {D, n, 1, 1}, 2);
    if (select(two_source_op(CLPORT_OP_GET_ROWS, weight, ids, dst)) != owner) return false;
  }
  return true;
}

std::vector<OpBindingRow> DeviceBinding::summary() const {
  std::vector<OpBindingRow> rows;
  auto add = [&](int32_t kind, std::string dtype, std::string variant, std::initializer_list<clport_tensor> srcs,
                 clport_tensor dst, std::array<int32_t, 4> ip = {0, 0, 0, 0}) {
    std::vector<clport_tensor> storage(srcs);
    clport_op op{};
    op.struct_size = sizeof(op);
    op.kind = kind;
    op.n_src = static_cast<int32_t>(storage.size());
    for (size_t i = 0; i < storage.size(); ++i) op.src[i] = &storage[i];
    op.dst = &dst;
    op.params.eps = 1e-5f;
    op.params.scale = 1.0f;
    op.params.rope = clport_rope_params{ip[0], ip[2], 10000.0f, 1.0f};
    op.params.attention = clport_attention_params{1.0f, ip[3]};
    const BoundInstance* inst = select(op);
    rows.push_back({op_kind_name(kind), std::move(dtype), std::move(variant), inst ? inst->name() : "cpu"});
  };
  const int64_t d = 4096, n = 8;
  const clport_tensor act = contiguous_tensor(CLPORT_DTYPE_F32, {d, n, 1, 1}, 2);
  // Op by op (then dtype), so that rows of one op stay together.
  for (const char* variant : {"gemv", "gemm"}) {
    for (DType wt : kWeightDTypes) {
      const auto dt = static_cast<clport_dtype>(wt);
      const int64_t m = std::string(variant) == "gemv" ? 1 : n;
      add(CLPORT_OP_MUL_MAT, std::string(dtype_name(wt)), variant,
          {contiguous_tensor(dt, {d, d, 1, 1}, 2), contiguous_tensor(CLPORT_DTYPE_F32, {d, m, 1, 1}, 2)},
          contiguous_tensor(CLPORT_DTYPE_F32, {d, m, 1, 1}, 2));
    }
  }
  for (DType wt : kWeightDTypes) {
    add(CLPORT_OP_GET_ROWS, std::string(dtype_name(wt)), "",
        {contiguous_tensor(static_cast<clport_dtype>(wt), {d, 32000, 1, 1}, 2),
         contiguous_tensor(CLPORT_DTYPE_I32, {n, 1, 1, 1}, 1)},
        act);
  }
  add(CLPORT_OP_RMS_NORM, "f32", "", {act, contiguous_tensor(CLPORT_DTYPE_F32, {d, 1, 1, 1}, 1)}, act);
  const clport_tensor heads = contiguous_tensor(CLPORT_DTYPE_F32, {128, 32, n, 1}, 3);
  add(CLPORT_OP_ROPE, "f32", "normal", {heads}, heads, {0, 0, 128});
  add(CLPORT_OP_ROPE, "f32", "neox", {heads}, heads, {2, 0, 128});
  for (clport_dtype kv : {CLPORT_DTYPE_F16, CLPORT_DTYPE_F32}) {
    const clport_tensor cache = contiguous_tensor(kv, {128, 8, 512, 1}, 3);
    add(CLPORT_OP_ATTENTION, kv == CLPORT_DTYPE_F16 ? "f16 kv" : "f32 kv", "", {heads, cache, cache}, heads);
    add(CLPORT_OP_ATTENTION, kv == CLPORT_DTYPE_F16 ? "f16 kv" : "f32 kv", "sliding window", {heads, cache, cache},
        heads, {0, 0, 0, 512});
  }
  add(CLPORT_OP_SOFTMAX, "f32", "", {act}, act);
  add(CLPORT_OP_SILU, "f32", "", {act}, act);
  add(CLPORT_OP_SWIGLU, "f32", "", {act, act}, act);
  add(CLPORT_OP_GEGLU, "f32", "", {act, act}, act);
  add(CLPORT_OP_ADD, "f32", "", {act, act}, act);
  add(CLPORT_OP_MUL, "f32", "", {act, act}, act);
  add(CLPORT_OP_SCALE, "f32", "", {act}, act);
  add(CLPORT_OP_COPY, "f32->f16", "", {act}, contiguous_tensor(CLPORT_DTYPE_F16, {d, n, 1, 1}, 2));
  add(CLPORT_OP_COPY, "f32->f32", "", {act}, act);
  return rows;
}

}  // namespace clport
