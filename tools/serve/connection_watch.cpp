#include "connection_watch.h"

#include <httplib.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace clport::serve {
namespace {

// The numeric host and port of a socket address, formatted as httplib formats the request's.
bool numeric_address(const sockaddr_storage& addr, socklen_t len, std::string& host, int& port) {
  char h[NI_MAXHOST];
  char p[NI_MAXSERV];
  if (getnameinfo(reinterpret_cast<const sockaddr*>(&addr), len, h, sizeof h, p, sizeof p,
                  NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    return false;
  }
  host = h;
  port = std::atoi(p);
  return true;
}

bool is_connection(int fd, const httplib::Request& req) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return false;
  sockaddr_storage local{};
  sockaddr_storage peer{};
  socklen_t local_len = sizeof local;
  socklen_t peer_len = sizeof peer;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0) return false;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0) return false;
  std::string local_host;
  std::string peer_host;
  int local_port = -1;
  int peer_port = -1;
  return numeric_address(local, local_len, local_host, local_port) &&
         numeric_address(peer, peer_len, peer_host, peer_port) && local_port == req.local_port &&
         peer_port == req.remote_port && local_host == req.local_addr && peer_host == req.remote_addr;
}

}  // namespace

ConnectionWatch::ConnectionWatch(const httplib::Request& req) {
  if (req.remote_port < 0 || req.local_port < 0) return;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    char* end = nullptr;
    const std::string name = entry.path().filename().string();
    const long fd = std::strtol(name.c_str(), &end, 10);
    if (end == name.c_str() || *end != '\0') continue;
    if (is_connection(static_cast<int>(fd), req)) {
      fd_ = static_cast<int>(fd);
      return;
    }
  }
}

bool ConnectionWatch::peer_closed() const {
  if (fd_ < 0) return false;
  pollfd p{fd_, POLLIN | POLLRDHUP, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLHUP | POLLERR | POLLRDHUP)) return true;
  if (!(p.revents & POLLIN)) return false;
  char byte;
  const ssize_t n = recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

}  // namespace clport::serve
