// Launches a plugin prepared (prepare_launch, prepare_group), their replay and release; the one
// place that calls those entry points.
#include <utility>

#include "binding/plugin_status.h"
#include "binding/binding.h"
#include "common/logger.h"
#include "ops/op_registry.h"

namespace clport {

Status plugin_call_status(const clport_plugin& table, const std::string& plugin_name, int32_t rc,
                          clport_plugin_error* error, const std::string& what) {
  if (rc == CLPORT_PLUGIN_OK) {
    if (error != nullptr) table.release_error(error);
    return Status();
  }
  std::string message = "status " + std::to_string(rc);
  if (error != nullptr) {
    const char* text = table.error_message(error);
    if (text != nullptr) message = text;
    message += " (code " + std::to_string(table.error_code(error)) + ")";
    table.release_error(error);
  }
  const Stage stage = rc == CLPORT_PLUGIN_UNSUPPORTED     ? Stage::Unsupported
                      : rc == CLPORT_PLUGIN_OUT_OF_MEMORY ? Stage::OutOfMemory
                                                          : Stage::Device;
  return Status(stage, "plugin '" + plugin_name + "' " + what + ": " + message);
}

PreparedLaunch PreparedLaunch::adopt(const clport_plugin& table, clport_plugin_instance* instance,
                                     const std::string& plugin_name, std::shared_ptr<const void> keepalive,
                                     clport_launch* launch) {
  PreparedLaunch out;
  out.table_ = &table;
  out.instance_ = instance;
  out.plugin_name_ = plugin_name;
  out.keepalive_ = std::move(keepalive);
  out.launch_ = launch;
  return out;
}

Result<PreparedLaunch> PreparedLaunch::prepare(const clport_plugin& table, clport_plugin_instance* instance,
                                               const std::string& plugin_name, const clport_op& op,
                                               std::shared_ptr<const void> keepalive) {
  const std::string what = std::string("prepare ") + op_kind_name(op.kind);
  clport_launch* launch = nullptr;
  clport_plugin_error* error = nullptr;
  int32_t rc = CLPORT_PLUGIN_ERROR;
  try {
    rc = table.prepare_launch(instance, &op, &launch, &error);
  } catch (...) {
    return Status(Stage::Plugin, "plugin '" + plugin_name + "' threw in prepare_launch (" + op_kind_name(op.kind) + ")");
  }
  CLPORT_RETURN_IF_ERROR(plugin_call_status(table, plugin_name, rc, error, what));
  if (launch == nullptr) return Status(Stage::Plugin, "plugin '" + plugin_name + "' prepared no launch");
  return adopt(table, instance, plugin_name, std::move(keepalive), launch);
}

Result<PreparedLaunch> PreparedLaunch::prepare_group(const clport_plugin& table, clport_plugin_instance* instance,
                                                     const std::string& plugin_name,
                                                     const std::vector<const clport_op*>& ops,
                                                     std::shared_ptr<const void> keepalive) {
  if (!CLPORT_PLUGIN_HAS_PREPARE_GROUP(&table))
    return Status(Stage::Unsupported, "plugin '" + plugin_name + "' groups no ops (ABI 2.0 table)");
  clport_launch* launch = nullptr;
  clport_plugin_error* error = nullptr;
  int32_t rc = CLPORT_PLUGIN_ERROR;
  try {
    rc = table.prepare_group(instance, ops.data(), ops.size(), &launch, &error);
  } catch (...) {
    return Status(Stage::Plugin, "plugin '" + plugin_name + "' threw in prepare_group");
  }
  CLPORT_RETURN_IF_ERROR(plugin_call_status(table, plugin_name, rc, error, "prepare a group of ops"));
  if (launch == nullptr) return Status(Stage::Plugin, "plugin '" + plugin_name + "' prepared no group launch");
  return adopt(table, instance, plugin_name, std::move(keepalive), launch);
}

PreparedLaunch::~PreparedLaunch() { reset(); }

PreparedLaunch::PreparedLaunch(PreparedLaunch&& other) noexcept
    : table_(other.table_), instance_(other.instance_), plugin_name_(std::move(other.plugin_name_)),
      keepalive_(std::move(other.keepalive_)), launch_(std::exchange(other.launch_, nullptr)) {}

PreparedLaunch& PreparedLaunch::operator=(PreparedLaunch&& other) noexcept {
  if (this != &other) {
    reset();
    table_ = other.table_;
    instance_ = other.instance_;
    plugin_name_ = std::move(other.plugin_name_);
    keepalive_ = std::move(other.keepalive_);
    launch_ = std::exchange(other.launch_, nullptr);
  }
  return *this;
}

void PreparedLaunch::reset() {
  if (table_ != nullptr && launch_ != nullptr) {
    try {
      table_->release_launch(instance_, launch_);
    } catch (...) {
      logger("plugins")->error("plugin '{}' threw in release_launch", plugin_name_);
    }
  }
  launch_ = nullptr;
  keepalive_.reset();
}

Status PreparedLaunch::enqueue(int32_t n_past) const {
  if (table_ == nullptr || launch_ == nullptr) return Status(Stage::Internal, "enqueue of a released launch");
  const clport_step step{sizeof(clport_step), n_past};
  clport_plugin_error* error = nullptr;
  int32_t rc = CLPORT_PLUGIN_ERROR;
  try {
    rc = table_->enqueue_launch(instance_, launch_, &step, &error);
  } catch (...) {
    return Status(Stage::Plugin, "plugin '" + plugin_name_ + "' threw in enqueue_launch");
  }
  if (rc == CLPORT_PLUGIN_OK && error == nullptr) return Status();
  return plugin_call_status(*table_, plugin_name_, rc, error, "enqueue");
}

int32_t enqueue_once(const clport_plugin& table, clport_plugin_instance* instance, const clport_op& op,
                     clport_plugin_error** error) {
  *error = nullptr;
  clport_launch* launch = nullptr;
  int32_t rc = table.prepare_launch(instance, &op, &launch, error);
  if (rc != CLPORT_PLUGIN_OK) return rc;
  if (launch == nullptr) return CLPORT_PLUGIN_ERROR;
  if (*error != nullptr) {
    table.release_error(*error);
    *error = nullptr;
  }
  const clport_step step{sizeof(clport_step), op.n_past};
  rc = table.enqueue_launch(instance, launch, &step, error);
  table.release_launch(instance, launch);
  return rc;
}

}  // namespace clport
