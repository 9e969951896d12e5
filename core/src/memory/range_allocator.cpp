#include "memory/range_allocator.h"

#include <algorithm>
#include <iterator>

namespace clport::memory {

RangeAllocator::RangeAllocator(size_t size) : size_(size) {
  if (size > 0) free_.emplace(0, size);
}

std::optional<size_t> RangeAllocator::allocate(size_t bytes) {
  if (bytes == 0) return std::nullopt;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < bytes) continue;
    const size_t offset = it->first;
    const size_t rest = it->second - bytes;
    free_.erase(it);
    if (rest > 0) free_.emplace(offset + bytes, rest);
    used_ += bytes;
    return offset;
  }
  return std::nullopt;
}

void RangeAllocator::release(size_t offset, size_t bytes) {
  if (bytes == 0) return;
  used_ -= std::min(used_, bytes);
  auto next = free_.lower_bound(offset);
  size_t start = offset;
  size_t length = bytes;
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      start = prev->first;
      length += prev->second;
      free_.erase(prev);
    }
  }
  if (next != free_.end() && offset + bytes == next->first) {
    length += next->second;
    free_.erase(next);
  }
  free_.emplace(start, length);
}

size_t RangeAllocator::largest_free_range() const {
  size_t largest = 0;
  for (const auto& [offset, length] : free_) largest = std::max(largest, length);
  return largest;
}

}  // namespace clport::memory
