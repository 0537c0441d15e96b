#include "actors/socket_io.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace tact {
namespace {

using AddrInfo = std::unique_ptr<addrinfo, void (*)(addrinfo*)>;

// IPv4 first, IPv6 only for a host without an IPv4 address: "localhost"
// resolves to ::1 first on many machines, and a task listening there would
// not be reached by one that connects to 127.0.0.1, nor would it reach the
// master's IPv4 listener (actors/session.cc's ListenHost).
// `host`'s TCP addresses of `family`, or null.
AddrInfo Lookup(const std::string& host, uint16_t port, int family) {
  addrinfo hints{}, *found = nullptr;
  hints.ai_family = family;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) found = nullptr;
  return AddrInfo(found, freeaddrinfo);
}

StatusOr<AddrInfo> Resolve(const std::string& host, uint16_t port) {
  for (int family : {AF_INET, AF_INET6}) {
    if (AddrInfo found = Lookup(host, port, family)) return found;
  }
  return errors::Unavailable("cannot resolve the host");
}

Status Errno(int fd) {
  const int err = errno;
  if (fd >= 0) close(fd);
  return errors::Unavailable(std::strerror(err));
}

}  // namespace

bool HasIPv4Address(const std::string& host) { return Lookup(host, 0, AF_INET) != nullptr; }

StatusOr<int> ListenTcp(const std::string& host, uint16_t port, bool reuse_address, uint16_t* bound) {
  TACT_ASSIGN_OR_RETURN(AddrInfo found, Resolve(host, port));
  const int fd = socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Errno(fd);
  const int one = 1;
  if ((reuse_address && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0) ||
      bind(fd, found->ai_addr, found->ai_addrlen) != 0 || listen(fd, 64) != 0) {
    return Errno(fd);
  }
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return Errno(fd);
  *bound = ntohs(addr.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  return fd;
}

StatusOr<int> ConnectTcp(const std::string& host, uint16_t port, int send_timeout_ms) {
  TACT_ASSIGN_OR_RETURN(AddrInfo found, Resolve(host, port));
  const int fd = socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Errno(fd);
  if (send_timeout_ms > 0) {
    timeval tv{send_timeout_ms / 1000, (send_timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  }
  if (connect(fd, found->ai_addr, found->ai_addrlen) != 0) return Errno(fd);
  return fd;
}

std::string PeerAddress(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  char text[INET6_ADDRSTRLEN] = "";
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "";
  const void* where = addr.ss_family == AF_INET6
                          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&addr)->sin6_addr)
                          : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&addr)->sin_addr);
  return inet_ntop(addr.ss_family, where, text, sizeof text) != nullptr ? text : "";
}

bool ReadExactly(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t r = read(fd, c, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    c += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

bool WriteAll(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace tact
