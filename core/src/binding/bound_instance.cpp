// Lifetime of plugin instances and repacked weights; every call into a plugin is guarded.
#include "binding/binding.h"
#include "common/logger.h"
#include "binding/op_desc.h"

namespace clport {

BoundInstance::BoundInstance(std::shared_ptr<LoadedPlugin> plugin, clport_plugin_instance* instance,
                             int64_t rank, std::shared_ptr<void> keepalive, std::string settings,
                             const clport_host* host)
    : keepalive_(std::move(keepalive)),
      plugin_(std::move(plugin)),
      host_(host),
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

}  // namespace clport
