#include "stop_strings.h"

#include <algorithm>

namespace clport::serve {

std::string StopStrings::push(const std::string& text) {
  if (stopped_) return {};
  held_ += text;
  // The earliest stop string in the held text ends the generation there. Everything shown before
  // was checked not to start one, so a match can only begin inside held_.
  size_t first = std::string::npos;
  for (const auto& s : stop_) first = std::min(first, held_.find(s));
  if (first != std::string::npos) {
    stopped_ = true;
    std::string shown = held_.substr(0, first);
    held_.clear();
    return shown;
  }
  // Hold back the longest ending of held_ that is the beginning of a stop string.
  size_t keep = 0;
  for (const auto& s : stop_) {
    for (size_t n = std::min(s.size() - 1, held_.size()); n > keep; --n) {
      if (held_.compare(held_.size() - n, n, s, 0, n) == 0) {
        keep = n;
        break;
      }
    }
  }
  std::string shown = held_.substr(0, held_.size() - keep);
  held_.erase(0, held_.size() - keep);
  return shown;
}

std::string StopStrings::flush() {
  std::string rest;
  rest.swap(held_);
  return stopped_ ? std::string() : rest;
}

}  // namespace clport::serve
