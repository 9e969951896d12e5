// DeviceContext: context + in-order queue for one device, with the pool and program cache that
// everything bound to the device shares.
#include "runtime/device_context.h"

#include <sstream>

#include "clport_plugin/opencl_version.h"
#include "memory/memory_pool.h"
#include "programs/program_cache.h"
#include "runtime/device_context_impl.h"

namespace clport {
namespace {

std::string cl_failure(const char* call, cl_int err) {
  std::ostringstream out;
  out << call << " failed: " << cl_error_name(err) << " (" << err << ")";
  return out.str();
}

// clCreateCommandQueueWithProperties is only used when the platform and device claim 2.0+:
// ICD loaders export the symbol even when the vendor driver behind them is 1.2-only.
cl_command_queue create_queue(const clport_cl_api& cl, cl_context context, const DeviceInfo& info,
                              bool profiling, cl_int* err) {
  const bool v2 = clport_opencl_version(info.platform_version.c_str()) >= 200 &&
                  clport_opencl_version(info.device_version.c_str()) >= 200;
  const cl_command_queue_properties props = profiling ? CL_QUEUE_PROFILING_ENABLE : 0;
  if (v2 && cl.clCreateCommandQueueWithProperties != nullptr) {
    const cl_queue_properties list[] = {CL_QUEUE_PROPERTIES, props, 0};
    cl_command_queue queue =
        cl.clCreateCommandQueueWithProperties(context, info.device, list, err);
    if (queue != nullptr && *err == CL_SUCCESS) return queue;
    logger("runtime")->debug("clCreateCommandQueueWithProperties failed ({}), trying the 1.2 call",
                             cl_error_name(*err));
  }
  return cl.clCreateCommandQueue(context, info.device, props, err);
}

}  // namespace

Result<std::shared_ptr<DeviceContext>> DeviceContext::create(
    std::shared_ptr<OpenClLibrary> library, DeviceInfo info, const DeviceContextOptions& options) {
  if (library == nullptr) return Status(Stage::InvalidArgument, "no OpenCL library given");
  if (info.device == nullptr) return Status(Stage::InvalidArgument, "no OpenCL device given");
  const clport_cl_api& cl = library->api();

  std::shared_ptr<DeviceContext> self(new DeviceContext());
  self->library_ = std::move(library);
  self->info_ = std::move(info);
  self->options_ = options;
  self->impl_ = std::make_unique<Impl>();
  const DeviceInfo& dev = self->info_;

  cl_int err = CL_SUCCESS;
  const cl_context_properties props[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(dev.platform), 0};
  self->context_ = cl.clCreateContext(dev.platform ? props : nullptr, 1, &dev.device, nullptr,
                                      nullptr, &err);
  if (self->context_ == nullptr || err != CL_SUCCESS) {
    self->context_ = nullptr;
    return Status(Stage::Context, cl_failure("clCreateContext", err) + " on device '" + dev.name +
                                      "'; the driver may be busy or broken: check `clport check`");
  }
  self->queue_ = create_queue(cl, self->context_, dev, options.profiling, &err);
  if (self->queue_ == nullptr || err != CL_SUCCESS) {
    self->queue_ = nullptr;
    return Status(Stage::Queue, cl_failure("clCreateCommandQueue", err) + " on device '" +
                                    dev.name + "'" +
                                    (options.profiling ? " (with profiling enabled)" : ""));
  }
  self->pool_ = std::make_unique<MemoryPool>(cl, self->context_, dev.mem_base_addr_align_bytes,
                                             dev.max_alloc_bytes);
  ProgramCacheOptions cache;
  cache.directory = options.cache_dir;
  cache.policy_directory = options.policy_cache_dir;
  self->programs_ = std::make_unique<ProgramCache>(
      cl, self->context_, dev.device,
      ProgramCacheIdentity{dev.name, dev.driver_version, dev.platform_version}, cache);
  return self;
}

DeviceContext::~DeviceContext() {
  if (library_ == nullptr) return;
  const clport_cl_api& cl = library_->api();
  if (queue_ != nullptr) cl.clFinish(queue_);
  if (impl_ != nullptr) {
    for (auto& recorded : impl_->events) cl.clReleaseEvent(recorded.event);
    impl_->events.clear();
  }
  // Programs and buffers belong to the context: release them before it.
  programs_.reset();
  pool_.reset();
  if (queue_ != nullptr) cl.clReleaseCommandQueue(queue_);
  if (context_ != nullptr) cl.clReleaseContext(context_);
}

Status DeviceContext::write(cl_mem buffer, size_t offset, const void* data, size_t bytes) {
  if (bytes == 0) return Status::ok_status();
  if (buffer == nullptr || data == nullptr) {
    return Status(Stage::InvalidArgument, "write: null buffer or data");
  }
  const cl_int err =
      cl().clEnqueueWriteBuffer(queue_, buffer, CL_TRUE, offset, bytes, data, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    return Status(Stage::Device, cl_failure("clEnqueueWriteBuffer", err) + " writing " +
                                     std::to_string(bytes) + " bytes at offset " + std::to_string(offset));
  }
  return Status::ok_status();
}

Status DeviceContext::read(cl_mem buffer, size_t offset, void* data, size_t bytes) {
  if (bytes == 0) return Status::ok_status();
  if (buffer == nullptr || data == nullptr) {
    return Status(Stage::InvalidArgument, "read: null buffer or data");
  }
  const cl_int err =
      cl().clEnqueueReadBuffer(queue_, buffer, CL_TRUE, offset, bytes, data, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    return Status(Stage::Device, cl_failure("clEnqueueReadBuffer", err) + " reading " +
                                     std::to_string(bytes) + " bytes at offset " + std::to_string(offset));
  }
  return Status::ok_status();
}

uint64_t DeviceContext::plugin_live_bytes(const std::string& plugin_name) const {
  uint64_t total = 0;
  std::lock_guard<std::mutex> lock(impl_->hosts_mutex);
  for (const auto& entry : impl_->hosts) {
    if (entry->plugin_name != plugin_name) continue;
    std::lock_guard<std::mutex> buffers(entry->buffers_mutex);
    total += entry->live_bytes;
  }
  return total;
}

void DeviceContext::register_mapped_buffer(cl_mem buffer, const uint8_t* host_bytes) {
  std::lock_guard<std::mutex> lock(impl_->mapped_mutex);
  impl_->mapped_buffers[buffer] = host_bytes;
}

void DeviceContext::unregister_mapped_buffer(cl_mem buffer) {
  std::lock_guard<std::mutex> lock(impl_->mapped_mutex);
  impl_->mapped_buffers.erase(buffer);
}

const uint8_t* DeviceContext::mapped_bytes(cl_mem buffer) const {
  std::lock_guard<std::mutex> lock(impl_->mapped_mutex);
  const auto it = impl_->mapped_buffers.find(buffer);
  return it == impl_->mapped_buffers.end() ? nullptr : it->second;
}

Status DeviceContext::finish() {
  const cl_int err = cl().clFinish(queue_);
  if (err != CL_SUCCESS) return Status(Stage::Device, cl_failure("clFinish", err));
  return Status::ok_status();
}

const clport_host* DeviceContext::make_host(const std::string& plugin_name,
                                            const std::vector<TypedSetting>& settings,
                                            int32_t precision) {
  auto entry = std::make_unique<HostEntry>();
  entry->owner = this;
  entry->plugin_name = plugin_name;
  entry->settings = settings;
  for (const TypedSetting& s : entry->settings)
    entry->setting_values.push_back({s.name.c_str(), s.type, s.int_value, s.text.c_str()});
  entry->log = logger("plugin." + plugin_name);
  fill_host_table(*entry, precision);
  std::lock_guard<std::mutex> lock(impl_->hosts_mutex);
  impl_->hosts.push_back(std::move(entry));
  return &impl_->hosts.back()->table;
}

}  // namespace clport
