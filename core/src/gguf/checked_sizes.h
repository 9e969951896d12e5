// Row sizes computed without overflow, for shapes that come from untrusted files or callers.
// (clport::row_bytes assumes a row that fits; this checks first, then defers to it.)
#pragma once

#include <cstdint>
#include <optional>

#include "common/dtype.h"

namespace clport::gguf_detail {

enum class RowCheck { Ok, NotBlockMultiple, Overflow };

inline RowCheck checked_row_bytes(DType dtype, int64_t n, int64_t& out) {
  const DTypeTraits& t = traits(dtype);
  if (n < 0 || n % t.block_size != 0) return RowCheck::NotBlockMultiple;
  int64_t bytes = 0;
  if (__builtin_mul_overflow(n / t.block_size, t.block_bytes, &bytes)) return RowCheck::Overflow;
  const auto row = row_bytes(dtype, n);  // safe now; keeps one definition of the layout
  if (!row) return RowCheck::NotBlockMultiple;
  out = *row;
  return RowCheck::Ok;
}

}  // namespace clport::gguf_detail
