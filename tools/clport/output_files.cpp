#include "output_files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "common/atomic_file.h"

namespace clport::cli {

int write_output_file(const std::string& command, const std::string& flag, const std::string& path,
                      const std::string& contents) {
  const Status written = write_file_atomically(path, contents);
  if (written.ok()) return 0;
  std::cerr << "clport " << command << ": cannot write the " << flag << " file " << path << ": "
            << written.message() << "\n";
  return kOutputFailedExit;
}

int finish_standard_output(const std::string& command, int exit_code) {
  // std::cout shares stdio's buffer (synchronised with stdio): both must be flushed, and an
  // error in either is sticky, so one check at the end sees every failed write.
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (flushed && !std::ferror(stdout) && !std::cout.fail()) return exit_code;
  std::cerr << "clport " << command << ": cannot write to standard output"
            << (error != 0 ? std::string(": ") + std::strerror(error) : std::string()) << "\n";
  return exit_code != 0 ? exit_code : kOutputFailedExit;
}

}  // namespace clport::cli
