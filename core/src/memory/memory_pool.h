// Device buffer pool for one OpenCL context.
//
// Two mechanisms, because OpenCL buffer creation is slow on many mobile drivers and some of
// them leak or fragment when thousands of small buffers come and go:
//  - size-class buckets: a request is rounded up to a size class (4 classes per power of two,
//    so at most 25% rounding waste); a freed buffer is parked in its class's bucket and the next
//    request of that class reuses it without calling OpenCL (a "hit");
//  - sub-allocation of large blocks: requests up to `sub_alloc_max_bytes` are carved out of
//    large blocks with clCreateSubBuffer at offsets aligned to the device's base-address
//    alignment; bigger requests (or when sub-buffers are unavailable) get a dedicated buffer.
// Idle memory (parked buffers, empty blocks) goes back to OpenCL on trim(). Every allocation
// failure is a Status (OutOfMemory) and leaves the pool as it was. Thread safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "clport_plugin/cl_api.h"
#include "clport/export.h"
#include "clport/status.h"

namespace clport {

struct MemoryPoolOptions {
  // Offsets of sub-buffers and size classes are multiples of this. 0: the device's
  // CL_DEVICE_MEM_BASE_ADDR_ALIGN (given to the constructor), at least 128 bytes.
  size_t alignment = 0;
  // Size of the large blocks small requests are carved from (clamped to the max allocation).
  size_t block_bytes = size_t{32} << 20;
  // Requests up to this size are sub-allocated; larger ones get their own buffer.
  size_t sub_alloc_max_bytes = size_t{4} << 20;
  // False: never use clCreateSubBuffer (every request gets a dedicated buffer).
  bool use_sub_buffers = true;
  // Idle (parked) bytes above this are released at once instead of parked. 0: no limit.
  size_t max_idle_bytes = 0;
  cl_mem_flags flags = CL_MEM_READ_WRITE;
};

struct MemoryPoolStats {
  uint64_t live_bytes = 0;           // size-class bytes handed out and not yet freed
  uint64_t requested_bytes = 0;      // bytes callers asked for (live), before rounding
  uint64_t peak_requested_bytes = 0;
  uint64_t peak_live_bytes = 0;
  uint64_t reserved_bytes = 0;       // bytes held from OpenCL: blocks + dedicated buffers
  uint64_t peak_reserved_bytes = 0;
  uint64_t idle_bytes = 0;           // parked in buckets, ready for reuse
  uint64_t live_allocations = 0;
  uint64_t blocks = 0;               // large blocks currently held
  uint64_t dedicated_buffers = 0;    // dedicated buffers currently held (live or parked)
  uint64_t allocations = 0;          // successful allocate() calls
  uint64_t reuse_hits = 0;           // of those, served from a bucket without OpenCL
  uint64_t failures = 0;             // allocate() calls that returned an error
  uint64_t frees = 0;
  uint64_t released_to_driver = 0;   // buffers handed back by trim() / the idle limit
  // Share of free space inside blocks that is not in the largest free range (0 = one hole).
  double fragmentation = 0.0;

  double hit_rate() const { return allocations ? double(reuse_hits) / double(allocations) : 0.0; }
  CLPORT_API std::string to_string() const;
  CLPORT_API std::string to_json() const;
};

class CLPORT_API MemoryPool {
 public:
  // `device_base_align_bytes` and `max_alloc_bytes` come from the device probe (0 = unknown).
  MemoryPool(const clport_cl_api& cl, cl_context context, uint32_t device_base_align_bytes,
             uint64_t max_alloc_bytes, MemoryPoolOptions options = {});
  ~MemoryPool();  // releases everything, including buffers still live (callers leaked them)
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  // A buffer of at least `bytes` bytes. OutOfMemory when OpenCL cannot provide it (after
  // releasing idle memory and trying once more), InvalidArgument for 0 or > max allocation.
  Result<cl_mem> allocate(size_t bytes);
  // Returns a buffer from allocate() to the pool for reuse. InvalidArgument when the buffer is
  // not a live allocation of this pool (the buffer is left alone).
  Status free(cl_mem buffer);
  // Releases idle memory (parked buffers and empty blocks) to OpenCL; returns the bytes freed.
  size_t trim();

  MemoryPoolStats stats() const;
  size_t alignment() const;
  // The size class `bytes` is rounded up to.
  size_t size_class(size_t bytes) const;
  // True when small requests are carved out of blocks with clCreateSubBuffer.
  bool sub_allocation_enabled() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace clport
