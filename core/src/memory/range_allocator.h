// First-fit allocator of byte ranges inside one large block, with coalescing of neighbours on
// release. Pure bookkeeping (no OpenCL), so it is unit-tested on its own.
#pragma once

#include <cstddef>
#include <map>
#include <optional>

namespace clport::memory {

class RangeAllocator {
 public:
  explicit RangeAllocator(size_t size);

  // Offset of a free range of `bytes` (a multiple of the alignment the caller keeps), or none.
  std::optional<size_t> allocate(size_t bytes);
  // Gives back a range from allocate(); merges it with free neighbours.
  void release(size_t offset, size_t bytes);

  size_t size() const { return size_; }
  size_t used() const { return used_; }
  size_t free_bytes() const { return size_ - used_; }
  size_t largest_free_range() const;
  size_t free_range_count() const { return free_.size(); }

 private:
  size_t size_;
  size_t used_ = 0;
  std::map<size_t, size_t> free_;  // offset -> length, non-overlapping, never adjacent
};

}  // namespace clport::memory
