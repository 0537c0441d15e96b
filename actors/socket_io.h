// Whole reads and writes on a blocking socket, for the handshakes and
// frames tact speaks beside CAF (tensor links, the cluster gate).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "graph/status.h"

namespace tact {

// The sockets tact opens itself, for IPv4 and IPv6 alike: `host` is a name
// or a numeric address of either family (an IPv6 one without brackets).
// A name with an IPv4 address gets IPv4 (both ends of a connection, and
// the master's listener, then agree on the family), one with only IPv6
// addresses IPv6. Both are close-on-exec. Errors are Unavailable with only
// the reason ("cannot resolve the host", or errno's text), for the caller
// to say what it was opening.

// Whether `host` has an IPv4 address.
bool HasIPv4Address(const std::string& host);

// A socket listening at host:port (port 0: a free one, *bound says which),
// with SO_REUSEADDR when `reuse_address`.
StatusOr<int> ListenTcp(const std::string& host, uint16_t port, bool reuse_address, uint16_t* bound);

// A socket connected to host:port. A send timeout of `send_timeout_ms`
// (0: none) is set first, which on Linux bounds connect() too.
StatusOr<int> ConnectTcp(const std::string& host, uint16_t port, int send_timeout_ms);

// The numeric address of a connected socket's far end, IPv6 without
// brackets ("" if unknown).
std::string PeerAddress(int fd);

// Reads exactly `n` bytes, never more (so that bytes which follow on the
// socket stay there for whoever reads next); false on EOF, error or a
// receive timeout. Retries on EINTR.
bool ReadExactly(int fd, void* p, size_t n);

// Writes all `n` bytes (no SIGPIPE); false on error or a send timeout.
bool WriteAll(int fd, const void* p, size_t n);

}  // namespace tact
