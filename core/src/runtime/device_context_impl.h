// Private state of DeviceContext shared by its .cpp files: the host tables handed to plugins
// and the profiling recorder.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/device_context.h"
#include "common/logger.h"

namespace clport {

// Storage behind one clport_host table; host_ctx points here.
struct HostEntry {
  DeviceContext* owner = nullptr;
  std::string plugin_name;
  std::vector<TypedSetting> settings;
  std::vector<clport_setting_value> setting_values;  // the table's view of settings
  std::shared_ptr<spdlog::logger> log;
  clport_host table{};
  std::mutex mutex;                                 // guards the two members below
  std::string last_build_log;                       // valid until the next build_program call
  std::map<std::string, std::string> disk_sources;  // CLPORT_KERNEL_DIR reads (stable storage)
  // The plugin's live alloc_buffer allocations (bytes asked for), for the memory accounting.
  std::mutex buffers_mutex;
  std::map<cl_mem, size_t> live_buffers;
  uint64_t live_bytes = 0;
};

struct RecordedEvent {
  std::string name;
  cl_event event = nullptr;  // retained by the recorder
};

struct DeviceContext::Impl {
  std::mutex hosts_mutex;
  std::vector<std::unique_ptr<HostEntry>> hosts;

  std::mutex events_mutex;
  std::vector<RecordedEvent> events;

  mutable std::mutex mapped_mutex;
  std::map<cl_mem, const uint8_t*> mapped_buffers;  // register_mapped_buffer
};

// Fills entry->table with the host functions (device_context_host.cpp).
void fill_host_table(HostEntry& entry, int32_t precision);

}  // namespace clport
