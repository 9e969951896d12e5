// Test helper: builds GGUF blocks byte by byte, little-endian, straight from the layout
// definitions, so the known-vector tests do not depend on clport's own encoders.
#pragma once

#include <cstdint>
#include <vector>

namespace clport::test {

class BlockBuilder {
 public:
  BlockBuilder& u8(uint8_t v) {
    bytes_.push_back(v);
    return *this;
  }
  BlockBuilder& half_bits(uint16_t h) {  // a half given by its bit pattern
    bytes_.push_back(static_cast<uint8_t>(h & 0xff));
    bytes_.push_back(static_cast<uint8_t>(h >> 8));
    return *this;
  }
  BlockBuilder& u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<uint8_t>((v >> (8 * i)) & 0xff));
    return *this;
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  size_t size() const { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
};

// Half bit patterns used by the tests.
inline constexpr uint16_t kHalfOne = 0x3c00;       // 1.0
inline constexpr uint16_t kHalfHalf = 0x3800;      // 0.5
inline constexpr uint16_t kHalfQuarter = 0x3400;   // 0.25
inline constexpr uint16_t kHalfTwo = 0x4000;       // 2.0
inline constexpr uint16_t kHalfMinusOne = 0xbc00;  // -1.0

}  // namespace clport::test
