#include "clport/dtype.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace clport {
namespace {

// Block sizes and byte sizes are the GGUF format's published layouts.
constexpr DTypeTraits kTraits[] = {
    {DType::F32, "f32", 1, 4, false},      {DType::F16, "f16", 1, 2, false},
    {DType::Q4_0, "q4_0", 32, 18, true},   {DType::Q4_1, "q4_1", 32, 20, true},
    {DType::Q5_0, "q5_0", 32, 22, true},   {DType::Q5_1, "q5_1", 32, 24, true},
    {DType::Q8_0, "q8_0", 32, 34, true},   {DType::Q4_K, "q4_K", 256, 144, true},
    {DType::Q5_K, "q5_K", 256, 176, true}, {DType::Q6_K, "q6_K", 256, 210, true},
    {DType::I32, "i32", 1, 4, false},      {DType::Q2_K, "q2_K", 256, 84, true},
    {DType::Q3_K, "q3_K", 256, 110, true}, {DType::IQ4_NL, "iq4_nl", 32, 18, true},
    {DType::BF16, "bf16", 1, 2, false},
};

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
