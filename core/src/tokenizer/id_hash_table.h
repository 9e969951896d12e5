// A hash table of int32 ids whose keys live elsewhere (a vocabulary's token texts, its merge
// lines): open addressing with linear probing, 4 bytes a slot at most half full. A
// std::unordered_map<std::string_view, int32_t> spends a node of about 40 bytes per entry plus its
// bucket array: 12.7 MiB for Gemma 3's 262144 tokens, against 2 MiB here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace clport::tok {

class IdHashTable {
 public:
  // Room for `entries` ids.
  explicit IdHashTable(size_t entries = 0) {
    size_t capacity = 16;
    while (capacity < 2 * entries) capacity *= 2;
    slots_.assign(capacity, kEmpty);
  }

  // The slot that holds the id whose key `is_key(id)` accepts, or the empty slot where such an id
  // goes: *slot < 0 when none is there yet. `hash` is the key's hash.
  template <class IsKey>
  int32_t* slot(size_t hash, IsKey is_key) {
    return &slots_[probe(hash, is_key)];
  }

  // The id whose key `is_key(id)` accepts, or -1.
  template <class IsKey>
  int32_t find(size_t hash, IsKey is_key) const {
    return slots_[probe(hash, is_key)];
  }

 private:
  // Linear probing from the hash's slot to the key's id or the first empty slot.
  template <class IsKey>
  size_t probe(size_t hash, IsKey is_key) const {
    size_t i = hash & (slots_.size() - 1);
    while (slots_[i] != kEmpty && !is_key(slots_[i])) i = (i + 1) & (slots_.size() - 1);
    return i;
  }

  static constexpr int32_t kEmpty = -1;
  std::vector<int32_t> slots_;  // a power of two
};

}  // namespace clport::tok
