#include "clport/log.h"

#include <cstdlib>
#include <mutex>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace clport {
namespace {

std::mutex g_mutex;

spdlog::level::level_enum initial_level() {
  const char* env = std::getenv("CLPORT_LOG_LEVEL");
  if (env == nullptr) return spdlog::level::warn;
  const auto level = spdlog::level::from_str(env);
  // from_str returns off for unknown names; only accept "off" when it was asked for.
  if (level == spdlog::level::off && std::string(env) != "off") return spdlog::level::warn;
  return level;
}

spdlog::level::level_enum& current_level() {
  static spdlog::level::level_enum level = initial_level();
  return level;
}

}  // namespace

std::shared_ptr<spdlog::logger> logger(const std::string& component) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const std::string name = "clport." + component;
  if (auto existing = spdlog::get(name)) return existing;
  auto created = spdlog::stderr_color_mt(name);
  created->set_level(current_level());
  created->set_pattern("[%n] %^%l%$: %v");
  return created;
}

bool set_log_level(const std::string& level) {
  const auto parsed = spdlog::level::from_str(level);
  if (parsed == spdlog::level::off && level != "off") return false;
  std::lock_guard<std::mutex> lock(g_mutex);
  current_level() = parsed;
  spdlog::apply_all([&](const std::shared_ptr<spdlog::logger>& l) {
    if (l->name().rfind("clport.", 0) == 0) l->set_level(parsed);
  });
  return true;
}

}  // namespace clport
