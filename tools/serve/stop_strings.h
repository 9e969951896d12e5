// Stop strings over streamed text: the text a client may see now, holding back an ending that
// could still grow into a stop string, so a stream never shows part of a stop string and a
// stop string split across tokens is still found.
#pragma once

#include <string>
#include <vector>

namespace clport::serve {

class StopStrings {
 public:
  explicit StopStrings(std::vector<std::string> stop) : stop_(std::move(stop)) {}
  // Appends generated text; returns what may be shown now. Once a stop string appears, returns
  // the text before it and stopped() is true (later pushes return nothing).
  std::string push(const std::string& text);
  // The generation ended without a stop string: the text held back.
  std::string flush();
  bool stopped() const { return stopped_; }

 private:
  std::vector<std::string> stop_;
  std::string held_;  // pushed, not yet shown
  bool stopped_ = false;
};

}  // namespace clport::serve
