// The record of a device that failed during a run (selftest/device_failure.h): a small JSON file
// beside the self-test verdict, keyed the same way.
#include "selftest/device_failure.h"

#include <ctime>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "runtime/device_context.h"
#include "common/logger.h"
#include "programs/program_cache.h"
#include "common/atomic_file.h"
#include "selftest/verdict_key.h"

namespace clport {
namespace {

constexpr int kRecordFormat = 1;
using nlohmann::json;

std::string record_path(const DeviceContext& context, const std::string& key) {
  const ProgramCache& cache = context.programs();
  if (!cache.enabled() || cache.directory().empty()) return "";
  return cache.directory() + "/avoid-" + key + ".json";
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

Result<std::string> record_unguarded(const DeviceContext& context, const DeviceBinding& binding,
                                     const std::string& what) {
  const selftest::detail::VerdictIdentity id = selftest::detail::identity_of(context, binding);
  const std::string key = selftest::detail::key_of(id);
  const std::string path = record_path(context, key);
  if (path.empty()) return std::string();
  const json doc = {{"format", kRecordFormat}, {"key", key},
                    {"device", id.device},     {"driver", id.driver},
                    {"platform", id.platform}, {"clport_version", id.clport_version},
                    {"plugins", id.plugins},   {"kernels", id.kernels},
                    {"what", what},            {"when", utc_now()}};
  // Driver strings are not guaranteed UTF-8: replace bad bytes rather than fail.
  CLPORT_RETURN_IF_ERROR(
      write_file_atomically(path, doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n"));
  return path;
}

std::optional<DeviceFailureRecord> find_unguarded(const DeviceContext& context, const DeviceBinding& binding) {
  const std::string key = selftest::detail::key_of(selftest::detail::identity_of(context, binding));
  const std::string path = record_path(context, key);
  if (path.empty()) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  const json doc = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;
  const auto field = [&](const char* name) {
    const auto it = doc.find(name);
    return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const auto format = doc.find("format");
  if (format == doc.end() || !format->is_number_integer() || format->get<int>() != kRecordFormat) {
    return std::nullopt;
  }
  if (field("key") != key) return std::nullopt;
  return DeviceFailureRecord{path, field("what"), field("when")};
}

}  // namespace

// The identity walks CLPORT_KERNEL_DIR, whose iteration throws on filesystem errors.
Result<std::string> record_device_failure(const DeviceContext& context, const DeviceBinding& binding,
                                          const std::string& what) {
  try {
    return record_unguarded(context, binding, what);
  } catch (const std::exception& e) {
    return Status(Stage::Io, std::string("cannot record the device failure: ") + e.what());
  }
}

std::optional<DeviceFailureRecord> find_device_failure(const DeviceContext& context,
                                                       const DeviceBinding& binding) {
  try {
    return find_unguarded(context, binding);
  } catch (const std::exception& e) {
    logger("engine")->warn("cannot read the device-failure record: {}", e.what());
    return std::nullopt;
  }
}

}  // namespace clport
