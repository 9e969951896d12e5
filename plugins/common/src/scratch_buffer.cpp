#include "clport_common/scratch_buffer.hpp"

#include <algorithm>
#include <string>

namespace clport::plugin_common {

ScratchBuffer::~ScratchBuffer() {
  for (cl_mem m : buffers_) host_->free_buffer(host_->host_ctx, m);
}

cl_mem ScratchBuffer::grow(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes > bytes_ || buffers_.empty()) {
    const size_t size = std::max<size_t>({bytes, planned_, 1});
    int32_t status = CLPORT_PLUGIN_OK;
    cl_mem grown = host_->alloc_buffer(host_->host_ctx, size, &status);
    if (grown == nullptr && status == CLPORT_PLUGIN_OUT_OF_MEMORY) return nullptr;
    if (grown == nullptr) throw sdk::Failure("cannot allocate " + std::to_string(size) + " bytes for " + name_);
    buffers_.push_back(grown);
    bytes_ = size;
  }
  return buffers_.back();
}

clport_scratch_need ScratchBuffer::plan(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  planned_ = std::max(planned_, bytes);
  return {name_, bytes};
}

}  // namespace clport::plugin_common
