// Device scratch a plugin's kernels write and read within a step (quantized activations, split
// partial results): one buffer, grown on demand. An outgrown buffer is kept until the owner goes,
// never freed earlier: kernels already enqueued may still use it, and a prepared launch replays
// with the buffer it was recorded with.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#include "clport_plugin/plugin_sdk.hpp"

namespace clport::plugin_common {

class ScratchBuffer {
 public:
  explicit ScratchBuffer(const clport_host& host) : host_(&host) {}
  ~ScratchBuffer();
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;

  // The newest buffer, grown to at least `bytes` first; NULL when the device has no memory for it
  // (CLPORT_PLUGIN_OUT_OF_MEMORY); throws sdk::Failure naming `what` on any other allocation error.
  cl_mem grow(size_t bytes, const char* what);

 private:
  const clport_host* host_;
  std::mutex mutex_;
  std::vector<cl_mem> buffers_;  // every buffer allocated, the newest last
  size_t bytes_ = 0;             // the newest buffer's size
};

}  // namespace clport::plugin_common
