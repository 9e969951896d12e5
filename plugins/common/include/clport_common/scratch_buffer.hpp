// Device scratch a plugin's kernels write and read within a step (quantized activations, split
// partial results): one buffer, grown on demand. An outgrown buffer is kept until the owner goes,
// never freed earlier: kernels already enqueued may still use it, and a prepared launch replays
// with the buffer it was recorded with. What the plan declared (clport_plugin.scratch_needs) is
// the size the first allocation takes, so a planned run allocates each buffer once, at the size
// the host counted.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#include "clport_plugin/plugin_sdk.hpp"

namespace clport::plugin_common {

class ScratchBuffer {
 public:
  // `name`: what the buffer holds, in errors and in the needs the plugin declares.
  ScratchBuffer(const clport_host& host, const char* name) : host_(&host), name_(name) {}
  ~ScratchBuffer();
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;

  // The newest buffer, grown to at least `bytes` (and the planned size) first; NULL when the
  // device has no memory for it (CLPORT_PLUGIN_OUT_OF_MEMORY); throws sdk::Failure naming the
  // buffer on any other allocation error.
  cl_mem grow(size_t bytes);
  // Plan time: an op will need `bytes` of this buffer. Returns the need as declared to the host.
  clport_scratch_need plan(size_t bytes);
  const char* name() const { return name_; }

 private:
  const clport_host* host_;
  const char* name_;
  std::mutex mutex_;
  size_t planned_ = 0;           // the largest need declared
  std::vector<cl_mem> buffers_;  // every buffer allocated, the newest last
  size_t bytes_ = 0;             // the newest buffer's size
};

}  // namespace clport::plugin_common
