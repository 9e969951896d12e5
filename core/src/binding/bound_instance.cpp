// Lifetime of plugin instances and repacked weights; every call into a plugin is guarded.
#include "binding/binding.h"
#include "common/logger.h"
#include "binding/op_desc.h"

namespace clport {

BoundInstance::BoundInstance(std::shared_ptr<LoadedPlugin> plugin, clport_plugin_instance* instance,
                             int64_t rank, std::shared_ptr<void> keepalive, std::string settings)
    : keepalive_(std::move(keepalive)),
      plugin_(std::move(plugin)),
      instance_(instance),
      rank_(rank),
      settings_(std::move(settings)) {}

BoundInstance::~BoundInstance() {
  try {
    plugin_->table().destroy(instance_);
  } catch (...) {
    logger("plugins")->error("plugin '{}' threw in destroy", plugin_->name());
  }
}

bool BoundInstance::supports(const clport_op& op) const {
  try {
    return plugin_->table().claim_op(instance_, &op) != 0;
  } catch (...) {
    logger("plugins")->error("plugin '{}' threw in claim_op; treating the op as unsupported", name());
    return false;
  }
}

WeightLayout::WeightLayout(std::shared_ptr<BoundInstance> owner, void* layout, bool owns_weight)
    : owner_(std::move(owner)), layout_(layout), owns_weight_(owns_weight) {}

WeightLayout::~WeightLayout() { reset(); }

WeightLayout::WeightLayout(WeightLayout&& other) noexcept
    : owner_(std::move(other.owner_)), layout_(other.layout_), owns_weight_(other.owns_weight_) {
  other.layout_ = nullptr;
  other.owns_weight_ = false;
}

WeightLayout& WeightLayout::operator=(WeightLayout&& other) noexcept {
  if (this != &other) {
    reset();
    owner_ = std::move(other.owner_);
    layout_ = other.layout_;
    owns_weight_ = other.owns_weight_;
    other.layout_ = nullptr;
    other.owns_weight_ = false;
  }
  return *this;
}

void WeightLayout::reset() {
  if (owner_ && layout_ != nullptr && owner_->table().release_layout != nullptr) {
    try {
      owner_->table().release_layout(owner_->handle(), layout_);
    } catch (...) {
      logger("plugins")->error("plugin '{}' threw in release_layout", owner_->name());
    }
  }
  layout_ = nullptr;
  owns_weight_ = false;
  owner_.reset();
}

const char* op_kind_name(int32_t kind) {
  switch (kind) {
    case CLPORT_OP_GET_ROWS: return "GET_ROWS";
    case CLPORT_OP_RMS_NORM: return "RMS_NORM";
    case CLPORT_OP_MUL_MAT: return "MUL_MAT";
    case CLPORT_OP_ROPE: return "ROPE";
    case CLPORT_OP_ATTENTION: return "ATTENTION";
    case CLPORT_OP_SOFTMAX: return "SOFTMAX";
    case CLPORT_OP_SILU: return "SILU";
    case CLPORT_OP_SWIGLU: return "SWIGLU";
    case CLPORT_OP_ADD: return "ADD";
    case CLPORT_OP_MUL: return "MUL";
    case CLPORT_OP_SCALE: return "SCALE";
    case CLPORT_OP_COPY: return "COPY";
    case CLPORT_OP_RMS_NORM_MUL_MAT: return "RMS_NORM+MUL_MAT";
    case CLPORT_OP_MUL_MAT_ADD: return "MUL_MAT+ADD";
    case CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU: return "RMS_NORM+MUL_MAT+SWIGLU";
    case CLPORT_OP_KV_STORE_ROPE: return "ROPE+KV_STORE";
    case CLPORT_OP_ROPE_ATTENTION: return "ROPE+ATTENTION";
    case CLPORT_OP_ROPE_KV_STORE_ATTENTION: return "ROPE+KV_STORE+ATTENTION";
    case CLPORT_OP_GEGLU: return "GEGLU";
    case CLPORT_OP_KV_STORE_ROPE_CELLS: return "ROPE+KV_STORE (cells)";
    case CLPORT_OP_ROPE_ATTENTION_CELLS: return "ROPE+ATTENTION (cells)";
    default: return "?";
  }
}

}  // namespace clport
