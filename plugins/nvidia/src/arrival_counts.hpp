// The split GEMMs' arrival counts (nv_split_finish in kernels/nv_ptx.cl): one int per output tile
// in a scratch buffer, set to zero when the buffer grows; from then on each launch's last group of
// a tile sets its count back. Thread-safe.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>

#include "clport_common/scratch_buffer.hpp"
#include "clport_plugin/plugin_sdk.hpp"

namespace nvidia {

class ArrivalCounts {
 public:
  // `name`: what the counts are for, in errors and in the declared needs.
  ArrivalCounts(const clport_host& host, const char* name) : host_(host), scratch_(host, name) {}

  // Plan time: a launch will have `tiles` tiles.
  clport_scratch_need plan(size_t tiles) { return scratch_.plan(tiles * sizeof(cl_int)); }

  // Counts for `tiles` tiles, all zero; NULL when the device has no memory for them.
  cl_mem get(size_t tiles) {
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t bytes = tiles * sizeof(cl_int);
    cl_mem counts = scratch_.grow(bytes);
    if (counts == nullptr || bytes <= zeroed_) return counts;
    const cl_int zero = 0;
    clport::sdk::check_cl(host_.cl->clEnqueueFillBuffer(host_.queue, counts, &zero, sizeof(zero), 0, bytes, 0,
                                                        nullptr, nullptr),
                          (std::string("clEnqueueFillBuffer(") + scratch_.name() + ")").c_str());
    zeroed_ = bytes;
    return counts;
  }

 private:
  const clport_host& host_;
  clport::plugin_common::ScratchBuffer scratch_;
  std::mutex mutex_;
  size_t zeroed_ = 0;  // bytes of the newest buffer set to zero
};

}  // namespace nvidia
