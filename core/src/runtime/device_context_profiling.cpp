// Profiling recorder: events handed over by plugins (host->record_event) or the executor, turned
// into per-op timings on request.
#include "runtime/device_context_impl.h"

namespace clport {
namespace {

uint64_t profiling_time(const clport_cl_api& cl, cl_event event, cl_profiling_info what) {
  cl_ulong value = 0;
  if (cl.clGetEventProfilingInfo(event, what, sizeof(value), &value, nullptr) != CL_SUCCESS) {
    return 0;
  }
  return value;
}

}  // namespace

void DeviceContext::record_event(const std::string& name, cl_event event) {
  // Without CL_QUEUE_PROFILING_ENABLE the driver has no times to give: keeping the event would
  // only pin driver memory.
  if (event == nullptr || !options_.profiling) return;
  if (cl().clRetainEvent(event) != CL_SUCCESS) return;
  std::lock_guard<std::mutex> lock(impl_->events_mutex);
  impl_->events.push_back({name, event});
}

std::vector<KernelTiming> DeviceContext::take_timings() {
  std::vector<RecordedEvent> events;
  {
    std::lock_guard<std::mutex> lock(impl_->events_mutex);
    events.swap(impl_->events);
  }
  std::vector<KernelTiming> timings;
  timings.reserve(events.size());
  const clport_cl_api& api = cl();
  for (auto& recorded : events) {
    KernelTiming timing;
    timing.name = recorded.name;
    // A failed wait (the command errored) leaves the times at zero rather than failing all.
    if (api.clWaitForEvents(1, &recorded.event) == CL_SUCCESS) {
      timing.queued_ns = profiling_time(api, recorded.event, CL_PROFILING_COMMAND_QUEUED);
      timing.submit_ns = profiling_time(api, recorded.event, CL_PROFILING_COMMAND_SUBMIT);
      timing.start_ns = profiling_time(api, recorded.event, CL_PROFILING_COMMAND_START);
      timing.end_ns = profiling_time(api, recorded.event, CL_PROFILING_COMMAND_END);
    }
    api.clReleaseEvent(recorded.event);
    timings.push_back(std::move(timing));
  }
  return timings;
}

}  // namespace clport
