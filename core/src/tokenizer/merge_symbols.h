// The symbol list both merge algorithms work on: a doubly linked list over byte ranges of one
// word, where merging a pair grows the left symbol and empties the right one.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "tokenizer/utf8.h"

namespace clport::tok {

struct MergeSymbol {
  size_t offset = 0;
  size_t length = 0;  // 0 once merged into its left neighbour
  int prev = -1;
  int next = -1;
};

// One symbol per character (character boundaries by lead byte, clamped to the end).
inline std::vector<MergeSymbol> split_into_symbols(std::string_view text) {
  std::vector<MergeSymbol> symbols;
  symbols.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    MergeSymbol s;
    s.offset = pos;
    s.length = utf8_char_length_at(text, pos);
    pos += s.length;
    s.prev = static_cast<int>(symbols.size()) - 1;
    s.next = pos < text.size() ? static_cast<int>(symbols.size()) + 1 : -1;
    symbols.push_back(s);
  }
  return symbols;
}

// Merges symbols[right] into symbols[left] (its neighbour) and unlinks it.
inline void merge_into_left(std::vector<MergeSymbol>& symbols, int left, int right) {
  MergeSymbol& l = symbols[static_cast<size_t>(left)];
  MergeSymbol& r = symbols[static_cast<size_t>(right)];
  l.length += r.length;
  r.length = 0;
  l.next = r.next;
  if (r.next >= 0) symbols[static_cast<size_t>(r.next)].prev = left;
}

inline std::string_view symbol_text(std::string_view text, const MergeSymbol& s) {
  return text.substr(s.offset, s.length);
}

}  // namespace clport::tok
