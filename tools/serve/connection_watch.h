// Whether the client of a request being answered has hung up.
//
// cpp-httplib 0.11 (Debian 12's) hands a handler no access to its connection, so a non-streamed
// answer would notice a client that went away only when it finally writes, after generating every
// token for nobody. The socket is found among the process's descriptors by the connection's two
// addresses, which the request carries; while the handler runs, httplib keeps it open, so the
// descriptor stays this connection's. A client that shuts down only its sending side counts as
// gone, as it does for llama.cpp's server.
#pragma once

namespace httplib {
struct Request;
}

namespace clport::serve {

class ConnectionWatch {
 public:
  // Finds the request's socket; a watch that found none never reports a hang-up.
  explicit ConnectionWatch(const httplib::Request& req);

  bool found() const { return fd_ >= 0; }
  // True once the peer has closed the connection (end of stream or an error on the socket);
  // a request it pipelined after this one does not count.
  bool peer_closed() const;

 private:
  int fd_ = -1;
};

}  // namespace clport::serve
