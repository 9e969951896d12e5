#include "common/dtype.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>
#include <string>

#include "clport_plugin/dtype_table.hpp"

namespace clport {
namespace {

// The SDK's table (clport_plugin/dtype_table.hpp) in the core's types.
constexpr size_t kCount = std::size(sdk::kDTypeLayouts);
constexpr std::array<DTypeTraits, kCount> make_traits() {
  std::array<DTypeTraits, kCount> out{};
  for (size_t i = 0; i < kCount; ++i) {
    const sdk::DTypeLayout& d = sdk::kDTypeLayouts[i];
    out[i] = DTypeTraits{static_cast<DType>(d.id), d.name, d.block_size, d.block_bytes, d.quantized};
  }
  return out;
}
constexpr std::array<DTypeTraits, kCount> kTraits = make_traits();

}  // namespace

std::optional<DTypeTraits> dtype_traits(int32_t id) {
  for (const auto& t : kTraits) {
    if (static_cast<int32_t>(t.dtype) == id) return t;
  }
  return std::nullopt;
}

const DTypeTraits& traits(DType dtype) {
  for (const auto& t : kTraits) {
    if (t.dtype == dtype) return t;
  }
  return kTraits[0];  // unreachable for a valid enum value
}

std::optional<DType> dtype_from_name(std::string_view name) {
  auto lower = [](std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
  };
  const std::string wanted = lower(name);
  for (const auto& t : kTraits) {
    if (lower(t.name) == wanted) return t.dtype;
  }
  return std::nullopt;
}

std::optional<int64_t> row_bytes(DType dtype, int64_t n) {
  const auto& t = traits(dtype);
  if (n < 0 || n % t.block_size != 0) return std::nullopt;
  int64_t bytes = 0;
  // Sizes come from files: an overflow is a malformed input, not undefined behaviour.
  if (__builtin_mul_overflow(n / t.block_size, t.block_bytes, &bytes)) return std::nullopt;
  return bytes;
}

}  // namespace clport
