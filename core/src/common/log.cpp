#include "common/logger.h"

#include <cstdlib>
#include <mutex>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

namespace clport {
namespace {

std::mutex g_mutex;

// A CLPORT_LOG_LEVEL that names no level, reported once through the first logger.
std::string& unknown_environment_level() {
  static std::string value;
  return value;
}

spdlog::level::level_enum initial_level() {
  const char* env = std::getenv("CLPORT_LOG_LEVEL");
  if (env == nullptr) return spdlog::level::warn;
  const auto level = spdlog::level::from_str(env);
  // from_str returns off for unknown names; only accept "off" when it was asked for.
  if (level == spdlog::level::off && std::string(env) != "off") {
    unknown_environment_level() = env;
    return spdlog::level::warn;
  }
  return level;
}

LogLevel public_level(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace: return LogLevel::Trace;
    case spdlog::level::debug: return LogLevel::Debug;
    case spdlog::level::info: return LogLevel::Info;
    case spdlog::level::warn: return LogLevel::Warn;
    case spdlog::level::err: return LogLevel::Error;
    case spdlog::level::critical: return LogLevel::Critical;
    default: return LogLevel::Off;
  }
}

spdlog::level::level_enum& current_level() {
  static spdlog::level::level_enum level = initial_level();
  return level;
}

// The one sink of every clport logger: stderr (coloured, the logger's pattern), or the app's
// callback when one is set. One sink for all loggers, so that switching is a single assignment
// under the sink's own lock and never races a logging thread.
class ForwardingSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  void set_callback(LogCallback callback) {
    std::lock_guard<std::mutex> lock(mutex_);
    callback_ = std::move(callback);
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (!callback_) {
      stderr_->log(msg);
      return;
    }
    std::string component(msg.logger_name.data(), msg.logger_name.size());
    if (component.rfind("clport.", 0) == 0) component.erase(0, 7);
    callback_(public_level(msg.level), component, std::string(msg.payload.data(), msg.payload.size()));
  }
  void flush_() override { stderr_->flush(); }
  void set_pattern_(const std::string& pattern) override { stderr_->set_pattern(pattern); }
  void set_formatter_(std::unique_ptr<spdlog::formatter> formatter) override {
    stderr_->set_formatter(std::move(formatter));
  }

 private:
  std::shared_ptr<spdlog::sinks::sink> stderr_ = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  LogCallback callback_;
};

std::shared_ptr<ForwardingSink>& forwarding_sink() {
  static auto sink = std::make_shared<ForwardingSink>();
  return sink;
}

}  // namespace

std::shared_ptr<spdlog::logger> logger(const std::string& component) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const std::string name = "clport." + component;
  if (auto existing = spdlog::get(name)) return existing;
  auto created = std::make_shared<spdlog::logger>(name, forwarding_sink());
  spdlog::register_logger(created);
  created->set_level(current_level());
  created->set_pattern("[%n] %^%l%$: %v");
  // The library cannot refuse to start over it (the CLI does), but never ignores it silently.
  static bool unknown_level_reported = false;
  if (!unknown_level_reported && !unknown_environment_level().empty()) {
    unknown_level_reported = true;
    created->warn("CLPORT_LOG_LEVEL '{}' is not a log level (trace, debug, info, warn, error, "
                  "critical or off); using warn",
                  unknown_environment_level());
  }
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

void set_log_callback(LogCallback callback) { forwarding_sink()->set_callback(std::move(callback)); }

}  // namespace clport
