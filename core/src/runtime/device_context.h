// Everything the core owns for one OpenCL device: the context and in-order queue, the buffer
// pool, the program cache, and the clport_host table handed to plugin instances bound to it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "probe/device_info.h"
#include "clport/export.h"
#include "policy/plugin_settings.h"
#include "loader/opencl_loader.h"
#include "clport_plugin/plugin_abi.h"
#include "clport/status.h"

namespace clport {

class MemoryPool;    // memory/memory_pool.h
class ProgramCache;  // programs/program_cache.h

// One profiled kernel (or transfer) from the recorder: OpenCL profiling timestamps in ns.
// All zero when the queue was not created with profiling or the driver gave no times.
struct KernelTiming {
  std::string name;
  uint64_t queued_ns = 0, submit_ns = 0, start_ns = 0, end_ns = 0;
  uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

struct DeviceContextOptions {
  bool profiling = false;  // create the queue with CL_QUEUE_PROFILING_ENABLE
  // The program cache's directory (programs/cache_location.h): the application's choice and the
  // policy's cache_dir: ("" = not given, "off" = no cache).
  std::string cache_dir;
  std::string policy_cache_dir;
};

class CLPORT_API DeviceContext {
 public:
  // Creates context + queue (clCreateCommandQueueWithProperties when present, else
  // clCreateCommandQueue). Status stage Context / Queue on failure.
  static Result<std::shared_ptr<DeviceContext>> create(std::shared_ptr<OpenClLibrary> library,
                                                       DeviceInfo info,
                                                       const DeviceContextOptions& options = {});
  ~DeviceContext();

  const clport_cl_api& cl() const { return library_->api(); }
  const DeviceInfo& info() const { return info_; }
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }
  MemoryPool& pool() { return *pool_; }
  ProgramCache& programs() { return *programs_; }
  const ProgramCache& programs() const { return *programs_; }
  bool profiling() const { return options_.profiling; }

  // A host table for one plugin instance. `settings`: what the policy sets for the plugin, checked
  // against its declarations (plugin_settings.h); precision 0 auto / 1 fp32 / 2 fp16. The table
  // lives as long as this context.
  const clport_host* make_host(const std::string& plugin_name, const std::vector<TypedSetting>& settings,
                               int32_t precision);

  // Blocking helpers for the core (model upload, tests).
  Status write(cl_mem buffer, size_t offset, const void* data, size_t bytes);
  Status read(cl_mem buffer, size_t offset, void* data, size_t bytes);
  Status finish();

  // Bytes a plugin's instances hold now through host->alloc_buffer (repacked layouts and
  // scratch), by plugin name; 0 for a plugin without a host table here.
  uint64_t plugin_live_bytes(const std::string& plugin_name) const;
  // Buffers over a read-only file mapping (CL_MEM_USE_HOST_PTR on a device that shares host
  // memory), by their first byte: where host->weight_bytes_read may drop pages. Registered by
  // whoever creates such a buffer, removed before it is released.
  void register_mapped_buffer(cl_mem buffer, const uint8_t* host_bytes);
  void unregister_mapped_buffer(cl_mem buffer);
  // The mapped bytes behind buffer, or NULL when it is not such a buffer.
  const uint8_t* mapped_bytes(cl_mem buffer) const;
  // Profiling recorder (also what host->record_event feeds). record_event retains the event;
  // take_timings waits for every recorded event, returns their timings in record order and
  // forgets them. Without profiling, record_event ignores events and take_timings is empty.
  void record_event(const std::string& name, cl_event event);
  std::vector<KernelTiming> take_timings();

  struct Impl;  // host-table storage and profiling hooks (defined in device_context.cpp)

 private:
  DeviceContext() = default;
  std::shared_ptr<OpenClLibrary> library_;
  DeviceInfo info_;
  DeviceContextOptions options_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::unique_ptr<MemoryPool> pool_;
  std::unique_ptr<ProgramCache> programs_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace clport
