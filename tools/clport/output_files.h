// Output that can fail: a full disk, /dev/full, a closed pipe or a missing directory must end the
// command with an error naming what could not be written, never with exit 0 and a lost or empty
// file. Files are written whole to a temporary beside them and renamed (a reader never sees half
// of one, and a failure leaves the old file as it was).
#pragma once

#include <string>

#include "clport/status.h"

namespace clport::cli {

// The exit code of a failed write: 10 + Stage::Io, as every other file-system failure.
inline constexpr int kOutputFailedExit = 10 + static_cast<int>(Stage::Io);

// Writes `contents` to `path` atomically. Returns 0, or prints "clport COMMAND: cannot write
// the FLAG file PATH: reason" and returns kOutputFailedExit.
int write_output_file(const std::string& command, const std::string& flag, const std::string& path,
                      const std::string& contents);

// Flushes standard output after a command and checks every write to it succeeded. Returns
// `exit_code` when they did; else prints why on stderr and returns kOutputFailedExit (or the
// command's own code when it had failed already).
int finish_standard_output(const std::string& command, int exit_code);

}  // namespace clport::cli
