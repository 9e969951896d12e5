// Splitting a fuzz input into fields: targets that take several strings (chat messages) cut the
// input at a separator byte that seed files write between them.
#pragma once

#include <string_view>
#include <vector>

inline std::vector<std::string_view> split_fuzz_input(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t at = text.find(separator); at != std::string_view::npos; at = text.find(separator, start)) {
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}
