// Internal to `clport bench ops`: the device, its profiling context and the plugin binding the
// benchmark runs on, plus the buffer and event helpers every measurement uses.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "clport_devtools/bench_ops.h"
#include "binding/binding.h"
#include "runtime/device_context.h"
#include "loader/opencl_loader.h"

namespace clport::bench::detail {

// A cl_mem released when it goes out of scope.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const clport_cl_api* cl, cl_mem mem) : cl_(cl), mem_(mem) {}
  DeviceBuffer(DeviceBuffer&& o) noexcept : cl_(o.cl_), mem_(o.mem_) { o.mem_ = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();
  cl_mem get() const { return mem_; }

 private:
  const clport_cl_api* cl_ = nullptr;
  cl_mem mem_ = nullptr;
};

struct Session {
  std::shared_ptr<OpenClLibrary> library;
  std::shared_ptr<DeviceContext> context;  // created with profiling
  std::shared_ptr<PluginManager> manager;
  std::unique_ptr<DeviceBinding> binding;
  std::string forced_plugin;  // the --plugin instance name, "" = binding.select()
  int device_index = 0;

  // The instance that runs `op`: the forced plugin's, else the binding's choice (nullptr when
  // no plugin supports it).
  const BoundInstance* instance_for(const clport_op& op) const;
};

Result<Session> open_session(const OpsOptions& options);

Result<DeviceBuffer> create_buffer(DeviceContext& ctx, size_t bytes);

// Median and minimum of a set of durations (ms).
struct Stats {
  double median_ms = 0, min_ms = 0;
};
Stats summarize(std::vector<double> samples_ms);

// Device time (ms) between the start of the first and the end of the last timing.
double span_ms(const std::vector<KernelTiming>& timings);

}  // namespace clport::bench::detail
