// Pages of a read-only file mapping, seen from the memory they cost: a weight used in place is
// handed to a device as the mapping's own pages, and a weight that was copied or repacked
// gives its pages back, so that the model file is not resident a second time next to the
// layout made from it.
#pragma once

#include <cstdint>

namespace clport {

// The system's page size (4096 where it cannot be asked).
uint64_t page_bytes();

// The whole pages that hold [data, data + bytes): the first page's address and the length up
// to the end of the last page.
struct PageSpan {
  const uint8_t* begin = nullptr;
  uint64_t bytes = 0;
};
PageSpan page_span(const uint8_t* data, uint64_t bytes);

// Drops the resident pages of [data, data + bytes), which must lie in a read-only file mapping
// (never written, so the next read faults the same bytes in from the file again). Pages at
// either end shared with a neighbour go too and come back the same way when it is read. A
// no-op where the system has no madvise.
void release_file_pages(const uint8_t* data, uint64_t bytes);

// The smallest weight worth using in place from the mapping. The page cache may hold a file in
// folios of up to 2 MiB (ext4 and xfs on Linux 6.x), and a read fault maps the whole folio
// around the page read: a 2 KiB norm used in place between two repacked projections brought
// their released pages back, 25 of SmolLM2's 94 MiB on PoCL. Copying a smaller weight costs its
// own size; a larger one maps at most its neighbours' edges.
constexpr uint64_t kInPlaceMinBytes = 2ull << 20;

}  // namespace clport
