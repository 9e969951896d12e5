// The registration list and the lookups over it. An entry is built once, on first use, so no
// static initialisation order matters and a static link cannot drop an op's file.
#include "ops/op_registry.h"

#include <array>
#include <string>

#include "ops/registry/entries.h"

namespace clport::ops {
namespace {

struct Table {
  std::vector<OpEntry> entries;
  std::vector<const OpEntry*> ordered;
  std::array<const OpEntry*, CLPORT_OP_COUNT_> by_kind{};

  Table()
      : entries{registry::get_rows(),
                registry::rms_norm(),
                registry::mul_mat(),
                registry::rope(),
                registry::attention(),
                registry::softmax(),
                registry::silu(),
                registry::swiglu(),
                registry::add(),
                registry::mul(),
                registry::scale(),
                registry::copy(),
                registry::rms_norm_mul_mat(),
                registry::mul_mat_add(),
                registry::rms_norm_mul_mat_swiglu(),
                registry::kv_store_rope(),
                registry::rope_attention(),
                registry::rope_kv_store_attention(),
                registry::geglu(),
                registry::kv_store_rope_cells(),
                registry::rope_attention_cells()} {
    for (const OpEntry& e : entries) {
      if (e.kind >= 0 && e.kind < CLPORT_OP_COUNT_ && by_kind[e.kind] == nullptr) by_kind[e.kind] = &e;
    }
    for (const OpEntry* e : by_kind)
      if (e != nullptr) ordered.push_back(e);
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

const OpEntry* find(int32_t kind) {
  if (kind < 0 || kind >= CLPORT_OP_COUNT_) return nullptr;
  return table().by_kind[static_cast<size_t>(kind)];
}

const std::vector<const OpEntry*>& all() { return table().ordered; }

Status run_reference(clport_op_kind kind, const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams& p,
                     int n_threads) {
  const OpEntry* op = find(kind);
  if (op == nullptr || op->reference == nullptr) {
    return Status(Stage::Unsupported,
                  "cpu: op kind " + std::to_string(static_cast<int>(kind)) + " is not implemented");
  }
  if (op->check != nullptr) CLPORT_RETURN_IF_ERROR(op->check(src, dst, p));
  return op->reference(src, dst, p, n_threads);
}

}  // namespace clport::ops

namespace clport {

const char* op_kind_name(int32_t kind) {
  const ops::OpEntry* op = ops::find(kind);
  return op != nullptr ? op->name : "?";
}

}  // namespace clport
