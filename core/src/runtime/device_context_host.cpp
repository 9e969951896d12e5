// The clport_host functions a plugin calls: each one routes into the DeviceContext that made the
// table (pool, program cache, logger, shared kernels, profiling recorder). They are called from
// plugin code through C function pointers, so none of them lets an exception escape.
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>

#include "clport_plugin/embedded_kernel.h"
#include "memory/memory_pool.h"
#include "programs/program_cache.h"
#include "memory/file_pages.h"
#include "runtime/device_context_impl.h"

// Generated from kernels/*.cl by cmake/EmbedKernels.cmake.
extern const clport::EmbeddedKernel clport_shared_kernels[];

namespace clport {
namespace {

HostEntry& entry_of(void* host_ctx) { return *static_cast<HostEntry*>(host_ctx); }

void host_log(void* host_ctx, int32_t level, const char* message) {
  if (host_ctx == nullptr || message == nullptr) return;
  try {
    auto lvl = spdlog::level::info;
    switch (level) {
      case CLPORT_LOG_TRACE: lvl = spdlog::level::trace; break;
      case CLPORT_LOG_DEBUG: lvl = spdlog::level::debug; break;
      case CLPORT_LOG_INFO: lvl = spdlog::level::info; break;
      case CLPORT_LOG_WARN: lvl = spdlog::level::warn; break;
      default: lvl = spdlog::level::err; break;
    }
    entry_of(host_ctx).log->log(lvl, "{}", message);
  } catch (...) {
  }
}

cl_mem host_alloc_buffer(void* host_ctx, size_t bytes, int32_t* status) {
  int32_t ignored = 0;
  if (status == nullptr) status = &ignored;
  if (host_ctx == nullptr) {
    *status = CLPORT_PLUGIN_ERROR;
    return nullptr;
  }
  try {
    HostEntry& entry = entry_of(host_ctx);
    auto buffer = entry.owner->pool().allocate(bytes);
    if (!buffer.ok()) {
      entry.log->warn("buffer of {} bytes: {}", bytes, buffer.status().to_string());
      *status = buffer.status().stage() == Stage::OutOfMemory ? CLPORT_PLUGIN_OUT_OF_MEMORY
                                                              : CLPORT_PLUGIN_ERROR;
      return nullptr;
    }
    {
      std::lock_guard<std::mutex> lock(entry.buffers_mutex);
      entry.live_buffers[buffer.value()] = bytes;
      entry.live_bytes += bytes;
    }
    *status = CLPORT_PLUGIN_OK;
    return buffer.value();
  } catch (const std::bad_alloc&) {
    *status = CLPORT_PLUGIN_OUT_OF_MEMORY;
  } catch (...) {
    *status = CLPORT_PLUGIN_ERROR;
  }
  return nullptr;
}

void host_free_buffer(void* host_ctx, cl_mem buffer) {
  if (host_ctx == nullptr || buffer == nullptr) return;
  try {
    HostEntry& entry = entry_of(host_ctx);
    {
      std::lock_guard<std::mutex> lock(entry.buffers_mutex);
      if (const auto it = entry.live_buffers.find(buffer); it != entry.live_buffers.end()) {
        entry.live_bytes -= it->second;
        entry.live_buffers.erase(it);
      }
    }
    Status status = entry.owner->pool().free(buffer);
    if (!status.ok()) entry.log->warn("free_buffer: {}", status.to_string());
  } catch (...) {
  }
}

cl_program host_build_program(void* host_ctx, const char* source, size_t source_len,
                              const char* options, const char** build_log) {
  if (build_log != nullptr) *build_log = nullptr;
  if (host_ctx == nullptr || source == nullptr) return nullptr;
  try {
    HostEntry& entry = entry_of(host_ctx);
    const std::string text(source, source_len != 0 ? source_len : std::strlen(source));
    auto program = entry.owner->programs().build(text, options != nullptr ? options : "");
    std::lock_guard<std::mutex> lock(entry.mutex);
    if (program.ok()) {
      entry.last_build_log.clear();
      return program.value();
    }
    entry.last_build_log = program.status().message();
    if (build_log != nullptr) *build_log = entry.last_build_log.c_str();
  } catch (...) {
  }
  return nullptr;
}

// A kernel name is a relative path inside the kernel directory; nothing that could escape it.
bool safe_kernel_name(const std::string& name) {
  return !name.empty() && name[0] != '/' && name.find("..") == std::string::npos;
}

const char* host_shared_kernel_source(void* host_ctx, const char* name, size_t* len) {
  if (len != nullptr) *len = 0;
  if (host_ctx == nullptr || name == nullptr) return nullptr;
  try {
    HostEntry& entry = entry_of(host_ctx);
    const std::string key(name);
    if (!safe_kernel_name(key)) return nullptr;
    // The override directory wins for hot-editing; a file missing there falls back to the
    // embedded copy so that one edited file does not require copying all of them.
    if (const char* dir = std::getenv("CLPORT_KERNEL_DIR"); dir != nullptr && *dir != '\0') {
      std::lock_guard<std::mutex> lock(entry.mutex);
      auto found = entry.disk_sources.find(key);
      if (found == entry.disk_sources.end()) {
        std::ifstream in(std::string(dir) + "/" + key, std::ios::binary);
        if (in) {
          std::ostringstream text;
          text << in.rdbuf();
          found = entry.disk_sources.emplace(key, text.str()).first;
          entry.log->info("kernel {} read from CLPORT_KERNEL_DIR={}", key, dir);
        }
      }
      if (found != entry.disk_sources.end()) {
        if (len != nullptr) *len = found->second.size();
        return found->second.c_str();
      }
    }
    const EmbeddedKernel* kernel = find_embedded_kernel(clport_shared_kernels, name);
    if (kernel == nullptr) return nullptr;
    if (len != nullptr) *len = kernel->size;
    return kernel->source;
  } catch (...) {
  }
  return nullptr;
}

void host_record_event(void* host_ctx, const char* kernel_name, cl_event event) {
  if (host_ctx == nullptr || event == nullptr) return;
  try {
    entry_of(host_ctx).owner->record_event(kernel_name != nullptr ? kernel_name : "?", event);
  } catch (...) {
  }
}

void host_weight_bytes_read(void* host_ctx, cl_mem buffer, uint64_t offset, uint64_t bytes) {
  if (host_ctx == nullptr || buffer == nullptr) return;
  if (const uint8_t* mapped = entry_of(host_ctx).owner->mapped_bytes(buffer)) release_file_pages(mapped + offset, bytes);
}

}  // namespace

void fill_host_table(HostEntry& entry, int32_t precision) {
  clport_host& host = entry.table;
  host.struct_size = sizeof(clport_host);
  host.cl = &entry.owner->cl();
  host.host_ctx = &entry;
  host.context = entry.owner->context();
  host.queue = entry.owner->queue();
  host.log = host_log;
  host.alloc_buffer = host_alloc_buffer;
  host.free_buffer = host_free_buffer;
  host.build_program = host_build_program;
  host.shared_kernel_source = host_shared_kernel_source;
  host.settings = entry.setting_values.data();
  host.n_settings = entry.setting_values.size();
  host.precision = precision;
  // Only a profiling queue has times to give; without one, plugins then create no event per
  // launch (an event and its release cost the host several microseconds a launch on some drivers).
  host.record_event = entry.owner->profiling() ? host_record_event : nullptr;
  host.weight_bytes_read = host_weight_bytes_read;
}

}  // namespace clport
