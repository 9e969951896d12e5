#include "clport_common/scratch_buffer.hpp"

#include <algorithm>
#include <string>

namespace clport::plugin_common {

ScratchBuffer::~ScratchBuffer() {
  for (cl_mem m : buffers_) host_->free_buffer(host_->host_ctx, m);
}

cl_mem ScratchBuffer::grow(size_t bytes, const char* what) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes > bytes_ || buffers_.empty()) {
    int32_t status = CLPORT_PLUGIN_OK;
    cl_mem grown = host_->alloc_buffer(host_->host_ctx, std::max<size_t>(bytes, 1), &status);
    if (grown == nullptr && status == CLPORT_PLUGIN_OUT_OF_MEMORY) return nullptr;
    if (grown == nullptr) throw sdk::Failure("cannot allocate " + std::to_string(bytes) + " bytes for " + what);
    buffers_.push_back(grown);
    bytes_ = bytes;
  }
  return buffers_.back();
}

}  // namespace clport::plugin_common
