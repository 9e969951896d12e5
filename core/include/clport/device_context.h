// Everything the core owns for one OpenCL device: the context and in-order queue, the buffer
// pool, the program cache, and the clport_host table handed to plugin instances bound to it.
#pragma once

#include <memory>
#include <string>

#include "clport/device_info.h"
#include "clport/export.h"
#include "clport/opencl_loader.h"
#include "clport/plugin_abi.h"
#include "clport/status.h"

namespace clport {

class MemoryPool;    // clport/memory_pool.h
class ProgramCache;  // clport/program_cache.h

struct DeviceContextOptions {
  bool profiling = false;  // create the queue with CL_QUEUE_PROFILING_ENABLE
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
  bool profiling() const { return options_.profiling; }

  // A host table for one plugin instance. `plugin_config_yaml` is the plugin's policy section;
  // precision 0 auto / 1 fp32 / 2 fp16. The table lives as long as this context.
  const clport_host* make_host(const std::string& plugin_name, const std::string& plugin_config_yaml,
                               int32_t precision);

  // Blocking helpers for the core (model upload, tests).
  Status write(cl_mem buffer, size_t offset, const void* data, size_t bytes);
  Status read(cl_mem buffer, size_t offset, void* data, size_t bytes);
  Status finish();

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
