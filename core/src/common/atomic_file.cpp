#include "common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

namespace clport {
namespace {

// Unique among processes (the pid), threads of one process (the counter) and a pid reused after
// a crash left a temporary behind (the random part).
std::string temporary_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1)) + "." +
         std::to_string(std::random_device{}());
}

Status io_failure(const std::string& what, const std::string& path, int error) {
  return Status(Stage::Io, what + " '" + path + "': " + std::strerror(error));
}

}  // namespace

Status write_file_atomically(const std::string& path, std::string_view contents) {
  const std::string tmp = temporary_name(path);
  // 0666 less the umask, as a stream would create it; O_EXCL never follows a planted link.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return io_failure("cannot create", tmp, errno);
  Status st;
  size_t done = 0;
  while (st.ok() && done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) st = io_failure("cannot write", tmp, n < 0 ? errno : EIO);
    else done += static_cast<size_t>(n);
  }
  // Some file systems (NFS, quotas) report a full disk only when the file is closed.
  if (::close(fd) != 0 && st.ok()) st = io_failure("cannot close", tmp, errno);
  if (st.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) {
    st = Status(Stage::Io, "cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(errno));
  }
  if (!st.ok()) std::remove(tmp.c_str());
  return st;
}

}  // namespace clport
