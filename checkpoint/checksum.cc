#include "checkpoint/checksum.h"

// Inlined rather than linked: compiled here with -march=x86-64-v3 it takes
// the AVX2 path, where Debian's shared library is built for SSE2.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace tact {

uint64_t TensorChecksum(const Tensor& t) {
  if (t.dtype() != DT_STRING) return XXH3_64bits(t.raw_data(), t.TotalBytes());
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  const std::string* s = t.data<std::string>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const uint64_t n = s[i].size();
    XXH3_64bits_update(state, &n, sizeof(n));
    XXH3_64bits_update(state, s[i].data(), s[i].size());
  }
  const uint64_t h = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return h;
}

StatusOr<uint64_t> ExtentsChecksum(const std::string& path, const std::vector<ByteExtent>& extents) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errors::NotFound("cannot open '", path, "' to checksum it: ", std::strerror(errno));
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> state(XXH3_createState(), XXH3_freeState);
  XXH3_64bits_reset(state.get());
  std::vector<char> chunk(size_t{1} << 20);
  Status status;
  for (const ByteExtent& e : extents) {
    for (int64_t done = 0; done < e.length && status.ok();) {
      const size_t want = static_cast<size_t>(std::min<int64_t>(e.length - done, chunk.size()));
      const ssize_t n = ::pread(fd, chunk.data(), want, e.offset + done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        status = errors::DataLoss("cannot read bytes ", e.offset + done, "..", e.offset + e.length, " of '",
                                  path, "': ", n < 0 ? std::strerror(errno) : "the file ends first");
        break;
      }
      XXH3_64bits_update(state.get(), chunk.data(), static_cast<size_t>(n));
      done += n;
    }
  }
  ::close(fd);
  if (!status.ok()) return status;
  return XXH3_64bits_digest(state.get());
}

std::string ChecksumHex(uint64_t checksum) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(checksum));
  return buf;
}

}  // namespace tact
