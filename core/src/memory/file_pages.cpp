#include "memory/file_pages.h"

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace clport {

uint64_t page_bytes() {
#if defined(__unix__) || defined(__APPLE__)
  const long size = sysconf(_SC_PAGESIZE);
  if (size > 0) return static_cast<uint64_t>(size);
#endif
  return 4096;
}

PageSpan page_span(const uint8_t* data, uint64_t bytes) {
  const uint64_t page = page_bytes();
  const auto first = reinterpret_cast<uintptr_t>(data) / page * page;
  const uint64_t end = (reinterpret_cast<uintptr_t>(data) + bytes + page - 1) / page * page;
  return {reinterpret_cast<const uint8_t*>(first), end - first};
}

void release_file_pages(const uint8_t* data, uint64_t bytes) {
#if defined(__unix__) || defined(__APPLE__)
  if (data == nullptr || bytes == 0) return;
  const PageSpan span = page_span(data, bytes);
  // Advice, not a request that can fail the load: on an error the pages merely stay resident.
  (void)madvise(const_cast<uint8_t*>(span.begin), static_cast<size_t>(span.bytes), MADV_DONTNEED);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace clport
