// Whole reads and writes on a blocking socket, for the handshakes and
// frames tact speaks beside CAF (tensor links, the cluster gate).
#pragma once

#include <cstddef>

namespace tact {

// Reads exactly `n` bytes, never more (so that bytes which follow on the
// socket stay there for whoever reads next); false on EOF, error or a
// receive timeout. Retries on EINTR.
bool ReadExactly(int fd, void* p, size_t n);

// Writes all `n` bytes (no SIGPIPE); false on error or a send timeout.
bool WriteAll(int fd, const void* p, size_t n);

}  // namespace tact
