#include "engine_flags.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace clport::cli {

EngineCore::Progress terminal_progress_bar() {
  if (!isatty(STDERR_FILENO)) return {};
  return [last = -1](uint64_t done, uint64_t total) mutable {
    const int percent = total ? static_cast<int>(done * 100 / total) : 100;
    if (percent == last) return;
    last = percent;
    const int width = 30, filled = percent * width / 100;
    std::fprintf(stderr, "\rloading [%s%s] %3d%%", std::string(filled, '#').c_str(),
                 std::string(width - filled, ' ').c_str(), percent);
    if (percent == 100) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  };
}

int report_failure(const char* what, const Status& status) {
  std::cerr << "clport " << what << ": " << status.to_string() << "\n";
  return exit_code_of(status);
}

}  // namespace clport::cli
