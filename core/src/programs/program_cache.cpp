// Program cache orchestration: memo -> entry file -> source, with every bad entry deleted.
#include "programs/program_cache.h"

#include <cstdlib>
#include <filesystem>

#include "common/logger.h"
#include "common/version.h"
#include "common/atomic_file.h"
#include "programs/cache_directory.h"
#include "programs/cache_entry.h"
#include "programs/cache_key.h"
#include "programs/program_build.h"

namespace clport {

namespace fs = std::filesystem;

namespace {

std::shared_ptr<spdlog::logger> cache_log() { return logger("programs"); }

bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' && std::string(value) != "0";
}

}  // namespace

ProgramCache::ProgramCache(const clport_cl_api& cl, cl_context context, cl_device_id device,
                           ProgramCacheIdentity identity, ProgramCacheOptions options)
    : cl_(cl), context_(context), device_(device), identity_(std::move(identity)),
      options_(std::move(options)) {
  debug_ = options_.debug || (options_.use_environment && env_flag("CLPORT_CACHE_DEBUG"));
  choose_directory();
}

ProgramCache::~ProgramCache() {
  for (auto& [key, program] : memo_) cl_.clReleaseProgram(program);
}

void ProgramCache::choose_directory() {
  enabled_ = false;
  if (!options_.enabled) {
    location_.why_off = "switched off for this context";
    return;
  }
  location_ = resolve_cache_location(
      CacheRequest{options_.directory, options_.policy_directory, options_.use_environment});
  if (!location_.enabled()) {
    // Never fatal: the run goes on, it only pays the full compile time.
    const bool chosen = location_.why_off.rfind("switched off", 0) == 0;
    if (chosen) {
      cache_log()->info("program cache {}", location_.why_off);
    } else {
      cache_log()->warn("program cache off: {}", location_.why_off);
    }
    return;
  }
  directory_ = location_.directory;
  enabled_ = true;
  if (debug_) trace("DIR", directory_, "from " + location_.source);
}

ProgramCache::Digest ProgramCache::key_digest(const std::string& source,
                                              const std::string& options) const {
  return programs::sha256_fields({"clport program cache", std::to_string(kProgramCacheFormatVersion),
                                  CLPORT_VERSION_STRING, identity_.device_name,
                                  identity_.driver_version, identity_.platform_version, options,
                                  source});
}

std::string ProgramCache::key(const std::string& source, const std::string& options) const {
  return programs::to_hex(key_digest(source, options));
}

std::string ProgramCache::entry_path(const std::string& key_hex) const {
  return directory_ + "/" + key_hex + ".clbin";
}

ProgramCacheCounters ProgramCache::counters() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counters_;
}

void ProgramCache::trace(const char* event, const std::string& key_hex, const std::string& detail) {
  if (!debug_) return;
  auto log = logger("programs.cache");
  // The trace was asked for explicitly: show it even when the global level is warn.
  if (log->level() > spdlog::level::info) log->set_level(spdlog::level::info);
  ProgramCacheCounters c = counters();
  log->info("{} {}{}{} [hits={} misses={} saves={} rejected={} memo={}]", event, key_hex,
            detail.empty() ? "" : ": ", detail, c.hits, c.misses, c.saves, c.rejected, c.memo_hits);
}

void ProgramCache::reject_entry(const std::string& path, const std::string& why) {
  std::error_code ec;
  fs::remove(path, ec);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++counters_.rejected;
  }
  cache_log()->info("deleted cache entry {}: {}", path, why);
  trace("REJECT", fs::path(path).filename().string(), why);
}

Result<cl_program> ProgramCache::load_entry(const Digest& key, const std::string& options) {
  const std::string path = entry_path(programs::to_hex(key));
  std::vector<unsigned char> file;
  switch (programs::read_whole_file(path, file)) {
    case programs::ReadOutcome::Missing:
      return Status(Stage::Io, "no entry");
    case programs::ReadOutcome::Error:
      reject_entry(path, "unreadable");
      return Status(Stage::Io, "unreadable entry");
    case programs::ReadOutcome::Read:
      break;
  }
  auto binary = programs::decode_entry(file, key);
  if (!binary.ok()) {
    reject_entry(path, binary.status().message());
    return binary.status();
  }
  auto program = programs::build_from_binary(cl_, context_, device_, binary.value(), options);
  if (!program.ok()) {
    // Driver updates (same version string, new compiler) and driver bugs land here.
    reject_entry(path, "driver refused the binary: " + program.status().message());
    return program.status();
  }
  return program;
}

void ProgramCache::save_entry(const Digest& key, cl_program program) {
  const std::string key_hex = programs::to_hex(key);
  std::vector<unsigned char> binary = programs::program_binary(cl_, program);
  Status saved = Status(Stage::Device, "the driver returned no program binary");
  if (!binary.empty()) {
    const std::vector<unsigned char> entry = programs::encode_entry(key, binary);
    saved = write_file_atomically(entry_path(key_hex),
                                  std::string_view(reinterpret_cast<const char*>(entry.data()), entry.size()));
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (saved.ok()) {
      ++counters_.saves;
    } else {
      ++counters_.save_failures;
    }
  }
  if (!saved.ok()) {
    cache_log()->warn("program cache: could not save {}: {}", key_hex, saved.message());
    trace("SAVE-FAILED", key_hex, saved.message());
    return;
  }
  trace("SAVE", key_hex);
}

Result<cl_program> ProgramCache::build(const std::string& source, const std::string& options) {
  // File system and allocation errors surface as exceptions from the standard library; none
  // may escape (plugins reach this through a C function pointer).
  try {
    return build_or_load(source, options);
  } catch (const std::exception& e) {
    return Status(Stage::Internal, std::string("program cache: ") + e.what());
  }
}

Result<cl_program> ProgramCache::build_or_load(const std::string& source,
                                               const std::string& options) {
  const Digest key = key_digest(source, options);
  const std::string key_hex = programs::to_hex(key);
  if (options_.memoize) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto found = memo_.find(key_hex); found != memo_.end()) {
      cl_.clRetainProgram(found->second);
      ++counters_.memo_hits;
      return found->second;
    }
  }

  cl_program program = nullptr;
  if (enabled_) {
    auto loaded = load_entry(key, options);
    if (loaded.ok()) {
      program = loaded.value();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ++counters_.hits;
      }
      trace("HIT", key_hex);
    }
  }
  if (program == nullptr) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++counters_.misses;
    }
    trace("MISS", key_hex);
    auto built = programs::build_from_source(cl_, context_, device_, source, options);
    if (!built.ok()) {
      std::lock_guard<std::mutex> lock(mutex_);
      ++counters_.build_failures;
      return built.status();
    }
    program = built.value();
    if (enabled_) save_entry(key, program);
  }

  if (options_.memoize) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [it, inserted] = memo_.emplace(key_hex, program);
    if (!inserted) {
      // Another thread built the same program meanwhile: keep one copy.
      cl_.clReleaseProgram(program);
      program = it->second;
    }
    cl_.clRetainProgram(program);  // the memo keeps one reference, the caller gets one
  }
  return program;
}

}  // namespace clport
