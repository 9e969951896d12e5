// MemoryPool: size-class buckets of parked buffers in front of sub-allocated blocks and
// dedicated buffers (see memory/memory_pool.h for the why).
#include "memory/memory_pool.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common/logger.h"
#include "loader/opencl_loader.h"
#include "memory/range_allocator.h"

namespace clport {
namespace {

constexpr size_t kMinAlignment = 128;  // a cache line on every GPU we know; sane if unknown

bool is_out_of_memory(cl_int err) {
  return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
         err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE;
}

size_t round_up(size_t value, size_t multiple) { return (value + multiple - 1) / multiple * multiple; }

}  // namespace

// Named (not anonymous) because MemoryPool::Impl, which has external linkage, holds them.
namespace memory_pool_detail {

struct Block {
  cl_mem mem = nullptr;
  memory::RangeAllocator ranges;
  explicit Block(cl_mem m, size_t size) : mem(m), ranges(size) {}
};

struct Allocation {
  size_t class_bytes = 0;
  size_t requested = 0;
  Block* block = nullptr;  // null: a dedicated buffer
  size_t offset = 0;
};

}  // namespace memory_pool_detail

using memory_pool_detail::Allocation;
using memory_pool_detail::Block;

struct MemoryPool::Impl {
  const clport_cl_api& cl;
  cl_context context;
  size_t alignment;
  uint64_t max_alloc;
  MemoryPoolOptions options;
  bool sub_buffers;

  mutable std::mutex mutex;
  std::vector<std::unique_ptr<Block>> blocks;
  std::unordered_map<cl_mem, Allocation> live;
  std::map<size_t, std::vector<std::pair<cl_mem, Allocation>>> idle;  // class -> parked
  MemoryPoolStats stats;  // counters; derived fields are filled in by stats()
  uint64_t dedicated_bytes = 0;
  uint64_t block_bytes_total = 0;

  Impl(const clport_cl_api& api, cl_context ctx, size_t align, uint64_t max, MemoryPoolOptions o)
      : cl(api), context(ctx), alignment(align), max_alloc(max), options(o),
        sub_buffers(o.use_sub_buffers && api.clCreateSubBuffer != nullptr) {}

  void update_peaks() {
    stats.peak_live_bytes = std::max(stats.peak_live_bytes, stats.live_bytes);
    stats.peak_requested_bytes = std::max(stats.peak_requested_bytes, stats.requested_bytes);
    stats.reserved_bytes = dedicated_bytes + block_bytes_total;
    stats.peak_reserved_bytes = std::max(stats.peak_reserved_bytes, stats.reserved_bytes);
  }

  // Gives a buffer (live or parked) back to OpenCL; returns the reserved bytes that went away.
  size_t release_buffer(cl_mem mem, const Allocation& a) {
    cl.clReleaseMemObject(mem);
    ++stats.released_to_driver;
    if (a.block != nullptr) {
      a.block->ranges.release(a.offset, a.class_bytes);
      return 0;  // the block itself stays reserved until trim()
    }
    dedicated_bytes -= a.class_bytes;
    --stats.dedicated_buffers;
    return a.class_bytes;
  }

  size_t release_idle() {
    size_t freed = 0;
    for (auto& [cls, parked] : idle) {
      for (auto& [mem, a] : parked) freed += release_buffer(mem, a);
      stats.idle_bytes -= cls * parked.size();
    }
    idle.clear();
    for (auto it = blocks.begin(); it != blocks.end();) {
      if ((*it)->ranges.used() == 0) {
        cl.clReleaseMemObject((*it)->mem);
        freed += (*it)->ranges.size();
        block_bytes_total -= (*it)->ranges.size();
        it = blocks.erase(it);
      } else {
        ++it;
      }
    }
    stats.blocks = blocks.size();
    update_peaks();
    return freed;
  }

  Result<cl_mem> create_dedicated(size_t cls, Allocation& a) {
    cl_int err = CL_SUCCESS;
    cl_mem mem = cl.clCreateBuffer(context, options.flags, cls, nullptr, &err);
    if (mem == nullptr || err != CL_SUCCESS) {
      if (mem != nullptr) cl.clReleaseMemObject(mem);
      return Status(is_out_of_memory(err) ? Stage::OutOfMemory : Stage::Device,
                    "clCreateBuffer(" + std::to_string(cls) + " bytes) failed: " +
                        cl_error_name(err));
    }
    a = Allocation{cls, 0, nullptr, 0};
    dedicated_bytes += cls;
    ++stats.dedicated_buffers;
    return mem;
  }

  // A free range of `cls` bytes in some block, making a new block when none has room.
  Block* find_room(size_t cls, size_t& offset, Status& failure) {
    for (auto& block : blocks) {
      if (auto at = block->ranges.allocate(cls)) {
        offset = *at;
        return block.get();
      }
    }
    size_t size = std::max(options.block_bytes, cls);
    if (max_alloc != 0) size = std::min<uint64_t>(size, max_alloc);
    size = std::max(size, cls);
    cl_int err = CL_SUCCESS;
    cl_mem mem = cl.clCreateBuffer(context, options.flags, size, nullptr, &err);
    if (mem == nullptr || err != CL_SUCCESS) {
      if (mem != nullptr) cl.clReleaseMemObject(mem);
      failure = Status(is_out_of_memory(err) ? Stage::OutOfMemory : Stage::Device,
                       "clCreateBuffer(block of " + std::to_string(size) + " bytes) failed: " +
                           cl_error_name(err));
      return nullptr;
    }
    blocks.push_back(std::make_unique<Block>(mem, size));
    block_bytes_total += size;
    stats.blocks = blocks.size();
    offset = *blocks.back()->ranges.allocate(cls);
    return blocks.back().get();
  }

  Result<cl_mem> create_sub_buffer(size_t cls, Allocation& a) {
    size_t offset = 0;
    Status failure;
    Block* block = find_room(cls, offset, failure);
    if (block == nullptr) return failure;
    cl_buffer_region region{offset, cls};
    cl_int err = CL_SUCCESS;
    const cl_mem_flags access =
        options.flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY);
    cl_mem mem = cl.clCreateSubBuffer(block->mem, access, CL_BUFFER_CREATE_TYPE_REGION, &region,
                                      &err);
    if (mem == nullptr || err != CL_SUCCESS) {
      if (mem != nullptr) cl.clReleaseMemObject(mem);
      block->ranges.release(offset, cls);  // the pool stays as it was
      return Status(is_out_of_memory(err) ? Stage::OutOfMemory : Stage::Device,
                    "clCreateSubBuffer(offset " + std::to_string(offset) + ", " +
                        std::to_string(cls) + " bytes) failed: " + cl_error_name(err));
    }
    a = Allocation{cls, 0, block, offset};
    return mem;
  }

  // New OpenCL memory for one size class: a sub-buffer when small enough, else (or when that
  // fails) a dedicated buffer of its own.
  Result<cl_mem> create(size_t cls, Allocation& a) {
    std::string tried;
    if (sub_buffers && cls <= options.sub_alloc_max_bytes) {
      auto sub = create_sub_buffer(cls, a);
      if (sub.ok()) return sub;
      tried = sub.status().message() + "; then ";
      logger("memory")->debug("sub-allocation failed ({}); using a dedicated buffer",
                              sub.status().message());
    }
    auto dedicated = create_dedicated(cls, a);
    if (dedicated.ok()) return dedicated;
    return Status(dedicated.status().stage(), tried + dedicated.status().message());
  }
};

MemoryPool::MemoryPool(const clport_cl_api& cl, cl_context context,
                       uint32_t device_base_align_bytes, uint64_t max_alloc_bytes,
                       MemoryPoolOptions options) {
  size_t alignment = options.alignment != 0 ? options.alignment : device_base_align_bytes;
  alignment = std::max(alignment, kMinAlignment);
  // Sub-buffer offsets must be multiples of the device alignment; keep it a power of two.
  size_t pow2 = kMinAlignment;
  while (pow2 < alignment) pow2 <<= 1;
  impl_ = std::make_unique<Impl>(cl, context, pow2, max_alloc_bytes, options);
}

MemoryPool::~MemoryPool() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (!impl_->live.empty()) {
    logger("memory")->warn("pool destroyed with {} buffers still in use ({} bytes)",
                           impl_->live.size(), impl_->stats.live_bytes);
  }
  for (auto& [mem, a] : impl_->live) impl_->release_buffer(mem, a);
  impl_->live.clear();
  impl_->release_idle();
}

size_t MemoryPool::alignment() const { return impl_->alignment; }
bool MemoryPool::sub_allocation_enabled() const { return impl_->sub_buffers; }

size_t MemoryPool::size_class(size_t bytes) const {
  const size_t align = impl_->alignment;
  if (bytes <= align) return align;
  // Four classes per power of two: the step is a quarter of the largest power of two <= bytes.
  size_t power = align;
  while (power <= bytes / 2) power <<= 1;
  return round_up(bytes, std::max(power / 4, align));
}

Result<cl_mem> MemoryPool::allocate(size_t bytes) {
  Impl& p = *impl_;
  if (bytes == 0) return Status(Stage::InvalidArgument, "cannot allocate a 0-byte buffer");
  std::lock_guard<std::mutex> lock(p.mutex);
  if (p.max_alloc != 0 && bytes > p.max_alloc) {
    ++p.stats.failures;
    return Status(Stage::OutOfMemory, "buffer of " + std::to_string(bytes) +
                                          " bytes exceeds the device's max allocation (" +
                                          std::to_string(p.max_alloc) + " bytes)");
  }
  size_t cls = size_class(bytes);
  if (p.max_alloc != 0 && cls > p.max_alloc) cls = bytes;  // rounding must not break the limit

  Allocation a;
  cl_mem mem = nullptr;
  if (auto bucket = p.idle.find(cls); bucket != p.idle.end() && !bucket->second.empty()) {
    std::tie(mem, a) = bucket->second.back();
    bucket->second.pop_back();
    p.stats.idle_bytes -= cls;
    ++p.stats.reuse_hits;
  } else {
    auto created = p.create(cls, a);
    // Memory parked in other size classes may be what stands in the way: give it back, retry.
    if (!created.ok() && created.status().stage() == Stage::OutOfMemory && p.release_idle() > 0) {
      created = p.create(cls, a);
    }
    if (!created.ok()) {
      ++p.stats.failures;
      p.update_peaks();
      return Status(created.status().stage(),
                    "device buffer of " + std::to_string(bytes) + " bytes: " +
                        created.status().message() +
                        " (pool: " + std::to_string(p.stats.live_bytes) + " bytes live)");
    }
    mem = created.value();
  }
  a.requested = bytes;
  p.live.emplace(mem, a);
  ++p.stats.allocations;
  ++p.stats.live_allocations;
  p.stats.live_bytes += cls;
  p.stats.requested_bytes += bytes;
  p.update_peaks();
  return mem;
}

Status MemoryPool::free(cl_mem buffer) {
  Impl& p = *impl_;
  std::lock_guard<std::mutex> lock(p.mutex);
  auto found = p.live.find(buffer);
  if (found == p.live.end()) {
    return Status(Stage::InvalidArgument,
                  "free of a buffer that is not live in this pool (double free or foreign buffer)");
  }
  const Allocation a = found->second;
  p.live.erase(found);
  ++p.stats.frees;
  --p.stats.live_allocations;
  p.stats.live_bytes -= a.class_bytes;
  p.stats.requested_bytes -= a.requested;
  if (p.options.max_idle_bytes != 0 &&
      p.stats.idle_bytes + a.class_bytes > p.options.max_idle_bytes) {
    p.release_buffer(buffer, a);
  } else {
    p.idle[a.class_bytes].emplace_back(buffer, a);
    p.stats.idle_bytes += a.class_bytes;
  }
  p.update_peaks();
  return Status::ok_status();
}

size_t MemoryPool::trim() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->release_idle();
}

MemoryPoolStats MemoryPool::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  MemoryPoolStats s = impl_->stats;
  s.reserved_bytes = impl_->dedicated_bytes + impl_->block_bytes_total;
  s.blocks = impl_->blocks.size();
  size_t free_total = 0, largest = 0;
  for (const auto& block : impl_->blocks) {
    free_total += block->ranges.free_bytes();
    largest = std::max(largest, block->ranges.largest_free_range());
  }
  s.fragmentation = free_total != 0 ? 1.0 - double(largest) / double(free_total) : 0.0;
  return s;
}

}  // namespace clport
