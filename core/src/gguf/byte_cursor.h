// Bounds-checked little-endian reading over an untrusted byte range. Every read first proves
// that the bytes exist (with overflow-safe arithmetic), so the parser never touches memory past
// the end of the file however the counts and lengths in it lie.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace clport::gguf_detail {

class ByteCursor {
 public:
  ByteCursor(const uint8_t* base, uint64_t size) : base_(base), size_(size) {}

  uint64_t pos() const { return pos_; }
  uint64_t size() const { return size_; }
  uint64_t remaining() const { return size_ - pos_; }
  const uint8_t* base() const { return base_; }
  const uint8_t* here() const { return base_ + pos_; }

  // True (and the cursor advanced) when `n` more bytes exist.
  bool skip(uint64_t n) {
    if (n > remaining()) return false;
    pos_ += n;
    return true;
  }

  template <typename T>
  bool read(T& out) {
    static_assert(std::is_trivially_copyable_v<T>, "plain values only");
    if (sizeof(T) > remaining()) return false;
    std::memcpy(&out, base_ + pos_, sizeof(T));  // file is little-endian, as is every host we build for
    pos_ += sizeof(T);
    return true;
  }

  // A view of `n` bytes at the cursor, advancing past them.
  bool read_bytes(uint64_t n, std::string_view& out) {
    if (n > remaining()) return false;
    out = std::string_view(reinterpret_cast<const char*>(base_ + pos_), static_cast<size_t>(n));
    pos_ += n;
    return true;
  }

 private:
  const uint8_t* base_;
  uint64_t size_;
  uint64_t pos_ = 0;
};

static_assert(sizeof(float) == 4 && sizeof(double) == 8, "IEEE floats expected");

}  // namespace clport::gguf_detail
